// @ts-check
/**
 * Subscriptions: the list with the next charge date and the paused reason; a subscription's page with
 * its charges and results, and for the billing role pause, resume (reactivate), cancel, and the
 * amount of the next charge of a VARIABLE subscription.
 */
import { post } from './api.js';
import { h, table } from './dom.js';
import { count, dateOnly, dateTime, label, vnd } from './format.js';
import { t } from './i18n.js';
import { actionButton, field, statusBadge, statusCell, workflowLink } from './ui.js';
import { resultText } from './result-codes.js';
import { serverText } from './server-text.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/** Billing has ended: there is no next charge to show (the API's FINAL_SUBSCRIPTION_STATUSES). */
const ENDED = ['cancelled', 'expired', 'not_authorized', 'needs_reauthorization'];

/**
 * Who charged it (issue 35): the day's billing run, named with its chunk and its Temporal workflow id as
 * text an engineer can copy into the Temporal UI (and a link when the console knows the UI), or the
 * subscription's own workflow. The run's id is `billing-run/<task queue>/<day>`, its workflow id.
 * @param {ApiRecord} charge
 * @param {import('./types.js').Ctx} ctx
 */
function chargedByCell(charge, ctx) {
  if (charge.chargedBy !== 'billing_run') return t('Its own workflow');
  const workflowId = String(charge.billingRunWorkflowId);
  return h(
    'span',
    { class: 'charged-by' },
    t('Charged by the billing run of {day} (chunk {chunk})', {
      day: dateOnly(workflowId.slice(workflowId.lastIndexOf('/') + 1)),
      chunk: charge.billingChunk ?? '—',
    }),
    ' ',
    h('code', { class: 'billing-run-id' }, workflowId),
    ' ',
    workflowLink(ctx.config, workflowId),
  );
}

/** @type {import('./types.js').Resource} */
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
    'needs_attention',
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
    [t('Why'), serverText(view.statusReason)],
    [t('Customer'), view.partnerClientId],
    [t('Plan'), `${view.name ?? '—'} (${label(view.type)}, ${label(view.frequency)})`],
    [t('Amount per cycle'), vnd(view.recurringAmount)],
    [
      t('Amount of the next charge'),
      ENDED.includes(view.status)
        ? null
        : h(
            'span',
            { id: 'next-charge-amount' },
            typeof view.nextChargeAmount === 'number'
              ? vnd(view.nextChargeAmount)
              : t('not reported: the cycle is skipped'),
          ),
    ],
    [t('Next charge date'), h('span', { id: 'next-charge' }, dateOnly(view.nextPaymentDate))],
    [t('Failed charges in a row'), count(view.failures)],
    [t('Expires'), view.expiryDate ? dateOnly(view.expiryDate) : null],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  orderIds: (view) => (view.charges ?? []).map((/** @type {ApiRecord} */ charge) => charge.orderId),
  events: (view) => [
    { at: view.createdAt, what: t('Record created'), who: view.createdBy },
    ...(view.charges ?? []).map((/** @type {ApiRecord} */ charge) => ({
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
  sections: (view, ctx) => [
    h('h2', {}, t('Charges')),
    view.charges?.length
      ? table({
          caption: t('Every charge and its result'),
          columns: [
            t('Cycle'),
            t('Due'),
            t('Amount'),
            t('Status'),
            t('Result'),
            t('Gateway transaction'),
            t('Charged by'),
          ],
          numeric: [2],
          className: 'charges compact',
          rows: view.charges.map((/** @type {ApiRecord} */ charge) => [
            `${charge.cycle}.${charge.attempt}`,
            dateOnly(charge.dueDate),
            vnd(charge.amount),
            statusBadge(charge.status),
            resultText(charge.resultCode, charge.message) ?? '—',
            charge.transId ?? '—',
            chargedByCell(charge, ctx),
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
    /** @type {HTMLButtonElement[]} */
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
    /** @type {HTMLElement[]} */
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
