// @ts-check
/**
 * Payments and their refunds: the list (and, for the payments role, settling a card terminal); a
 * payment's page with its refunds and the remaining refundable amount, capture or cancel of an
 * authorized payment, and a full or partial refund.
 */
import { newIdempotencyKey, post, request } from './api.js';
import { approvalLine, approvalOf } from './approvals.js';
import { h, table } from './dom.js';
import { dateTime, label, vnd } from './format.js';
import { t } from './i18n.js';
import { actionButton, field, maybe, statusBadge, statusCell } from './ui.js';
import { explainResult, resultText } from './result-codes.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/**
 * What the notification said outside its signature (payment option, promotions, card type…), one
 * `name: value` per field: shown for what it is, never as a fact of the payment.
 * @param {ApiRecord | null | undefined} unverified
 */
function unverifiedText(unverified) {
  if (!unverified || !unverified.fields) return null;
  const parts = Object.entries(unverified.fields).map(
    ([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return parts.length ? h('span', { className: 'unverified' }, parts.join(' · ')) : null;
}

/** @type {import('./types.js').Resource} */
export const payments = {
  name: 'payments',
  title: () => t('Payments'),
  singular: () => t('Payment'),
  intro: () =>
    t(
      'One-time payments and their refunds. An authorized payment waits for a capture or a cancel before its hold ends.',
    ),
  endpoint: '/v1/payments',
  key: 'payments',
  auditTarget: 'payment',
  duty: 'payments',
  statuses: [
    'created',
    'awaiting_customer',
    'pending',
    'succeeded',
    'failed',
    'authorized_not_captured',
    'cancelled',
    'authorization_expired',
    'expired',
  ],
  idOf: (row) => row.paymentId,
  statusOf: (row) => row.status,
  columns: [
    { label: () => t('Payment'), value: () => null },
    {
      label: () => t('Status'),
      value: (row) =>
        statusCell(
          row.status,
          row.holdExpiresAt && row.status === 'authorized_not_captured'
            ? t('held until {when}', { when: dateTime(row.holdExpiresAt) })
            : null,
        ),
    },
    { label: () => t('Type'), value: (row) => row.requestType },
    { label: () => t('Amount'), value: (row) => vnd(row.amount), numeric: true },
    { label: () => t('Refunded'), value: (row) => vnd(row.refundedAmount), numeric: true },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  listExtras: (ctx) => (ctx.can('confirmPayments') ? settleForm() : null),
  load: async (view, id) => {
    /** @type {ApiRecord[]} */
    const refunds = (await request(`/v1/payments/${encodeURIComponent(id)}/refunds`)).refunds;
    // A refund waiting for approvers shows how far it got; its approval is read only while it waits.
    const withApprovals = await Promise.all(
      refunds.map(async (refund) => ({
        ...refund,
        approval: refund.status === 'awaiting_approval' ? await approvalOf('refund', refund.refundId) : null,
      })),
    );
    return { ...view, refunds: withApprovals };
  },
  sections: (view) => [
    h('h2', {}, t('Refunds')),
    view.refunds?.length
      ? table({
          caption: t('Every refund of this payment'),
          columns: [t('Refund'), t('Amount'), t('Status'), t('Result'), t('Requested by'), t('Requested')],
          numeric: [1],
          className: 'refunds compact',
          rows: view.refunds.map((/** @type {ApiRecord} */ refund) => [
            refund.refundId,
            vnd(refund.amount),
            statusBadge(refund.status),
            resultText(refund.resultCode, refund.message) ?? '—',
            refund.createdBy ?? '—',
            dateTime(refund.createdAt),
          ]),
        })
      : h('p', {}, t('No refund.')),
    (view.refunds ?? []).map((/** @type {ApiRecord} */ refund) =>
      refund.approval
        ? h(
            'div',
            { class: 'refund-approval', 'data-refund': refund.refundId },
            h('strong', {}, `${t('Refund')} ${refund.refundId}: `),
            approvalLine(refund.approval, `approval-${refund.refundId}`),
          )
        : null,
    ),
  ],
  facts: (view) => [
    [t('Result'), resultText(view.resultCode, view.message)],
    [t('Type'), view.requestType],
    [t('Amount'), vnd(view.amount)],
    [t('Refunded'), vnd(view.refundedAmount)],
    [t('Still refundable'), h('span', { id: 'refundable' }, vnd(view.refundableAmount))],
    [t('Held until'), view.holdExpiresAt ? dateTime(view.holdExpiresAt) : null],
    [t('Settled at the terminal'), view.settledAt ? dateTime(view.settledAt) : null],
    [t('Order info'), maybe(view.orderInfo)],
    [t('Gateway transaction'), maybe(view.transId)],
    [t('Unverified (not signed by the gateway)'), unverifiedText(view.unverified)],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  orderIds: (view) => [
    view.orderId,
    ...(view.refunds ?? []).map((/** @type {ApiRecord} */ refund) => refund.orderId),
  ],
  events: (view) =>
    [
      { at: view.createdAt, what: t('Record created'), who: view.createdBy },
      view.completedAt
        ? {
            at: view.completedAt,
            what: t('Finished: {status}', { status: label(view.status) }),
            who: t('gateway'),
          }
        : null,
      ...(view.refunds ?? []).map((/** @type {ApiRecord} */ refund) => ({
        at: refund.createdAt,
        what: t('Refund {id} of {amount}: {status}', {
          id: refund.refundId,
          amount: vnd(refund.amount),
          status: label(refund.status),
        }),
        who: refund.createdBy,
      })),
      view.confirmation
        ? {
            at: view.confirmation.at,
            what: t('{action}: result {code}, {meaning}', {
              action: label(view.confirmation.action),
              code: view.confirmation.resultCode ?? '—',
              meaning: explainResult(view.confirmation.resultCode),
            }),
            who: view.confirmation.by,
          }
        : null,
    ].filter(Boolean),
  actionKey: (view) => `${view.refundableAmount}`,
  actions: (view, ctx, { refresh, feedback, id }) => {
    if (!ctx.can('confirmPayments')) return [];
    const base = `/v1/payments/${encodeURIComponent(id)}`;
    /** @type {HTMLElement[]} */
    const parts = [];
    if (view.status === 'authorized_not_captured') {
      parts.push(
        h(
          'p',
          { class: 'actions' },
          actionButton({
            id: 'capture',
            label: t('Capture {amount}', { amount: vnd(view.amount) }),
            run: () => post(`${base}/capture`),
            done: t('Payment captured.'),
            refresh,
            feedback,
          }),
          actionButton({
            id: 'cancel-payment',
            label: t('Cancel the authorization'),
            danger: true,
            run: () => post(`${base}/cancel`),
            done: t('Authorization cancelled.'),
            refresh,
            feedback,
          }),
        ),
      );
    }
    if (view.refundableAmount > 0) {
      const amount = field(
        'refund-amount',
        t('Amount to refund (VND, at most {max})', { max: vnd(view.refundableAmount) }),
        {
          type: 'number',
          min: '1',
          max: String(view.refundableAmount),
          step: '1',
          inputmode: 'numeric',
          value: String(view.refundableAmount),
        },
      );
      const description = field('refund-description', t('Description (optional)'), { maxlength: '255' });
      const key = newIdempotencyKey();
      parts.push(
        h('h3', {}, t('Refund')),
        amount.element,
        description.element,
        h(
          'p',
          { class: 'actions' },
          actionButton({
            id: 'refund',
            label: t('Refund'),
            danger: true,
            run: () =>
              post(
                `${base}/refunds`,
                { amount: Number(amount.input.value), description: description.input.value },
                { 'idempotency-key': `${key}-${amount.input.value}` },
              ),
            done: t('Refund requested.'),
            refresh,
            feedback,
          }),
        ),
      );
    }
    return parts;
  },
};

/** Settle a card terminal (card/settle): its card payments can then no longer be refunded by API. */
function settleForm() {
  const store = field('settle-store', t('Store id'), { maxlength: '50' });
  const serial = field('settle-serial', t('Terminal serial number'), { maxlength: '100' });
  const feedback = h('div');
  return h(
    'details',
    { class: 'card' },
    h('summary', {}, t('Settle a card terminal')),
    store.element,
    serial.element,
    h(
      'p',
      { class: 'actions' },
      actionButton({
        id: 'settle-terminal',
        label: t('Settle'),
        run: () =>
          post(
            '/v1/terminals/settle',
            { storeId: store.input.value.trim(), serialNumber: serial.input.value.trim() },
            { 'idempotency-key': newIdempotencyKey() },
          ),
        done: (/** @type {ApiRecord} */ answer) =>
          t('Terminal settled: {count} card payments, no longer refundable through payrun.', {
            count: answer.settledPayments,
          }),
        refresh: async () => undefined,
        feedback,
      }),
    ),
    feedback,
  );
}
