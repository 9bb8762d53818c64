// @ts-check
/**
 * How a payout row's receiver stands in the payee directory, in the words an approver reads before
 * approving: a receiver new to the directory, a payee whose details changed lately, a payee whose wallet
 * is registered under another name. The run page's items table and the approvals inbox show the same
 * words, so what the inbox counts is what the run page marks row by row.
 */
import { h } from './dom.js';
import { t } from './i18n.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/**
 * The badges of one item (`payeeStatus`, `payeeNameCheck`, `payeeId` of GET …/items): nothing to check is
 * said plainly too, so an empty cell never reads as "not loaded".
 * @param {ApiRecord} item
 */
export function payeeFlagsOf(item) {
  const flags = [];
  if (item.payeeStatus === 'new') {
    flags.push(h('span', { class: 'badge badge-info payee-new' }, t('New receiver')));
  }
  if (item.payeeStatus === 'changed') {
    flags.push(h('span', { class: 'badge badge-warn payee-changed' }, t('Payee changed lately')));
  }
  if (item.payeeNameCheck === 'mismatch') {
    flags.push(h('span', { class: 'badge badge-bad payee-mismatch' }, t('Name mismatch')));
  }
  if (item.payeeNameCheck === 'unchecked') {
    // The payee's wallet could not be checked, or the row carries another name than the payee's.
    flags.push(h('span', { class: 'badge badge-warn payee-unchecked' }, t('Name not checked')));
  }
  if (!flags.length) flags.push(h('span', { class: 'badge badge-muted payee-known' }, t('Known payee')));
  return h(
    'span',
    { class: 'payee-flags', 'data-payee-status': item.payeeStatus ?? '' },
    item.payeeId
      ? h('a', { href: `#/payees/${encodeURIComponent(item.payeeId)}`, class: 'payee-link' }, item.payeeId)
      : null,
    flags.flatMap((flag) => [' ', flag]),
  );
}

/**
 * A run's counts (`payees` of GET /v1/payout-runs/:runId): how many rows an approver should look at twice.
 * @param {ApiRecord} payees
 */
export function payeeCountsOf(payees) {
  const needsLook = (payees.new ?? 0) + (payees.changed ?? 0) + (payees.mismatched ?? 0);
  return h(
    'span',
    { class: needsLook ? 'payee-counts attention' : 'payee-counts' },
    t(
      '{new} new, {changed} changed in the last {changedWindowDays} days, {mismatched} with a name mismatch',
      {
        new: payees.new ?? 0,
        changed: payees.changed ?? 0,
        changedWindowDays: payees.changedWindowDays ?? '—',
        mismatched: payees.mismatched ?? 0,
      },
    ),
  );
}
