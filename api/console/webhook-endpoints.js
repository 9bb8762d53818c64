// @ts-check
/**
 * Webhook endpoints (admin): the list with the reason a disabled one was disabled, and an endpoint's
 * page with its event types, its latest delivery attempts and Enable for a disabled endpoint.
 * Endpoints are created through the API, which shows the signing secret once.
 */
import { post, request } from './api.js';
import { h, table } from './dom.js';
import { count, dateTime } from './format.js';
import { t } from './i18n.js';
import { actionButton, maybe, statusBadge, statusCell } from './ui.js';
import { serverText, serverWords } from './server-text.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/** @type {import('./types.js').Resource} */
export const webhookEndpoints = {
  name: 'webhook-endpoints',
  title: () => t('Webhook endpoints'),
  singular: () => t('Webhook endpoint'),
  intro: () =>
    t(
      'Where payrun sends signed events. An endpoint whose receiver kept refusing an event for the whole retry window (3 days) is disabled, with the reason beside it. Fix the receiver, then Enable: deliveries resume where they stopped.',
    ),
  endpoint: '/v1/webhook-endpoints',
  key: 'endpoints',
  auditTarget: 'webhook_endpoint',
  duty: 'webhooks',
  searchLabel: () => t('Search by id, URL or description'),
  statuses: ['active', 'disabled'],
  idOf: (row) => row.endpointId,
  statusOf: (row) => row.status,
  columns: [
    { label: () => t('Endpoint'), value: () => null },
    { label: () => t('Status'), value: (row) => statusCell(row.status, row.disabledReason) },
    { label: () => t('URL'), value: (row) => row.url },
    { label: () => t('Event types'), value: (row) => count(row.eventTypes?.length ?? 0), numeric: true },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  load: async (view, id) => ({
    ...view,
    deliveries: (await request(`/v1/webhook-endpoints/${encodeURIComponent(id)}/deliveries?limit=20`))
      .deliveries,
  }),
  facts: (view) => [
    [t('Why it is disabled'), h('span', { id: 'disabled-reason' }, serverText(view.disabledReason) ?? '—')],
    [t('Disabled'), view.disabledAt ? dateTime(view.disabledAt) : null],
    [t('URL'), view.url],
    [t('Description'), maybe(view.description)],
    [t('Event types'), (view.eventTypes ?? []).join(', ')],
    [t('Secret rotated'), view.secretRotatedAt ? dateTime(view.secretRotatedAt) : null],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  events: (view) =>
    [
      { at: view.createdAt, what: t('Record created'), who: view.createdBy },
      view.secretRotatedAt
        ? { at: view.secretRotatedAt, what: t('Signing secret rotated'), who: t('payrun') }
        : null,
      view.disabledAt
        ? {
            at: view.disabledAt,
            what: t('Disabled: {reason}', { reason: serverWords(view.disabledReason) }),
            who: t('payrun'),
          }
        : null,
    ].filter((event) => event !== null),
  sections: (view) => [
    h('h2', {}, t('Latest deliveries')),
    view.deliveries?.length
      ? table({
          caption: t('The last {n} delivery attempts, newest first', { n: view.deliveries.length }),
          columns: [t('When'), t('Event'), t('Attempt'), t('Result'), t('Duration')],
          className: 'deliveries compact',
          rows: view.deliveries.map((/** @type {ApiRecord} */ delivery) => [
            dateTime(delivery.attemptedAt),
            delivery.eventId,
            `${delivery.attempt}${delivery.trigger === 'resend' ? ` (${t('resent')})` : ''}`,
            [
              statusBadge(delivery.succeeded ? 'succeeded' : 'failed'),
              ' ',
              [delivery.statusCode, delivery.error]
                .filter((part) => part !== null && part !== undefined)
                .join(' · '),
            ],
            `${delivery.durationMs} ms`,
          ]),
        })
      : h('p', {}, t('Nothing delivered yet.')),
  ],
  actions: (view, ctx, { refresh, feedback, id }) => {
    if (!ctx.can('webhooks') || view.status !== 'disabled') return [];
    return [
      h(
        'p',
        { class: 'actions' },
        actionButton({
          id: 'enable-endpoint',
          label: t('Enable'),
          run: () => post(`/v1/webhook-endpoints/${encodeURIComponent(id)}/enable`),
          done: t('Endpoint enabled: deliveries resume where they stopped.'),
          refresh,
          feedback,
        }),
      ),
    ];
  },
};
