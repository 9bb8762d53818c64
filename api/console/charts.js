// @ts-check
/**
 * The console's pictures: money out per day by kind, success rate per day, failure reasons, and the
 * balance against the forecast of scheduled outgoing money. Drawn with Chart.js 4 (its UMD build, served
 * by payrun itself: the page talks to no other origin), loaded only on the pages that draw. Every label,
 * legend and tooltip comes from the i18n catalogue and the locale's number formats; each chart has a
 * text alternative (an aria-label summary and the same numbers as a table), and sizes itself to its box,
 * so 200% zoom reflows it instead of clipping it.
 */
import { h, table } from './dom.js';
import { count, dateOnly, vnd } from './format.js';
import { language, t } from './i18n.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

const CHART_SCRIPT = '/console/vendor/chart.umd.js';

/** @type {Promise<any> | undefined} */
let loading;

/** Chart.js, once per page load. @returns {Promise<any>} */
export function loadChartJs() {
  const global = /** @type {any} */ (window);
  if (global.Chart) return Promise.resolve(global.Chart);
  loading ??= new Promise((resolve, reject) => {
    const script = h('script', { src: CHART_SCRIPT });
    script.addEventListener('load', () => resolve(global.Chart));
    script.addEventListener('error', () => reject(new Error('Chart.js could not be loaded')));
    document.head.append(script);
  });
  return loading;
}

/** Outgoing kinds, in the order the stacked bars pile them. */
const OUT_KINDS = ['payout_item', 'disbursement', 'remittance', 'refund'];

/** @type {Record<string, () => string>} */
export const KIND_LABELS = {
  payout_item: () => t('Payout run items'),
  disbursement: () => t('Disbursements'),
  remittance: () => t('Remittances'),
  refund: () => t('Refunds'),
  payment: () => t('Payments'),
  saved_method_payment: () => t('Saved-method payments'),
  subscription_charge: () => t('Subscription charges'),
};

/** What payrun's result-code table calls each kind of failure, in the page's language. */
/** @type {Record<string, () => string>} */
const REASON_LABELS = {
  insufficient_funds: () => t('Customer funds insufficient'),
  merchant_balance_short: () => t('Merchant balance too low'),
  invalid_request: () => t('Request refused as invalid'),
  not_found: () => t('Unknown order or receiver'),
  declined: () => t('Declined'),
  link_expired: () => t('Payment link expired'),
  token_invalid: () => t('Saved method no longer valid'),
  authorization_cancelled: () => t('Authorization cancelled'),
  authorization_expired: () => t('Authorization expired'),
  subscription_cancelled: () => t('Subscription cancelled'),
  subscription_paused: () => t('Subscription paused'),
  subscription_expired: () => t('Subscription expired'),
  otp_wrong: () => t('Wrong OTP'),
  otp_expired: () => t('OTP expired'),
  otp_locked: () => t('OTP locked'),
  otp_too_soon: () => t('OTP requested too soon'),
  otp_sms_limit: () => t('SMS limit reached'),
  retry_later: () => t('Gateway busy'),
  ineligible: () => t('Receiver not eligible'),
  failed: () => t('Refused by the gateway or the receiver'),
  unknown: () => t('No result code'),
};

/** @param {ApiRecord} reason */
export function reasonLabel(reason) {
  const words = (REASON_LABELS[reason.outcome] ?? REASON_LABELS.failed)();
  return reason.code === null ? words : t('{reason} (code {code})', { reason: words, code: reason.code });
}

export const COLOURS = ['#1f5fa8', '#c2571a', '#2e7d4f', '#8a3ea0', '#b8860b', '#4a6572', '#a32638'];

/** Amounts on an axis, short: 1,5 Tr ₫ / 1.5M ₫. */
export function compactVnd(/** @type {number} */ value) {
  const locale = language() === 'vi' ? 'vi-VN' : 'en-GB';
  return `${new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(value)} ₫`;
}

/**
 * A label as lines of at most `width` characters, split between words (Chart.js draws an array as lines).
 * @param {string} text
 * @param {number} [width]
 */
function wrapped(text, width = 22) {
  /** @type {string[]} */
  const lines = [];
  for (const word of text.split(' ')) {
    const last = lines.length ? lines[lines.length - 1] : undefined;
    if (last !== undefined && last.length + word.length + 1 <= width)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

const shortDay = (/** @type {string} */ date) => dateOnly(date).slice(0, 5);

/**
 * A chart in its figure: the canvas (an image with a summary) and the same numbers as a table.
 * @param {object} options
 * @param {string} options.id
 * @param {string} options.title
 * @param {string} options.summary
 * @param {import('./types.js').Child[]} options.columns
 * @param {import('./types.js').Child[][]} options.rows
 * @param {number} options.points Non-zero values drawn (for tests and the empty state).
 */
export function figure({ id, title, summary, columns, rows, points }) {
  const canvas = /** @type {HTMLCanvasElement} */ (
    h('canvas', {
      id: `${id}-canvas`,
      role: 'img',
      'aria-label': `${title}. ${summary}`,
      'data-points': String(points),
    })
  );
  const element = h(
    'figure',
    { class: 'chart', id },
    h('figcaption', {}, h('h2', {}, title)),
    h('div', { class: 'chart-box' }, canvas),
    h(
      'details',
      { class: 'chart-data' },
      h('summary', {}, t('The numbers behind this chart')),
      table({ caption: title, columns, rows, numeric: columns.map((_, index) => index).slice(1) }),
    ),
  );
  return { element, canvas };
}

/** Chart.js options every chart shares: its box's size, the page's language in tooltips. */
export function baseOptions(/** @type {(value: number) => string} */ formatValue) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    locale: language() === 'vi' ? 'vi-VN' : 'en-GB',
    plugins: {
      legend: { position: 'bottom', labels: { boxWidth: 12 } },
      tooltip: {
        callbacks: {
          label: (/** @type {any} */ item) =>
            `${item.dataset.label ? `${item.dataset.label}: ` : ''}${formatValue(Number(item.raw))}`,
        },
      },
    },
    scales: {
      x: { ticks: { autoSkip: true, maxRotation: 45 } },
      y: { beginAtZero: true, ticks: { callback: (/** @type {number} */ value) => formatValue(value) } },
    },
  };
}

/**
 * Draws the chart once its figure is in the page; answers a function that frees it.
 * @param {HTMLCanvasElement} canvas
 * @param {object} config
 */
export async function draw(canvas, config) {
  const Chart = await loadChartJs();
  const chart = new Chart(canvas, config);
  return () => chart.destroy();
}

/**
 * Money out per day, stacked by kind (what succeeded).
 * @param {ApiRecord} figures The answer of /v1/reports/daily.
 */
export function moneyOutChart(figures) {
  /** @type {ApiRecord[]} */
  const days = figures.days;
  const series = OUT_KINDS.map((kind) => days.map((day) => Number(day.kinds[kind].succeededAmount)));
  const total = series.flat().reduce((sum, value) => sum + value, 0);
  const title = t('Money out per day, by kind');
  const { element, canvas } = figure({
    id: 'chart-money-out',
    title,
    summary: t('{total} paid out from {from} to {to}.', {
      total: vnd(total),
      from: dateOnly(figures.period.from),
      to: dateOnly(figures.period.to),
    }),
    columns: [t('Day'), ...OUT_KINDS.map((kind) => KIND_LABELS[kind]())],
    rows: days.map((day, index) => [dateOnly(day.date), ...series.map((values) => vnd(values[index]))]),
    points: series.flat().filter(Boolean).length,
  });
  const options = baseOptions(compactVnd);
  const render = () =>
    draw(canvas, {
      type: 'bar',
      data: {
        labels: days.map((day) => shortDay(day.date)),
        datasets: OUT_KINDS.map((kind, index) => ({
          label: KIND_LABELS[kind](),
          data: series[index],
          backgroundColor: COLOURS[index],
          stack: 'out',
        })),
      },
      options: {
        ...options,
        plugins: {
          ...options.plugins,
          tooltip: {
            callbacks: { label: (/** @type {any} */ item) => `${item.dataset.label}: ${vnd(item.raw)}` },
          },
        },
        scales: { x: { ...options.scales.x, stacked: true }, y: { ...options.scales.y, stacked: true } },
      },
    });
  return { element, render };
}

/** @param {ApiRecord} figures */
export function successRateChart(figures) {
  /** @type {ApiRecord[]} */
  const days = figures.days;
  const rates = days.map((day) =>
    day.successRate === null ? null : Math.round(day.successRate * 1000) / 10,
  );
  const finished = days.reduce((sum, day) => sum + day.succeeded + day.failed, 0);
  const succeeded = days.reduce((sum, day) => sum + day.succeeded, 0);
  const percentText = (/** @type {number} */ value) =>
    new Intl.NumberFormat(language() === 'vi' ? 'vi-VN' : 'en-GB', { maximumFractionDigits: 1 }).format(
      value,
    ) + ' %';
  const title = t('Success rate per day');
  const { element, canvas } = figure({
    id: 'chart-success-rate',
    title,
    summary: t('{succeeded} of {finished} finished movements succeeded.', {
      succeeded: count(succeeded),
      finished: count(finished),
    }),
    columns: [t('Day'), t('Succeeded'), t('Failed'), t('Success rate')],
    rows: days.map((day, index) => [
      dateOnly(day.date),
      count(day.succeeded),
      count(day.failed),
      rates[index] === null ? '—' : percentText(/** @type {number} */ (rates[index])),
    ]),
    points: rates.filter((rate) => rate !== null).length,
  });
  const options = baseOptions(percentText);
  const render = () =>
    draw(canvas, {
      type: 'line',
      data: {
        labels: days.map((day) => shortDay(day.date)),
        datasets: [
          {
            label: t('Success rate'),
            data: rates,
            borderColor: COLOURS[2],
            backgroundColor: COLOURS[2],
            spanGaps: true,
          },
        ],
      },
      options: { ...options, scales: { ...options.scales, y: { ...options.scales.y, max: 100 } } },
    });
  return { element, render };
}

/** @param {ApiRecord} figures */
export function failureReasonsChart(figures) {
  /** @type {ApiRecord[]} */
  const reasons = figures.failureReasons;
  const title = t('Why movements failed');
  const { element, canvas } = figure({
    id: 'chart-failure-reasons',
    title,
    summary: reasons.length
      ? t('{n} failed movements; most often: {reason}.', {
          n: count(reasons.reduce((sum, reason) => sum + reason.count, 0)),
          reason: reasonLabel(reasons[0]),
        })
      : t('No movement failed in this period.'),
    columns: [t('Reason'), t('Movements'), t('Amount')],
    rows: reasons.map((reason) => [reasonLabel(reason), count(reason.count), vnd(reason.amount)]),
    points: reasons.length,
  });
  const options = baseOptions((value) => count(value));
  const render = () =>
    draw(canvas, {
      type: 'bar',
      data: {
        // Long reasons wrap onto several lines instead of running off the chart's left edge.
        labels: reasons.map((reason) => wrapped(reasonLabel(reason))),
        datasets: [
          { label: t('Movements'), data: reasons.map((reason) => reason.count), backgroundColor: COLOURS[6] },
        ],
      },
      options: {
        ...options,
        indexAxis: 'y',
        plugins: { ...options.plugins, legend: { display: false } },
        scales: {
          x: { beginAtZero: true, ticks: { precision: 0 } },
          y: { ticks: { autoSkip: false } },
        },
      },
    });
  return { element, render };
}

/**
 * The balance against the next days of scheduled outgoing money (GET /v1/balance-forecast).
 * @param {ApiRecord} forecast
 */
export function forecastChart(forecast) {
  /** @type {ApiRecord[]} */
  const days = forecast.days;
  const outgoing = days.map((day) => Number(day.outgoing));
  let left = forecast.balance === null ? null : Number(forecast.balance);
  const remaining = outgoing.map((amount) => (left === null ? null : (left -= amount)));
  const firstShort = days.find((_, index) => (remaining[index] ?? 0) < 0);
  const title = t('Balance against scheduled payouts');
  const { element, canvas } = figure({
    id: 'chart-forecast',
    title,
    summary:
      forecast.balance === null
        ? t('The balance is not known; {total} is scheduled.', {
            total: vnd(outgoing.reduce((a, b) => a + b, 0)),
          })
        : firstShort
          ? t('The balance of {balance} runs short on {date}.', {
              balance: vnd(forecast.balance),
              date: dateOnly(firstShort.date),
            })
          : t('The balance of {balance} covers every scheduled payout.', { balance: vnd(forecast.balance) }),
    columns: [t('Day'), t('Scheduled out'), t('Balance left')],
    rows: days.map((day, index) => [dateOnly(day.date), vnd(outgoing[index]), vnd(remaining[index])]),
    points: outgoing.filter(Boolean).length + (forecast.balance === null ? 0 : 1),
  });
  const options = baseOptions(compactVnd);
  const render = () =>
    draw(canvas, {
      type: 'bar',
      data: {
        labels: days.map((day) => shortDay(day.date)),
        datasets: [
          { type: 'bar', label: t('Scheduled out'), data: outgoing, backgroundColor: COLOURS[1] },
          {
            type: 'line',
            label: t('Balance left'),
            data: remaining,
            borderColor: COLOURS[0],
            backgroundColor: COLOURS[0],
          },
        ],
      },
      options: {
        ...options,
        plugins: {
          ...options.plugins,
          tooltip: {
            callbacks: { label: (/** @type {any} */ item) => `${item.dataset.label}: ${vnd(item.raw)}` },
          },
        },
        scales: { ...options.scales, y: { ticks: options.scales.y.ticks } },
      },
    });
  return { element, render };
}

/**
 * Puts charts in `container` and draws them; answers a function that frees them all.
 * @param {HTMLElement} container
 * @param {{ element: HTMLElement, render: () => Promise<() => void> }[]} charts
 */
export async function showCharts(container, charts) {
  container.replaceChildren(...charts.map((chart) => chart.element));
  const frees = await Promise.all(charts.map((chart) => chart.render()));
  return () => frees.forEach((free) => free());
}
