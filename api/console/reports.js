// @ts-check
/**
 * The period report page (#/reports): pick a day, a week, a month or custom days (GMT+7), read the totals
 * per kind and outcome, see the same charts as the dashboard for that period, and download every movement
 * as CSV or XLSX. The numbers come from GET /v1/reports/movements and /v1/reports/daily.
 */
import { request } from './api.js';
import { failureReasonsChart, KIND_LABELS, moneyOutChart, showCharts, successRateChart } from './charts.js';
import { announce, fill, h, saveBlob, table } from './dom.js';
import { count, dateOnly, vnd } from './format.js';
import { t } from './i18n.js';
import { errorBox, pageHeading } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */

const PERIODS = ['day', 'week', 'month', 'custom'];
const OUTCOMES = ['succeeded', 'failed', 'pending'];

/** @type {Record<string, () => string>} */
const PERIOD_LABELS = {
  day: () => t('Day'),
  week: () => t('Week'),
  month: () => t('Month'),
  custom: () => t('Custom'),
};
/** @type {Record<string, () => string>} */
const OUTCOME_LABELS = {
  succeeded: () => t('Succeeded'),
  failed: () => t('Failed'),
  pending: () => t('Pending'),
};

/** The report's query from the page's address: only what the API takes for the chosen period. */
function reportQuery(/** @type {URLSearchParams} */ query) {
  const period = PERIODS.includes(query.get('period') ?? '')
    ? /** @type {string} */ (query.get('period'))
    : 'week';
  const params = new URLSearchParams({ period });
  for (const name of period === 'custom' ? ['from', 'to'] : ['date']) {
    const value = query.get(name);
    if (value) params.set(name, value);
  }
  return params;
}

/** @param {ApiRecord} totals */
function totalsTable(totals) {
  const line = (/** @type {string} */ name, /** @type {ApiRecord} */ value) => [
    name,
    count(value.count),
    vnd(value.amount),
  ];
  return h(
    'div',
    { id: 'report-totals' },
    table({
      caption: t('Totals'),
      columns: [t('Line'), t('Movements'), t('Amount')],
      rows: [
        line(t('Money out (succeeded)'), totals.out),
        line(t('Money in (succeeded)'), totals.in),
        line(t('Failed'), totals.failed),
        line(t('Pending'), totals.pending),
      ],
      numeric: [1, 2],
    }),
    table({
      caption: t('By kind'),
      columns: [t('Kind'), ...OUTCOMES.map((outcome) => OUTCOME_LABELS[outcome]())],
      rows: Object.entries(KIND_LABELS).map(([kind, name]) => [
        name(),
        ...OUTCOMES.map((outcome) => {
          const value = totals.byKind[kind][outcome];
          return `${count(value.count)} · ${vnd(value.amount)}`;
        }),
      ]),
      numeric: [1, 2, 3],
    }),
  );
}

/** @param {ApiRecord} reconciliation */
function reconciliationNote(reconciliation) {
  /** @type {ApiRecord[]} */
  const batches = reconciliation.batches;
  const disagreeing = batches.filter((batch) => batch.agrees === false).length;
  return h(
    'p',
    { id: 'report-reconciliation', class: disagreeing ? 'needs' : 'calm' },
    disagreeing
      ? t('{n} payout batches disagree with the gateway’s own totals.', { n: count(disagreeing) })
      : t('{n} payout batches agree with the gateway’s own totals; {m} not confirmed yet.', {
          n: count(batches.length - reconciliation.unconfirmedBatches),
          m: count(reconciliation.unconfirmedBatches),
        }),
  );
}

/**
 * @param {HTMLElement} main
 * @param {Ctx} _ctx
 * @param {URLSearchParams} query
 */
export function reportsPage(main, _ctx, query) {
  const params = reportQuery(query);
  const period = /** @type {string} */ (params.get('period'));
  /** @type {HTMLSelectElement} */
  const periodSelect = h(
    'select',
    { id: 'report-period' },
    PERIODS.map((value) => h('option', { value, selected: value === period }, PERIOD_LABELS[value]())),
  );
  const date = h('input', { id: 'report-date', type: 'date', value: params.get('date') ?? '' });
  const from = h('input', { id: 'report-from', type: 'date', value: params.get('from') ?? '' });
  const to = h('input', { id: 'report-to', type: 'date', value: params.get('to') ?? '' });
  const field = (/** @type {HTMLInputElement | HTMLSelectElement} */ input, /** @type {string} */ text) =>
    h('div', { class: 'field' }, h('label', { for: input.id }, text), input);
  const status = h('p', { role: 'status' });
  const summary = h('div', { id: 'report-summary' }, h('p', {}, t('Loading…')));
  const charts = h('section', { id: 'report-charts', class: 'charts', 'aria-label': t('Charts') });
  /** @param {'csv' | 'xlsx'} extension */
  const download = (extension) => async () => {
    try {
      const blob = await request(`/v1/reports/movements.${extension}?${params}`, { as: 'blob' });
      saveBlob(blob, `payrun-movements.${extension}`);
      announce(t('Report downloaded.'));
    } catch (error) {
      fill(status, errorBox(error, t('The report could not be downloaded')));
    }
  };
  fill(
    main,
    pageHeading(t('Reports')),
    h(
      'p',
      {},
      t(
        'Every movement of money of every kind in a period, days in Vietnam time (GMT+7), weeks from Monday.',
      ),
    ),
    h(
      'form',
      {
        class: 'filters',
        id: 'report-form',
        onsubmit: (/** @type {Event} */ event) => {
          event.preventDefault();
          const next = new URLSearchParams({ period: periodSelect.value });
          const chosen =
            periodSelect.value === 'custom' ? { from: from.value, to: to.value } : { date: date.value };
          for (const [name, value] of Object.entries(chosen)) if (value) next.set(name, value);
          _ctx.navigate(`#/reports?${next}`);
        },
      },
      field(periodSelect, t('Period')),
      field(date, t('A day in the period (GMT+7)')),
      field(from, t('From (GMT+7)')),
      field(to, t('To (GMT+7)')),
      h('button', { type: 'submit', id: 'apply-report' }, t('Apply')),
      h('button', { type: 'button', id: 'download-report-csv', onclick: download('csv') }, t('Download CSV')),
      h(
        'button',
        { type: 'button', id: 'download-report-xlsx', onclick: download('xlsx') },
        t('Download XLSX'),
      ),
    ),
    status,
    summary,
    charts,
  );
  let freeCharts = () => {};
  let left = false;
  void (async () => {
    try {
      const report = await request(`/v1/reports/movements?${params}`);
      fill(
        summary,
        h(
          'h2',
          { id: 'report-period-shown' },
          t('{from} to {to}', { from: dateOnly(report.period.from), to: dateOnly(report.period.to) }),
        ),
        totalsTable(report.totals),
        reconciliationNote(report.reconciliation),
      );
      const figures = await request(`/v1/reports/daily?from=${report.period.from}&to=${report.period.to}`);
      if (left) return;
      freeCharts = await showCharts(charts, [
        moneyOutChart(figures),
        successRateChart(figures),
        failureReasonsChart(figures),
      ]);
    } catch (error) {
      fill(summary, errorBox(error, t('The report could not be loaded')));
    }
  })();
  return () => {
    left = true;
    freeCharts();
  };
}
