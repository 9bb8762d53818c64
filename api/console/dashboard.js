// @ts-check
/**
 * What needs a person now: runs waiting for approval or funds, anything that needs attention, paused
 * subscriptions, payments waiting too long, and webhook endpoints disabled because their receiver
 * kept failing (each with its reason). Each line links to the list, filtered; a line shows only to
 * the roles that may read its list.
 */
import { request } from './api.js';
import { balanceWatch } from './balance-thresholds.js';
import { failureReasonsChart, forecastChart, moneyOutChart, showCharts, successRateChart } from './charts.js';
import { fill, fillIfChanged, h } from './dom.js';
import { age, count, dateTime, vnd } from './format.js';
import { t } from './i18n.js';
import { errorBox, pageHeading } from './ui.js';
import { serverText } from './server-text.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Child} Child */
/** @typedef {import('./types.js').Ctx} Ctx */

/** A payment that waits longer than this for a code or a capture needs someone to look. */
const WAITING_TOO_LONG_MS = 15 * 60_000;

/**
 * One line of the dashboard: the list it counts (`status` of `list`, rows in the answer's `key`).
 * @typedef {object} Check
 * @property {import('./types.js').Duty} duty
 * @property {string} list The console list (#/<list>) and, with `endpoint`, the API list.
 * @property {string} endpoint
 * @property {string} [status] The status the list is filtered by; none when the endpoint lists only what waits.
 * @property {string} [hash] The console page, when it is not the list filtered by status.
 * @property {string} key
 * @property {() => string} text
 * @property {boolean} [onlyOld] Count only rows older than 15 minutes.
 * @property {(row: ApiRecord) => string} [since] When a row started to need someone (default: created).
 * @property {(rows: ApiRecord[]) => Child} [detail] The rows themselves, under the line.
 */

/** @type {Check[]} */
const CHECKS = [
  {
    duty: 'approve',
    list: 'approvals',
    hash: '#/approvals',
    endpoint: '/v1/approvals',
    key: 'approvals',
    text: () => t('Disbursements, refunds and remittances waiting for approval'),
    since: (row) => row.requestedAt,
  },
  {
    duty: 'readRuns',
    list: 'runs',
    endpoint: '/v1/payout-runs',
    status: 'awaiting_approval',
    key: 'runs',
    text: () => t('Payout runs awaiting approval'),
  },
  {
    duty: 'readRuns',
    list: 'runs',
    endpoint: '/v1/payout-runs',
    status: 'awaiting_funds',
    key: 'runs',
    text: () => t('Payout runs waiting for funds'),
  },
  {
    duty: 'readRuns',
    list: 'runs',
    endpoint: '/v1/payout-runs',
    status: 'needs_attention',
    key: 'runs',
    text: () => t('Payout runs that need attention'),
  },
  {
    duty: 'readRuns',
    list: 'runs',
    endpoint: '/v1/payout-runs',
    status: 'scheduled',
    key: 'runs',
    text: () => t('Payout runs scheduled to pay later'),
    since: (row) => row.uploadedAt,
    // Each with its time (GMT+7) and a warning when the check ahead of it found the balance short or receivers refused.
    detail: (rows) =>
      h(
        'ul',
        { class: 'dashboard-detail' },
        rows
          .slice(0, 5)
          .map((row) =>
            h(
              'li',
              { 'data-run': row.runId },
              h('a', { href: `#/runs/${encodeURIComponent(row.runId)}` }, row.runId),
              ': ',
              t('pays {total} at {time}', { total: vnd(row.totalAmount), time: dateTime(row.executeAt) }),
              row.scheduleWarning ? [' ', h('span', { class: 'badge badge-warn' }, t('Warning'))] : null,
            ),
          ),
      ),
  },
  {
    duty: 'readRuns',
    list: 'disbursements',
    endpoint: '/v1/disbursements',
    status: 'needs_attention',
    key: 'disbursements',
    text: () => t('Disbursements that need attention'),
  },
  {
    duty: 'remittances',
    list: 'remittances',
    endpoint: '/v1/remittances',
    status: 'needs_attention',
    key: 'remittances',
    text: () => t('Remittances that need attention'),
  },
  {
    duty: 'subscriptions',
    list: 'subscriptions',
    endpoint: '/v1/subscriptions',
    status: 'paused',
    key: 'subscriptions',
    text: () => t('Paused subscriptions'),
  },
  {
    duty: 'subscriptions',
    list: 'subscriptions',
    endpoint: '/v1/subscriptions',
    status: 'needs_reauthorization',
    key: 'subscriptions',
    text: () => t('Subscriptions that need the customer to authorize again'),
  },
  {
    duty: 'subscriptions',
    list: 'subscriptions',
    endpoint: '/v1/subscriptions',
    status: 'needs_attention',
    key: 'subscriptions',
    text: () => t('Subscriptions that need attention (a reactivation nobody confirmed)'),
  },
  {
    duty: 'savedMethodPayments',
    list: 'saved-method-payments',
    endpoint: '/v1/saved-method-payments',
    status: 'needs_attention',
    key: 'payments',
    text: () => t('Saved-method payments that need attention'),
  },
  {
    duty: 'savedMethodPayments',
    list: 'saved-method-payments',
    endpoint: '/v1/saved-method-payments',
    status: 'awaiting_otp',
    key: 'payments',
    text: () => t('Saved-method payments waiting more than 15 minutes for an OTP'),
    onlyOld: true,
  },
  {
    duty: 'payments',
    list: 'payments',
    endpoint: '/v1/payments',
    status: 'authorized_not_captured',
    key: 'payments',
    text: () => t('Authorized payments waiting for a capture or a cancel'),
  },
  {
    duty: 'payments',
    list: 'payments',
    endpoint: '/v1/payments',
    status: 'pending',
    key: 'payments',
    text: () => t('Payments pending for more than 15 minutes'),
    onlyOld: true,
  },
  {
    duty: 'webhooks',
    list: 'webhook-endpoints',
    endpoint: '/v1/webhook-endpoints',
    status: 'disabled',
    key: 'endpoints',
    text: () => t('Webhook endpoints disabled: their receiver kept failing, no events are sent to them'),
    since: (row) => row.disabledAt,
    // Each endpoint with why it was disabled: the fix is on the receiver's side.
    detail: (rows) =>
      h(
        'ul',
        { class: 'dashboard-detail' },
        rows
          .slice(0, 5)
          .map((row) =>
            h(
              'li',
              { 'data-endpoint': row.endpointId },
              h('a', { href: `#/webhook-endpoints/${encodeURIComponent(row.endpointId)}` }, row.url),
              ': ',
              h('span', { class: 'disabled-reason' }, serverText(row.disabledReason) ?? '—'),
            ),
          ),
      ),
  },
];

/** @typedef {Check & { hash: string, n: number | null, more?: boolean, oldest?: string | null, rows?: ApiRecord[] }} Line */

/**
 * How many rows need someone, the oldest of them, and the rows when the line shows them.
 * @param {Check} check
 * @returns {Promise<Line>}
 */
async function lineOf(check) {
  const hash = check.hash ?? `#/${check.list}?status=${check.status}`;
  const params = new URLSearchParams({ limit: '200' });
  if (check.status) params.set('status', check.status);
  try {
    const answer = await request(`${check.endpoint}?${params}`);
    /** @type {ApiRecord[]} */
    let rows = answer[check.key] ?? [];
    if (check.onlyOld)
      rows = rows.filter((row) => Date.now() - new Date(row.createdAt).getTime() > WAITING_TOO_LONG_MS);
    const since = check.since ?? ((row) => row.createdAt ?? row.uploadedAt);
    const oldest = rows.reduce(
      (/** @type {string | null} */ first, row) =>
        !first || new Date(since(row)) < new Date(first) ? since(row) : first,
      null,
    );
    return {
      ...check,
      hash,
      n: rows.length,
      more: answer.nextOffset !== null && !check.onlyOld,
      oldest,
      rows: check.detail ? rows : [],
    };
  } catch {
    return { ...check, hash, n: null };
  }
}

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 */
export function dashboardPage(main, ctx) {
  const body = h('ul', { id: 'dashboard', class: 'dashboard' });
  const charts = h('section', { id: 'dashboard-charts', class: 'charts', 'aria-label': t('Charts') });
  // Balances are readable by those who read runs; a low one is the first thing on the page.
  const balances = ctx.can('readRuns') ? balanceWatch(ctx) : null;
  fill(
    main,
    pageHeading(t('What needs you now')),
    balances?.banners ?? null,
    h('p', {}, t('Each line opens the list, filtered. This page refreshes by itself.')),
    body,
    balances?.panel ?? null,
    h('h2', {}, t('The last 30 days')),
    h('p', { class: 'hint' }, t("Days in Vietnam time (GMT+7). Open a chart's numbers below it.")),
    charts,
  );
  let freeCharts = () => {};
  void drawDashboardCharts(charts).then((free) => (freeCharts = free));
  const load = async () => {
    void balances?.load();
    const lines = await Promise.all(CHECKS.filter((check) => ctx.can(check.duty)).map(lineOf));
    fillIfChanged(
      body,
      lines.map(({ hash, n, more, oldest, rows }) => [hash, n, more, oldest, rows]),
      () =>
        lines.map((line) =>
          h(
            'li',
            { class: line.n ? 'needs' : 'calm', 'data-check': line.hash },
            h(
              'a',
              { href: line.hash },
              h(
                'strong',
                { class: 'dashboard-count' },
                line.n === null ? '?' : `${count(line.n)}${line.more ? '+' : ''}`,
              ),
              ' ',
              line.text(),
            ),
            line.n && line.oldest
              ? h('span', { class: 'hint' }, ` · ${t('oldest {age}', { age: age(line.oldest) })}`)
              : null,
            line.n && line.detail ? line.detail(line.rows ?? []) : null,
          ),
        ),
    );
  };
  void load();
  const timer = setInterval(() => void load(), 5000);
  return () => {
    clearInterval(timer);
    freeCharts();
  };
}

const DAY_MS = 86_400_000;
/** A day in Vietnam's time, YYYY-MM-DD, `daysAgo` before today. */
const gmt7Day = (daysAgo = 0) =>
  new Date(Date.now() + 7 * 3_600_000 - daysAgo * DAY_MS).toISOString().slice(0, 10);

/**
 * Money out, success rate and failure reasons of the last 30 days, and the balance against the next 14
 * days of scheduled payouts when payrun can forecast them (a deployment without forecasts answers 404).
 * @param {HTMLElement} container
 * @returns {Promise<() => void>}
 */
async function drawDashboardCharts(container) {
  container.replaceChildren(h('p', {}, t('Loading…')));
  try {
    const figures = await request(`/v1/reports/daily?from=${gmt7Day(29)}&to=${gmt7Day()}`);
    /** @type {import('./types.js').ApiRecord | null} */
    let forecast = null;
    try {
      forecast = await request('/v1/balance-forecast?days=14');
    } catch {
      forecast = null;
    }
    const free = await showCharts(container, [
      moneyOutChart(figures),
      successRateChart(figures),
      failureReasonsChart(figures),
      ...(forecast ? [forecastChart(forecast)] : []),
    ]);
    if (!forecast)
      container.append(
        h('p', { id: 'no-forecast', class: 'hint' }, t('No forecast of scheduled payouts is available.')),
      );
    return free;
  } catch (error) {
    container.replaceChildren(errorBox(error, t('The charts could not be loaded')));
    return () => {};
  }
}
