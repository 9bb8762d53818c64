/**
 * What needs a person now: runs waiting for approval or funds, anything that needs attention, paused
 * subscriptions, payments waiting too long, and webhook endpoints disabled because their receiver
 * kept failing (each with its reason). Each line links to the list, filtered.
 */
import { request } from './api.js';
import { fill, fillIfChanged, h } from './dom.js';
import { age, count } from './format.js';
import { t } from './i18n.js';
import { pageHeading } from './ui.js';

/** A payment that waits longer than this for a code or a capture needs someone to look. */
const WAITING_TOO_LONG_MS = 15 * 60_000;

function checks(ctx) {
  const list = [];
  const add = (duty, hash, endpoint, key, text, onlyOld = false, more = {}) => {
    if (ctx.can(duty)) list.push({ hash, endpoint, key, text, onlyOld, ...more });
  };
  add('readRuns', '#/runs?status=awaiting_approval', '/v1/payout-runs?status=awaiting_approval', 'runs', () =>
    t('Payout runs awaiting approval'),
  );
  add('readRuns', '#/runs?status=awaiting_funds', '/v1/payout-runs?status=awaiting_funds', 'runs', () =>
    t('Payout runs waiting for funds'),
  );
  add('readRuns', '#/runs?status=needs_attention', '/v1/payout-runs?status=needs_attention', 'runs', () =>
    t('Payout runs that need attention'),
  );
  add(
    'readRuns',
    '#/disbursements?status=needs_attention',
    '/v1/disbursements?status=needs_attention',
    'disbursements',
    () => t('Disbursements that need attention'),
  );
  add(
    'remittances',
    '#/remittances?status=needs_attention',
    '/v1/remittances?status=needs_attention',
    'remittances',
    () => t('Remittances that need attention'),
  );
  add(
    'subscriptions',
    '#/subscriptions?status=paused',
    '/v1/subscriptions?status=paused',
    'subscriptions',
    () => t('Paused subscriptions'),
  );
  add(
    'subscriptions',
    '#/subscriptions?status=needs_reauthorization',
    '/v1/subscriptions?status=needs_reauthorization',
    'subscriptions',
    () => t('Subscriptions that need the customer to authorize again'),
  );
  add(
    'tokenPayments',
    '#/token-payments?status=awaiting_otp',
    '/v1/token-payments?status=awaiting_otp',
    'payments',
    () => t('Token payments waiting more than 15 minutes for an OTP'),
    true,
  );
  add(
    'payments',
    '#/payments?status=authorized_not_captured',
    '/v1/payments?status=authorized_not_captured',
    'payments',
    () => t('Authorized payments waiting for a capture or a cancel'),
  );
  add(
    'payments',
    '#/payments?status=pending',
    '/v1/payments?status=pending',
    'payments',
    () => t('Payments pending for more than 15 minutes'),
    true,
  );
  add(
    'webhooks',
    '#/webhook-endpoints?status=disabled',
    '/v1/webhook-endpoints?status=disabled',
    'endpoints',
    () => t('Webhook endpoints disabled: their receiver kept failing, no events are sent to them'),
    false,
    {
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
                h('span', { class: 'disabled-reason' }, row.disabledReason ?? '—'),
              ),
            ),
        ),
    },
  );
  return list;
}

export function dashboardPage(main, ctx) {
  const body = h('ul', { id: 'dashboard', class: 'dashboard' });
  fill(
    main,
    pageHeading(t('What needs you now')),
    h('p', {}, t('Each line opens the list, filtered. This page refreshes by itself.')),
    body,
  );
  const load = async () => {
    const lines = await Promise.all(
      checks(ctx).map(async (check) => {
        try {
          const answer = await request(`${check.endpoint}&limit=200`);
          let rows = answer[check.key] ?? [];
          if (check.onlyOld)
            rows = rows.filter((row) => Date.now() - new Date(row.createdAt).getTime() > WAITING_TOO_LONG_MS);
          const since = check.since ?? ((row) => row.createdAt ?? row.uploadedAt);
          const oldest = rows.reduce(
            (first, row) => (!first || new Date(since(row)) < new Date(first) ? since(row) : first),
            null,
          );
          return {
            ...check,
            n: rows.length,
            more: answer.nextOffset !== null && !check.onlyOld,
            oldest,
            rows: check.detail ? rows : [],
          };
        } catch {
          return { ...check, n: null };
        }
      }),
    );
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
            line.n && line.detail ? line.detail(line.rows) : null,
          ),
        ),
    );
  };
  void load();
  const timer = setInterval(() => void load(), 5000);
  return () => clearInterval(timer);
}
