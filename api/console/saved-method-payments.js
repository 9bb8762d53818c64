// @ts-check
/**
 * Saved-method payments (with a saved card or wallet): the list, with why one waits (an OTP the customer
 * must enter), and a payment's page with its result and OTP attempts.
 */
import { dateTime, label, vnd } from './format.js';
import { t } from './i18n.js';
import { maybe, statusCell } from './ui.js';
import { resultText } from './result-codes.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/** @type {import('./types.js').Resource} */
export const savedMethodPayments = {
  name: 'saved-method-payments',
  title: () => t('Saved-method payments'),
  singular: () => t('Saved-method payment'),
  intro: () =>
    t('Payments with a saved card or wallet. One waiting for an OTP needs the customer to enter the code.'),
  endpoint: '/v1/saved-method-payments',
  key: 'payments',
  auditTarget: 'token_payment',
  duty: 'savedMethodPayments',
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
      value: (row) =>
        statusCell(row.state, row.state === 'awaiting_otp' ? resultText(row.resultCode, row.message) : null),
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
        ? (resultText(view.resultCode, null) ?? t('The customer must enter the one-time code.'))
        : null,
    ],
    [t('Result'), resultText(view.resultCode, view.message)],
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
    ...(view.otpAttempts ?? []).map((/** @type {ApiRecord} */ attempt) => ({
      at: attempt.at ?? attempt.attemptedAt ?? attempt.createdAt,
      what: t('OTP: {kind}, {outcome}', { kind: label(attempt.kind), outcome: label(attempt.outcome) }),
      who: t('customer'),
    })),
    { at: view.updatedAt, what: t('Now {status}', { status: label(view.state) }), who: t('payrun') },
  ],
};
