// @ts-check
/**
 * The payee directory (issue 36): the list with search, and a payee's page with its name check (a mismatch
 * stands out, the registered name masked as every name in a list is), its versions and its open change,
 * which another person approves or rejects here. The API refuses the proposer's own approval; the page
 * shows that refusal in its language.
 */
import { post } from './api.js';
import { h, table } from './dom.js';
import { dateTime } from './format.js';
import { t } from './i18n.js';
import { actionButton, maybe, statusBadge } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/**
 * Where the money goes: the wallet, or the bank and its account or card, as the API shows it (masked).
 * @param {ApiRecord} details
 */
const receiverOf = (details) =>
  details.wallet
    ? t('wallet {wallet}', { wallet: details.wallet.walletId })
    : details.bank
      ? `${details.bank.bankCode} ${details.bank.bankAccountNo ?? details.bank.bankCardNo ?? ''}`
      : '—';

/**
 * The name check, a mismatch with the name the gateway has registered (masked) beside it.
 * @param {ApiRecord} check
 */
const nameCheckOf = (check) =>
  check.nameCheck === 'mismatch'
    ? h(
        'span',
        { class: 'badge badge-warn name-mismatch' },
        t('Name does not match: registered as {name}', { name: check.registeredName ?? '—' }),
      )
    : check.nameCheck === 'match'
      ? h('span', { class: 'badge name-match' }, t('Name matches'))
      : h('span', { class: 'badge' }, t('Not checked'));

/** @param {ApiRecord} view */
const openChangeOf = (view) =>
  /** @type {ApiRecord[]} */ (view.changes ?? []).find((change) => change.status === 'proposed');

/** @type {import('./types.js').Resource} */
export const payees = {
  name: 'payees',
  title: () => t('Payees'),
  singular: () => t('Payee'),
  intro: () =>
    t(
      'Receivers saved once, their wallet checked with the gateway when saved. A file names one by payee_id; a change holds only once a second person approves it.',
    ),
  endpoint: '/v1/payees',
  key: 'rows',
  auditTarget: 'payee',
  duty: 'readRuns',
  searchLabel: () => t('Search by name, id, wallet, account or reference'),
  statuses: ['active', 'archived'],
  idOf: (row) => row.payeeId,
  statusOf: (row) => row.status,
  columns: [
    { label: () => t('Payee'), value: () => null },
    { label: () => t('Status'), value: (row) => statusBadge(row.status) },
    { label: () => t('Name'), value: (row) => row.name },
    { label: () => t('Receiver'), value: (row) => receiverOf(row) },
    { label: () => t('Name check'), value: (row) => nameCheckOf(row) },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  facts: (view) => [
    [t('Name'), view.name],
    [t('Receiver'), receiverOf(view)],
    [t('Name check'), h('span', { id: 'name-check' }, nameCheckOf(view))],
    [t('Reference'), maybe(view.reference)],
    [t('Version'), String(view.version)],
    [t('Details changed'), view.detailsChangedAt ? dateTime(view.detailsChangedAt) : null],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  events: (view) =>
    /** @type {ApiRecord[]} */ (view.changes ?? [])
      .flatMap((change) => [
        { at: change.proposedAt, what: t('Change proposed'), who: change.proposedBy },
        change.decidedAt ? { at: change.decidedAt, what: t('Change decided'), who: change.decidedBy } : null,
      ])
      .filter((event) => event !== null),
  actionKey: (view) => openChangeOf(view)?.changeId ?? '',
  sections: (view) => {
    const open = openChangeOf(view);
    return [
      open
        ? h(
            'section',
            { id: 'open-change' },
            h('h2', {}, t('Change waiting for a second person')),
            table({
              caption: t('The proposed details'),
              columns: [t('Action'), t('Name'), t('Receiver'), t('Name check'), t('Proposed by')],
              rows: [
                [
                  open.action === 'archive' ? t('Archive') : t('Update'),
                  open.details?.name ?? '—',
                  open.details ? receiverOf(open.details) : (maybe(open.reason) ?? '—'),
                  open.action === 'update' ? nameCheckOf(open) : '—',
                  `${open.proposedBy} · ${dateTime(open.proposedAt)}`,
                ],
              ],
            }),
          )
        : null,
      h('h2', {}, t('Versions')),
      table({
        caption: t('Every version of the details, newest first'),
        columns: [t('Version'), t('Name'), t('Receiver'), t('Proposed by'), t('Approved by'), t('When')],
        className: 'payee-versions compact',
        rows: /** @type {ApiRecord[]} */ (view.versions ?? []).map((version) => [
          String(version.version),
          version.details?.name ?? '—',
          version.details ? receiverOf(version.details) : '—',
          version.proposedBy ?? '—',
          version.approvedBy ?? '—',
          dateTime(version.at),
        ]),
      }),
    ];
  },
  actions: (view, ctx, { refresh, feedback, id }) => {
    const open = openChangeOf(view);
    if (!open || !(ctx.can('upload') || ctx.can('decide'))) return [];
    const path = `/v1/payees/${encodeURIComponent(id)}/changes/${encodeURIComponent(open.changeId)}`;
    return [
      h(
        'p',
        { class: 'actions' },
        actionButton({
          id: 'approve-change',
          label: t('Approve the change'),
          run: () => post(`${path}/approve`),
          done: t('Change approved: the details hold from now.'),
          refresh,
          feedback,
        }),
        ' ',
        actionButton({
          id: 'reject-change',
          label: t('Reject the change'),
          danger: true,
          run: () => post(`${path}/reject`),
          done: t('Change rejected: the payee stays as it was.'),
          refresh,
          feedback,
        }),
      ),
    ];
  },
};
