// @ts-check
/**
 * The payee directory (issue 36): the list with search, the new-payee form, and a payee's page with its
 * name check (a mismatch stands out, the registered name masked as every name in a list is), its versions,
 * a proposed change or archive, and the open change, which another person approves or rejects here. The
 * API refuses the proposer's own approval; the page shows that refusal in its language.
 */
import { post, request } from './api.js';
import { announce, fill, h, table } from './dom.js';
import { dateTime } from './format.js';
import { t } from './i18n.js';
import { resultText } from './result-codes.js';
import {
  actionButton,
  createForm,
  errorBox,
  field,
  maybe,
  pageHeading,
  selectField,
  statusBadge,
} from './ui.js';

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
        // The wallet check answers no name on a refusal (gateway/README assumption 32): only say it differs.
        check.registeredName
          ? t('Name does not match: registered as {name}', { name: check.registeredName })
          : t('Name does not match the name the wallet is registered under'),
      )
    : check.nameCheck === 'match'
      ? h(
          'span',
          { class: 'badge badge-good name-match' },
          check.registeredName
            ? t('Name matches: registered as {name}', { name: check.registeredName })
            : t('Name matches'),
        )
      : h(
          'span',
          { class: 'name-unchecked' },
          h('span', { class: 'badge' }, t('Not checked')),
          // Why not: a bank payee has no check in the spec; a wallet the gateway refused says its code.
          check.kind === 'bank' || check.bank || check.details?.bank
            ? h('span', { class: 'hint' }, ' ', t('the gateway offers no check of a bank account'))
            : check.check?.resultCode
              ? [' ', resultText(check.check.resultCode, check.check.message)]
              : null,
        );

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
  create: { duty: 'upload', label: () => t('New payee') },
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
    // Proposing is the maker's (the API's MAKERS); one open proposal per payee, none on an archived one.
    if (!open) return view.status === 'active' && ctx.can('upload') ? proposalForms(view, id, refresh) : [];
    if (!(ctx.can('upload') || ctx.can('decide'))) return [];
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

/**
 * The fields of a payee's whole details, filled from `initial` when a change starts from what holds now:
 * the API takes the whole details in a proposal, so the approver sees exactly what will hold.
 * @param {string} prefix
 * @param {ApiRecord} [initial]
 */
function detailsFields(prefix, initial) {
  const bankNumberKind = initial?.bank?.bankCardNo ? 'card' : 'account';
  const name = field(`${prefix}-name`, t('Name as registered with the wallet or bank'), {
    required: true,
    maxlength: '100',
    value: initial?.name ?? '',
  });
  const kind = selectField(
    `${prefix}-kind`,
    t('Paid to'),
    [
      ['wallet', t('Wallet')],
      ['bank', t('Bank account or card')],
    ],
    { onchange: () => showReceiver() },
  );
  kind.input.value = initial?.bank ? 'bank' : 'wallet';
  const walletId = field(`${prefix}-wallet-id`, t('Wallet number (0…)'), {
    inputmode: 'numeric',
    maxlength: '15',
    value: initial?.wallet?.walletId ?? '',
  });
  const personalId = field(`${prefix}-personal-id`, t('National id (optional)'), {
    inputmode: 'numeric',
    maxlength: '12',
    value: initial?.wallet?.personalId ?? '',
  });
  const bankCode = field(`${prefix}-bank-code`, t('Bank code'), {
    maxlength: '20',
    value: initial?.bank?.bankCode ?? '',
  });
  const numberKind = selectField(`${prefix}-bank-number-kind`, t('Bank number is'), [
    ['account', t('An account number')],
    ['card', t('A card number')],
  ]);
  numberKind.input.value = bankNumberKind;
  const bankNumber = field(`${prefix}-bank-number`, t('Account or card number'), {
    inputmode: 'numeric',
    maxlength: '30',
    value: initial?.bank?.bankAccountNo ?? initial?.bank?.bankCardNo ?? '',
  });
  const reference = field(`${prefix}-reference`, t('Reference (optional: an employee or supplier code)'), {
    maxlength: '100',
    value: initial?.reference ?? '',
  });
  const walletFields = [walletId, personalId];
  const bankFields = [bankCode, numberKind, bankNumber];
  function showReceiver() {
    const bank = kind.input.value === 'bank';
    for (const entry of walletFields) entry.element.hidden = bank;
    for (const entry of bankFields) entry.element.hidden = !bank;
  }
  showReceiver();
  /** The body POST /v1/payees and …/changes take; the API checks it again and names any bad field. */
  const body = () => ({
    name: name.input.value.trim(),
    reference: reference.input.value.trim() || null,
    ...(kind.input.value === 'bank'
      ? {
          bank: {
            bankCode: bankCode.input.value.trim(),
            [numberKind.input.value === 'card' ? 'bankCardNo' : 'bankAccountNo']:
              bankNumber.input.value.trim(),
          },
        }
      : {
          wallet: {
            walletId: walletId.input.value.trim(),
            personalId: personalId.input.value.trim() || null,
          },
        }),
  });
  return { fields: [name, kind, ...walletFields, ...bankFields, reference], body };
}

/**
 * Propose new details, or propose archiving: each holds only once another person approves it.
 * @param {ApiRecord} view
 * @param {string} id
 * @param {() => Promise<void>} refresh
 */
function proposalForms(view, id, refresh) {
  const path = `/v1/payees/${encodeURIComponent(id)}`;
  const details = detailsFields('change', view);
  const changeFeedback = h('div', { id: 'propose-change-feedback' });
  const changeForm = h(
    'form',
    {
      id: 'propose-change-form',
      class: 'card',
      onsubmit: (/** @type {Event} */ event) =>
        submitOnce(
          event,
          changeFeedback,
          () => post(`${path}/changes`, details.body()),
          refresh,
          () => t('Change proposed: it holds once another person approves it.'),
        ),
    },
    details.fields.map((entry) => entry.element),
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', id: 'propose-change' }, t('Propose the change')),
    ),
    changeFeedback,
  );
  const reason = field('archive-reason', t('Why archive this payee'), { required: true, maxlength: '500' });
  const archiveFeedback = h('div', { id: 'propose-archive-feedback' });
  const archiveForm = h(
    'form',
    {
      id: 'propose-archive-form',
      class: 'card',
      onsubmit: (/** @type {Event} */ event) =>
        submitOnce(
          event,
          archiveFeedback,
          () => post(`${path}/archive`, { reason: reason.input.value.trim() }),
          refresh,
          () => t('Archive proposed: files can still name this payee until another person approves it.'),
        ),
    },
    reason.element,
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'danger', id: 'propose-archive' }, t('Propose archiving')),
    ),
    archiveFeedback,
  );
  return [
    h('details', { id: 'propose-change-section' }, h('summary', {}, t('Propose a change')), changeForm),
    h('details', { id: 'propose-archive-section' }, h('summary', {}, t('Archive this payee')), archiveForm),
  ];
}

/**
 * Sends a proposal once (the button stays disabled until the API answered), shows a refusal in the page's
 * language, and reloads the page when it was taken.
 * @param {Event} event
 * @param {HTMLElement} feedback
 * @param {() => Promise<unknown>} send
 * @param {() => Promise<void>} refresh
 * @param {() => string} done
 */
async function submitOnce(event, feedback, send, refresh, done) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const button = /** @type {HTMLButtonElement | null} */ (form.querySelector('button[type="submit"]'));
  if (button) button.disabled = true;
  fill(feedback, h('p', { role: 'status' }, t('Sending…')));
  try {
    await send();
    const outcome = done();
    fill(feedback, h('p', { role: 'status', class: 'outcome good' }, outcome));
    announce(outcome);
    await refresh();
  } catch (error) {
    fill(feedback, errorBox(error, t('Nothing was proposed')));
  } finally {
    if (button) button.disabled = false;
  }
}

/**
 * The new-payee form. A wallet is checked with the gateway as it is saved; the payee's page then shows the
 * name check (a mismatch marked), where the team fixes the name with a change or archives the payee.
 * @param {HTMLElement} main
 * @param {import('./types.js').Ctx} ctx
 */
export function newPayeePage(main, ctx) {
  const details = detailsFields('payee');
  const form = createForm({
    id: 'payee-form',
    fields: details.fields,
    submitLabel: t('Save and check the wallet'),
    submit: () => request('/v1/payees', { method: 'POST', body: details.body() }),
    onCreated: (created) => {
      announce(t('Payee {id} saved.', { id: created.payeeId }));
      ctx.navigate(`#/payees/${encodeURIComponent(created.payeeId)}`);
    },
  });
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/payees' }, `← ${t('Payees')}`)),
    pageHeading(t('New payee')),
    h(
      'p',
      {},
      t(
        'A wallet is checked with the gateway when saved and its registered name compared with the name given; the payee’s page shows the result. A bank account or card cannot be checked: the gateway offers no such check.',
      ),
    ),
    form,
  );
}
