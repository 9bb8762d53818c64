/**
 * Each capability's list and detail page, described once: where its records come from, its columns,
 * facts, sections, timeline events and the actions the API allows (shown only to the roles that may).
 */
import { newIdempotencyKey, request } from './api.js';
import { h, table } from './dom.js';
import { count, dateOnly, dateTime, label, money, vnd } from './format.js';
import { t } from './i18n.js';
import { actionButton } from './pages.js';
import { statusBadge } from './ui.js';

const post = (path, body = {}, headers = {}) => request(path, { method: 'POST', body, headers });
const statusCell = (value, reason) =>
  h('span', {}, statusBadge(value), reason ? h('span', { class: 'hint' }, ` ${reason}`) : null);
const maybe = (value) => (value === null || value === undefined || value === '' ? null : value);

function field(id, labelText, attributes = {}) {
  const input = h('input', { id, name: id, ...attributes });
  return { input, element: h('div', { class: 'field' }, h('label', { for: id }, labelText), input) };
}

// ---------------------------------------------------------------- subscriptions

export const subscriptions = {
  name: 'subscriptions',
  title: () => t('Subscriptions'),
  singular: () => t('Subscription'),
  intro: () =>
    t(
      'Recurring billing. A subscription pauses after two failed charges; reactivate it once the customer has paid.',
    ),
  endpoint: '/v1/subscriptions',
  key: 'subscriptions',
  auditTarget: 'subscription',
  duty: 'subscriptions',
  statuses: [
    'authorizing',
    'active',
    'retrying',
    'paused',
    'reactivating',
    'cancelled',
    'expired',
    'not_authorized',
    'needs_reauthorization',
  ],
  idOf: (row) => row.subscriptionId,
  statusOf: (row) => row.status,
  columns: [
    { label: () => t('Subscription'), value: () => null },
    { label: () => t('Status'), value: (row) => statusCell(row.status, row.statusReason) },
    { label: () => t('Customer'), value: (row) => row.partnerClientId },
    {
      label: () => t('Plan'),
      value: (row) => `${row.name ?? '—'} · ${label(row.type)} · ${label(row.frequency)}`,
    },
    { label: () => t('Amount'), value: (row) => vnd(row.recurringAmount), numeric: true },
    { label: () => t('Next charge'), value: (row) => dateOnly(row.nextPaymentDate) },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  facts: (view) => [
    [t('Why'), maybe(view.statusReason)],
    [t('Customer'), view.partnerClientId],
    [t('Plan'), `${view.name ?? '—'} (${label(view.type)}, ${label(view.frequency)})`],
    [t('Amount per cycle'), vnd(view.recurringAmount)],
    [t('Next charge date'), h('span', { id: 'next-charge' }, dateOnly(view.nextPaymentDate))],
    [t('Failed charges in a row'), count(view.failures)],
    [t('Expires'), view.expiryDate ? dateOnly(view.expiryDate) : null],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  orderIds: (view) => (view.charges ?? []).map((charge) => charge.orderId),
  events: (view) => [
    { at: view.createdAt, what: t('Record created'), who: view.createdBy },
    ...(view.charges ?? []).map((charge) => ({
      at: charge.updatedAt,
      what: t('Charge of cycle {cycle} (attempt {attempt}): {amount}, {status}', {
        cycle: charge.cycle,
        attempt: charge.attempt,
        amount: vnd(charge.amount),
        status: label(charge.status),
      }),
      who: t('billing'),
    })),
  ],
  sections: (view) => [
    h('h2', {}, t('Charges')),
    view.charges?.length
      ? table({
          caption: t('Every charge and its result'),
          columns: [t('Cycle'), t('Due'), t('Amount'), t('Status'), t('Result'), t('Gateway transaction')],
          numeric: [2],
          className: 'charges compact',
          rows: view.charges.map((charge) => [
            `${charge.cycle}.${charge.attempt}`,
            dateOnly(charge.dueDate),
            vnd(charge.amount),
            statusBadge(charge.status),
            [charge.resultCode, charge.message]
              .filter((part) => part !== null && part !== undefined)
              .join(' · ') || '—',
            charge.transId ?? '—',
          ]),
        })
      : h('p', {}, t('No charge yet.')),
  ],
  actionKey: (view) => view.type,
  actions: (view, ctx, { refresh, feedback, id }) => {
    if (!ctx.can('reactivate')) return [];
    const base = `/v1/subscriptions/${encodeURIComponent(id)}`;
    const reason = field('manage-reason', t('Reason (optional, recorded)'), { maxlength: '200' });
    const withReason = () => (reason.input.value.trim() ? { reason: reason.input.value.trim() } : {});
    const buttons = [];
    if (['active', 'retrying'].includes(view.status)) {
      buttons.push(
        actionButton({
          id: 'pause',
          label: t('Pause'),
          run: () => post(`${base}/pause`, withReason()),
          done: t('Subscription paused.'),
          refresh,
          feedback,
        }),
      );
    }
    if (['paused', 'needs_reauthorization'].includes(view.status)) {
      buttons.push(
        actionButton({
          id: 'reactivate',
          label: t('Resume (reactivate)'),
          run: () => post(`${base}/reactivate`, withReason()),
          done: t('Subscription reactivated.'),
          refresh,
          feedback,
        }),
      );
    }
    if (!['cancelled', 'expired', 'not_authorized'].includes(view.status)) {
      buttons.push(
        actionButton({
          id: 'cancel',
          label: t('Cancel subscription'),
          danger: true,
          run: () => post(`${base}/cancel`, withReason()),
          done: t('Subscription cancelled.'),
          refresh,
          feedback,
        }),
      );
    }
    const parts = buttons.length ? [reason.element, h('p', { class: 'actions' }, buttons)] : [];
    if (view.type === 'VARIABLE' && !['cancelled', 'expired'].includes(view.status)) {
      const amount = field('next-amount', t('Amount of the next charge (VND)'), {
        type: 'number',
        min: '0',
        step: '1',
        inputmode: 'numeric',
      });
      parts.push(
        amount.element,
        h(
          'p',
          { class: 'actions' },
          actionButton({
            id: 'set-amount',
            label: t('Set the next amount'),
            run: () => post(`${base}/cycle-amount`, { amount: Number(amount.input.value) }),
            done: t('Next amount set.'),
            refresh,
            feedback,
          }),
        ),
      );
    }
    return parts;
  },
};

// ---------------------------------------------------------------- token payments

export const tokenPayments = {
  name: 'token-payments',
  title: () => t('Token payments'),
  singular: () => t('Token payment'),
  intro: () =>
    t('Payments with a saved card or wallet. One waiting for an OTP needs the customer to enter the code.'),
  endpoint: '/v1/token-payments',
  key: 'payments',
  auditTarget: 'token_payment',
  duty: 'tokenPayments',
  statuses: [
    'starting',
    'awaiting_otp',
    'awaiting_customer',
    'pending',
    'succeeded',
    'failed',
    'needs_attention',
  ],
  idOf: (row) => row.paymentId,
  statusOf: (row) => row.state,
  columns: [
    { label: () => t('Payment'), value: () => null },
    {
      label: () => t('Status'),
      value: (row) => statusCell(row.state, row.state === 'awaiting_otp' ? row.message : null),
    },
    { label: () => t('Customer'), value: (row) => row.partnerClientId },
    { label: () => t('Method'), value: (row) => `${label(row.kind)} · ${row.methodId}` },
    { label: () => t('Amount'), value: (row) => vnd(row.amount), numeric: true },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  facts: (view) => [
    [
      t('Why it waits'),
      view.state === 'awaiting_otp'
        ? (view.message ?? t('The customer must enter the one-time code.'))
        : null,
    ],
    [
      t('Result'),
      maybe(
        [view.resultCode, view.message].filter((part) => part !== null && part !== undefined).join(' · '),
      ),
    ],
    [t('Customer'), view.partnerClientId],
    [t('Method'), view.methodId],
    [t('Amount'), vnd(view.amount)],
    [t('Description'), maybe(view.description)],
    [t('Gateway transaction'), maybe(view.transId)],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  orderIds: (view) => [view.orderId],
  events: (view) => [
    { at: view.createdAt, what: t('Record created'), who: view.createdBy },
    ...(view.otpAttempts ?? []).map((attempt) => ({
      at: attempt.at ?? attempt.attemptedAt ?? attempt.createdAt,
      what: t('OTP: {kind}, {outcome}', { kind: label(attempt.kind), outcome: label(attempt.outcome) }),
      who: t('customer'),
    })),
    { at: view.updatedAt, what: t('Now {status}', { status: label(view.state) }), who: t('payrun') },
  ],
};

// ---------------------------------------------------------------- remittances

export const remittances = {
  name: 'remittances',
  title: () => t('Remittances'),
  singular: () => t('Remittance'),
  intro: () => t('Cross-border transfers: exchange, buy, verify the receiver, pay out.'),
  endpoint: '/v1/remittances',
  key: 'remittances',
  auditTarget: 'remittance',
  duty: 'remittances',
  create: { duty: 'sendRemittance', label: () => t('New remittance') },
  statuses: [
    'accepted',
    'quoting',
    'verifying_receiver',
    'checking_balance',
    'buying',
    'sending',
    'awaiting_result',
    'awaiting_capture',
    'succeeded',
    'failed',
    'needs_attention',
  ],
  idOf: (row) => row.remittanceId,
  statusOf: (row) => row.status,
  columns: [
    { label: () => t('Remittance'), value: () => null },
    {
      label: () => t('Status'),
      value: (row) => statusCell(row.status, row.needsAttention ?? row.statusReason),
    },
    { label: () => t('Receiver'), value: (row) => row.receiver },
    {
      label: () => t('Foreign amount'),
      value: (row) => money(row.foreignAmount, row.baseCurrency),
      numeric: true,
    },
    { label: () => t('Sent'), value: (row) => vnd(row.amountSent), numeric: true },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  facts: (view) => [
    [t('Needs attention'), maybe(view.needsAttention)],
    [t('Why'), maybe(view.statusReason)],
    [t('Receiver'), view.receiver],
    [t('Foreign amount'), money(view.foreignAmount, view.baseCurrency)],
    [t('Rate used'), view.rate ? `1 ${view.baseCurrency} = ${vnd(view.rate)}` : null],
    [t('Exchanged'), view.exchangeAmount !== null ? vnd(view.exchangeAmount) : null],
    [t('Sent'), view.amountSent !== null ? vnd(view.amountSent) : null],
    [t('Reason'), view.reason],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  orderIds: (view) => [view.orderId],
  events: (view) =>
    [
      { at: view.createdAt, what: t('Record created'), who: view.createdBy },
      ...(view.quotes ?? []).map((quote) => ({
        at: quote.quotedAt,
        what: t('Quoted 1 {currency} = {rate}{used}', {
          currency: view.baseCurrency,
          rate: vnd(quote.rate),
          used: quote.used ? ` (${t('used')})` : '',
        }),
        who: t('gateway'),
      })),
      view.completedAt
        ? {
            at: view.completedAt,
            what: t('Finished: {status}', { status: label(view.status) }),
            who: t('payrun'),
          }
        : null,
    ].filter(Boolean),
};

// ---------------------------------------------------------------- payments

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
  load: async (view, id) => ({
    ...view,
    refunds: (await request(`/v1/payments/${encodeURIComponent(id)}/refunds`)).refunds,
  }),
  sections: (view) => [
    h('h2', {}, t('Refunds')),
    view.refunds?.length
      ? table({
          caption: t('Every refund of this payment'),
          columns: [t('Refund'), t('Amount'), t('Status'), t('Result'), t('Requested by'), t('Requested')],
          numeric: [1],
          className: 'refunds compact',
          rows: view.refunds.map((refund) => [
            refund.refundId,
            vnd(refund.amount),
            statusBadge(refund.status),
            [refund.resultCode, refund.message]
              .filter((part) => part !== null && part !== undefined)
              .join(' · ') || '—',
            refund.createdBy ?? '—',
            dateTime(refund.createdAt),
          ]),
        })
      : h('p', {}, t('No refund.')),
  ],
  facts: (view) => [
    [
      t('Result'),
      maybe(
        [view.resultCode, view.message].filter((part) => part !== null && part !== undefined).join(' · '),
      ),
    ],
    [t('Type'), view.requestType],
    [t('Amount'), vnd(view.amount)],
    [t('Refunded'), vnd(view.refundedAmount)],
    [t('Still refundable'), h('span', { id: 'refundable' }, vnd(view.refundableAmount))],
    [t('Held until'), view.holdExpiresAt ? dateTime(view.holdExpiresAt) : null],
    [t('Settled at the terminal'), view.settledAt ? dateTime(view.settledAt) : null],
    [t('Order info'), maybe(view.orderInfo)],
    [t('Gateway transaction'), maybe(view.transId)],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  orderIds: (view) => [view.orderId, ...(view.refunds ?? []).map((refund) => refund.orderId)],
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
      ...(view.refunds ?? []).map((refund) => ({
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
            what: t('{action}: {code} {message}', {
              action: label(view.confirmation.action),
              code: view.confirmation.resultCode ?? '',
              message: view.confirmation.message ?? '',
            }),
            who: view.confirmation.by,
          }
        : null,
    ].filter(Boolean),
  actionKey: (view) => `${view.refundableAmount}`,
  actions: (view, ctx, { refresh, feedback, id }) => {
    if (!ctx.can('confirmPayments')) return [];
    const base = `/v1/payments/${encodeURIComponent(id)}`;
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
        done: t('Terminal settled.'),
        refresh: async () => undefined,
        feedback,
      }),
    ),
    feedback,
  );
}

// ---------------------------------------------------------------- disbursements

export const disbursements = {
  name: 'disbursements',
  title: () => t('Disbursements'),
  singular: () => t('Disbursement'),
  intro: () => t('Single payouts to one wallet or bank account, paid at once.'),
  endpoint: '/v1/disbursements',
  key: 'disbursements',
  auditTarget: 'disbursement',
  duty: 'readRuns',
  create: { duty: 'upload', label: () => t('New disbursement') },
  statuses: [
    'checking_wallet',
    'checking_balance',
    'paying',
    'pending',
    'succeeded',
    'failed',
    'needs_attention',
  ],
  idOf: (row) => row.disbursementId,
  statusOf: (row) => row.status,
  columns: [
    { label: () => t('Disbursement'), value: () => null },
    {
      label: () => t('Status'),
      value: (row) =>
        statusCell(
          row.status,
          row.status === 'failed' || row.status === 'needs_attention' ? row.message : null,
        ),
    },
    { label: () => t('Receiver'), value: (row) => row.receiver },
    { label: () => t('Amount'), value: (row) => vnd(row.amount), numeric: true },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  facts: (view) => [
    [
      t('Result'),
      maybe(
        [view.resultCode, view.message].filter((part) => part !== null && part !== undefined).join(' · '),
      ),
    ],
    [t('Receiver'), view.receiver],
    [t('Amount'), vnd(view.amount)],
    [t('Description'), maybe(view.description)],
    [t('Gateway transaction'), maybe(view.transId)],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  orderIds: (view) => [view.orderId ?? view.disbursementId],
  events: (view) => [
    { at: view.createdAt, what: t('Record created'), who: view.createdBy },
    { at: view.updatedAt, what: t('Now {status}', { status: label(view.status) }), who: t('payrun') },
  ],
};

// ---------------------------------------------------------------- webhook endpoints

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
    [t('Why it is disabled'), h('span', { id: 'disabled-reason' }, maybe(view.disabledReason) ?? '—')],
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
            what: t('Disabled: {reason}', { reason: view.disabledReason ?? '—' }),
            who: t('payrun'),
          }
        : null,
    ].filter(Boolean),
  sections: (view) => [
    h('h2', {}, t('Latest deliveries')),
    view.deliveries?.length
      ? table({
          caption: t('The last {n} delivery attempts, newest first', { n: view.deliveries.length }),
          columns: [t('When'), t('Event'), t('Attempt'), t('Result'), t('Duration')],
          className: 'deliveries compact',
          rows: view.deliveries.map((delivery) => [
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

export const RESOURCES = {
  subscriptions,
  'token-payments': tokenPayments,
  remittances,
  payments,
  disbursements,
  'webhook-endpoints': webhookEndpoints,
};
