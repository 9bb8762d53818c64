// @ts-check
/**
 * Single disbursements: the list, a disbursement's page with its result, and the create form (a
 * wallet or a bank account, paid at once).
 */
import { request } from './api.js';
import { approvalLine, approvalOf } from './approvals.js';
import { announce, fill, h } from './dom.js';
import { dateTime, label, vnd, vndRange } from './format.js';
import { t } from './i18n.js';
import { createForm, field, maybe, pageHeading, selectField, statusCell } from './ui.js';
import { resultText } from './result-codes.js';
import { serverText } from './server-text.js';

/** @type {import('./types.js').Resource} */
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
    'awaiting_approval',
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
          row.status === 'failed' || row.status === 'needs_attention'
            ? resultText(row.resultCode, row.message)
            : null,
        ),
    },
    { label: () => t('Receiver'), value: (row) => serverText(row.receiver) },
    { label: () => t('Amount'), value: (row) => vnd(row.amount), numeric: true },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  facts: (view) => [
    [t('Result'), resultText(view.resultCode, view.message)],
    [t('Receiver'), serverText(view.receiver)],
    [t('Amount'), vnd(view.amount)],
    [t('Description'), maybe(view.description)],
    [t('Gateway transaction'), maybe(view.transId)],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  load: async (view, id) => ({
    ...view,
    approval: view.status === 'awaiting_approval' ? await approvalOf('disbursement', id) : null,
  }),
  sections: (view) => approvalLine(view.approval),
  orderIds: (view) => [view.orderId ?? view.disbursementId],
  events: (view) => [
    { at: view.createdAt, what: t('Record created'), who: view.createdBy },
    { at: view.updatedAt, what: t('Now {status}', { status: label(view.status) }), who: t('payrun') },
  ],
};

/**
 * The create form: one receiver, a wallet or a bank account, paid at once.
 * @param {HTMLElement} main
 * @param {import('./types.js').Ctx} ctx
 */
export function newDisbursementPage(main, ctx) {
  const id = field('disbursement-id', t('Disbursement id (yours, used once)'), {
    required: true,
    maxlength: '50',
  });
  const ranges = ctx.config.disbursementAmountRanges;
  const amount = field('disbursement-amount', t('Amount (VND)'), {
    type: 'number',
    required: true,
    ...(ranges && { min: String(Math.min(ranges.wallet[0], ranges.bank[0])) }),
    step: '1',
    inputmode: 'numeric',
  });
  const description = field('disbursement-description', t('Description'), { maxlength: '255' });
  const kind = selectField(
    'disbursement-kind',
    t('Receiver'),
    [
      ['wallet', t('Wallet')],
      ['bank', t('Bank account')],
    ],
    { onchange: () => showReceiver() },
  );
  const walletId = field('wallet-id', t('Wallet number (0…)'), { inputmode: 'numeric', maxlength: '15' });
  const walletName = field('wallet-name', t('Wallet holder name'), { maxlength: '100' });
  const personalId = field('wallet-personal-id', t('National id (optional)'), {
    inputmode: 'numeric',
    maxlength: '12',
  });
  const account = field('bank-account', t('Bank account number'), { inputmode: 'numeric', maxlength: '30' });
  const holder = field('bank-holder', t('Account holder name'), { maxlength: '100' });
  const bankCode = field('bank-code', t('Bank code'), { maxlength: '20' });
  const walletFields = [walletId, walletName, personalId];
  const bankFields = [account, holder, bankCode];
  function showReceiver() {
    const bank = kind.input.value === 'bank';
    for (const entry of walletFields) entry.element.hidden = bank;
    for (const entry of bankFields) entry.element.hidden = !bank;
  }
  const form = createForm({
    id: 'disbursement-form',
    fields: [id, amount, description, kind, ...walletFields, ...bankFields],
    submitLabel: t('Pay now'),
    submit: (key) =>
      request('/v1/disbursements', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: {
          disbursementId: id.input.value.trim(),
          amount: Number(amount.input.value),
          description: description.input.value,
          ...(kind.input.value === 'bank'
            ? {
                bank: {
                  bankAccountNo: account.input.value.trim(),
                  bankAccountHolderName: holder.input.value.trim(),
                  bankCode: bankCode.input.value.trim(),
                },
              }
            : {
                wallet: {
                  walletId: walletId.input.value.trim(),
                  walletName: walletName.input.value.trim(),
                  personalId: personalId.input.value.trim() || null,
                },
              }),
        },
      }),
    onCreated: (created) => {
      announce(t('Disbursement {id} started.', { id: created.disbursementId }));
      ctx.navigate(`#/disbursements/${encodeURIComponent(created.disbursementId)}`);
    },
  });
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/disbursements' }, `← ${t('Disbursements')}`)),
    pageHeading(t('New disbursement')),
    h(
      'p',
      {},
      ranges
        ? t('Pays one receiver at once: a wallet {wallet}, a bank account {bank}.', {
            wallet: vndRange(ranges.wallet),
            bank: vndRange(ranges.bank),
          })
        : t('Pays one receiver at once.'),
    ),
    form,
  );
  showReceiver();
}
