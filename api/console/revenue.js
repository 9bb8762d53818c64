// @ts-check
/**
 * The revenue page (#/revenue): monthly recurring revenue in VND, subscriptions active / paused /
 * cancelled, and per GMT+7 month the new and churned subscriptions and the failed cycles a later attempt
 * recovered, in total and per plan, over the last twelve months. The numbers come from GET /v1/revenue;
 * each chart has its table as the text alternative (the chart helpers of the reports pages).
 */
import { request } from './api.js';
import { baseOptions, COLOURS, compactVnd, draw, figure, showCharts } from './charts.js';
import { fill, h, table } from './dom.js';
import { count, TIME_ZONE, vnd } from './format.js';
import { t } from './i18n.js';
import { errorBox, pageHeading } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/** Today in Vietnam and the first day of the month eleven months before: twelve months in all. */
function lastTwelveMonths() {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(new Date());
  const [year, month] = today.split('-').map(Number);
  const first = new Date(Date.UTC(/** @type {number} */ (year), /** @type {number} */ (month) - 12, 1));
  return { from: first.toISOString().slice(0, 10), to: today };
}

const planName = (/** @type {string | null} */ planId) => planId ?? t('No plan');
const share = (/** @type {number | null} */ value) =>
  value === null ? '—' : `${Math.round(value * 1000) / 10}%`;

/** @param {ApiRecord} revenue */
function mrrChart(revenue) {
  /** @type {ApiRecord[]} */
  const plans = revenue.plans;
  const title = t('Monthly recurring revenue per plan');
  const { element, canvas } = figure({
    id: 'chart-revenue-mrr',
    title,
    summary: t('{total} a month in all.', { total: vnd(revenue.total.mrrVnd) }),
    columns: [t('Plan'), t('Monthly recurring revenue')],
    rows: plans.map((plan) => [planName(plan.planId), vnd(plan.mrrVnd)]),
    points: plans.filter((plan) => plan.mrrVnd > 0).length,
  });
  const render = () =>
    draw(canvas, {
      type: 'bar',
      data: {
        labels: plans.map((plan) => planName(plan.planId)),
        datasets: [
          {
            label: t('Monthly recurring revenue'),
            data: plans.map((plan) => plan.mrrVnd),
            backgroundColor: COLOURS[0],
          },
        ],
      },
      options: baseOptions(compactVnd),
    });
  return { element, render };
}

/**
 * Two series per month, drawn as grouped bars, with the same numbers as a table.
 * @param {ApiRecord[]} months
 * @param {{ id: string, title: string, summary: string, series: [string, (month: ApiRecord) => number][], extra?: [string, (month: ApiRecord) => string] }} spec
 */
function monthlyChart(months, spec) {
  const columns = [t('Month'), ...spec.series.map(([name]) => name), ...(spec.extra ? [spec.extra[0]] : [])];
  const { element, canvas } = figure({
    id: spec.id,
    title: spec.title,
    summary: spec.summary,
    columns,
    rows: months.map((month) => [
      month.month,
      ...spec.series.map(([, value]) => count(value(month))),
      ...(spec.extra ? [spec.extra[1](month)] : []),
    ]),
    points: months.flatMap((month) => spec.series.map(([, value]) => value(month))).filter(Boolean).length,
  });
  const render = () =>
    draw(canvas, {
      type: 'bar',
      data: {
        labels: months.map((month) => month.month),
        datasets: spec.series.map(([label, value], index) => ({
          label,
          data: months.map(value),
          backgroundColor: COLOURS[index + 1],
        })),
      },
      options: wholeCounts(baseOptions((value) => count(value))),
    });
  return { element, render };
}

/**
 * Counts are whole: no 0,5 subscription on the axis.
 * @param {ReturnType<typeof baseOptions>} options
 */
function wholeCounts(options) {
  const y = options.scales.y;
  return { ...options, scales: { ...options.scales, y: { ...y, ticks: { ...y.ticks, precision: 0 } } } };
}

/** @param {ApiRecord} revenue */
function summaryTable(revenue) {
  /** @type {ApiRecord[]} */
  const plans = revenue.plans;
  const line = (/** @type {string} */ name, /** @type {ApiRecord} */ figures) => [
    name,
    vnd(figures.mrrVnd),
    count(figures.counts.active),
    count(figures.counts.paused),
    count(figures.counts.cancelled),
  ];
  return table({
    caption: t('Revenue per plan'),
    columns: [t('Plan'), t('Monthly recurring revenue'), t('Active'), t('Paused'), t('Cancelled')],
    rows: [...plans.map((plan) => line(planName(plan.planId), plan)), line(t('Total'), revenue.total)],
    numeric: [1, 2, 3, 4],
  });
}

/** @param {HTMLElement} main */
export function revenuePage(main) {
  const { from, to } = lastTwelveMonths();
  const summary = h('div', { id: 'revenue-summary' }, h('p', {}, t('Loading…')));
  const charts = h('section', { id: 'revenue-charts', class: 'charts', 'aria-label': t('Charts') });
  fill(
    main,
    pageHeading(t('Revenue')),
    h(
      'p',
      {},
      t('Subscriptions billed in VND, months in Vietnam time (GMT+7), from {from} to {to}.', { from, to }),
    ),
    summary,
    charts,
  );
  let freeCharts = () => {};
  let left = false;
  void (async () => {
    try {
      const revenue = await request(`/v1/revenue?period=month&from=${from}&to=${to}`);
      if (left) return;
      /** @type {ApiRecord[]} */
      const months = revenue.total.months;
      const failed = months.reduce((sum, month) => sum + month.failedCycles, 0);
      const recovered = months.reduce((sum, month) => sum + month.recoveredCycles, 0);
      fill(
        summary,
        h(
          'p',
          { id: 'revenue-mrr' },
          t('Monthly recurring revenue: {mrr}.', { mrr: vnd(revenue.total.mrrVnd) }),
        ),
        summaryTable(revenue),
      );
      freeCharts = await showCharts(charts, [
        mrrChart(revenue),
        monthlyChart(months, {
          id: 'chart-revenue-movement',
          title: t('New and churned subscriptions per month'),
          summary: t('{new} new, {churned} churned.', {
            new: count(months.reduce((sum, month) => sum + month.newSubscriptions, 0)),
            churned: count(months.reduce((sum, month) => sum + month.churned, 0)),
          }),
          series: [
            [t('New'), (month) => month.newSubscriptions],
            [t('Churned'), (month) => month.churned],
          ],
        }),
        monthlyChart(months, {
          id: 'chart-revenue-recovery',
          title: t('Failed charges and those recovered per month'),
          summary: t('{failed} failed cycles, {recovered} recovered by a later attempt ({share}).', {
            failed: count(failed),
            recovered: count(recovered),
            share: share(failed ? recovered / failed : null),
          }),
          series: [
            [t('Failed cycles'), (month) => month.failedCycles],
            [t('Recovered'), (month) => month.recoveredCycles],
          ],
          extra: [t('Share recovered'), (month) => share(month.recoveredShare)],
        }),
      ]);
    } catch (error) {
      fill(summary, errorBox(error, t('The revenue figures could not be loaded')));
    }
  })();
  return () => {
    left = true;
    freeCharts();
  };
}
