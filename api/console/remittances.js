// @ts-check
/**
 * Remittances: the list with the needs-attention reason, a remittance's page with its quotes and
 * result, and the create form (quote first, its age shown, asked again when old).
 */
import { request } from './api.js';
import { approvalLine, approvalOf } from './approvals.js';
import { announce, fill, h } from './dom.js';
import { age, dateTime, label, money, vnd } from './format.js';
import { t } from './i18n.js';
import { createForm, errorBox, field, pageHeading, selectField, statusCell } from './ui.js';
import { resultText } from './result-codes.js';
import { serverText } from './server-text.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/** @type {import('./types.js').Resource} */
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
    'awaiting_approval',
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
    { label: () => t('Receiver'), value: (row) => serverText(row.receiver) },
    {
      label: () => t('Foreign amount'),
      value: (row) => money(row.foreignAmount, row.baseCurrency),
      numeric: true,
    },
    { label: () => t('Sent'), value: (row) => vnd(row.amountSent), numeric: true },
    { label: () => t('Created'), value: (row) => dateTime(row.createdAt) },
  ],
  facts: (view) => [
    [t('Needs attention'), serverText(view.needsAttention)],
    [t('Why'), serverText(view.statusReason)],
    [t('Receiver'), serverText(view.receiver)],
    [t('Foreign amount'), money(view.foreignAmount, view.baseCurrency)],
    [t('Rate used'), view.rate ? `1 ${view.baseCurrency} = ${vnd(view.rate)}` : null],
    [t('Exchanged'), view.exchangeAmount !== null ? vnd(view.exchangeAmount) : null],
    [t('Sent'), view.amountSent !== null ? vnd(view.amountSent) : null],
    [t('Reason'), view.reason],
    [t('Result'), view.result ? resultText(view.result.resultCode, view.result.message) : null],
    [t('Created by'), view.createdBy],
    [t('Created'), dateTime(view.createdAt)],
  ],
  load: async (view, id) => ({
    ...view,
    approval: view.status === 'awaiting_approval' ? await approvalOf('remittance', id) : null,
  }),
  sections: (view) => approvalLine(view.approval),
  orderIds: (view) => [view.orderId],
  events: (view) =>
    [
      { at: view.createdAt, what: t('Record created'), who: view.createdBy },
      ...(view.quotes ?? []).map((/** @type {ApiRecord} */ quote) => ({
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

/**
 * The create form: a quote first (its age shown, asked again when it is past its life), then the
 * receiver's wallet.
 * @param {HTMLElement} main
 * @param {import('./types.js').Ctx} ctx
 */
export function newRemittancePage(main, ctx) {
  const currency = selectField('remit-currency', t('Currency'), [
    'USD',
    'EUR',
    'JPY',
    'KRW',
    'SGD',
    'AUD',
    'GBP',
  ]);
  const foreign = field('remit-foreign-amount', t('Foreign amount'), {
    type: 'number',
    min: '1.01',
    step: '0.01',
    required: true,
  });
  const quoteBox = h('div', { id: 'quote', role: 'status' });
  /** @type {ApiRecord | null} */
  let quote = null;

  async function askQuote() {
    fill(quoteBox, t('Asking the gateway for a rate…'));
    try {
      const params = new URLSearchParams({ baseCurrency: currency.input.value });
      if (Number(foreign.input.value) > 1) params.set('foreignAmount', foreign.input.value);
      quote = await request(`/v1/remittance-quotes?${params}`);
      showQuote();
    } catch (error) {
      quote = null;
      fill(quoteBox, errorBox(error, t('No rate')));
    }
  }
  function showQuote() {
    if (!quote) return;
    const old = Date.now() > new Date(quote.expiresAt).getTime();
    fill(
      quoteBox,
      h(
        'p',
        { class: old ? 'outcome bad' : 'outcome good' },
        t('1 {currency} = {rate}', {
          currency: quote.baseCurrency ?? currency.input.value,
          rate: vnd(quote.rate),
        }),
        quote.exchangeAmount
          ? ` · ${money(Number(foreign.input.value), currency.input.value)} = ${vnd(quote.exchangeAmount)}`
          : '',
        ' · ',
        h('span', { id: 'quote-age' }, t('quoted {age}', { age: age(quote.quotedAt) })),
        old ? ` · ${t('old: asking again')}` : '',
      ),
      h(
        'p',
        { class: 'hint' },
        t('The remittance quotes again when it buys; this rate shows what to expect.'),
      ),
    );
    // A quote past its life is replaced, so nobody sends on a stale rate.
    if (old) void askQuote();
  }
  const ticker = setInterval(showQuote, 1000);

  const walletId = field('remit-wallet', t('Receiver wallet (0… or +84…)'), {
    maxlength: '15',
    required: true,
  });
  const walletName = field('remit-wallet-name', t('Receiver name'), { maxlength: '100', required: true });
  const personalId = field('remit-personal-id', t('Receiver national id'), {
    inputmode: 'numeric',
    maxlength: '12',
    required: true,
  });
  const sender = field('remit-sender', t('Sender name'), { maxlength: '100', required: true });
  const partner = field('remit-partner', t('Partner name'), { maxlength: '100', required: true });
  const reason = selectField('remit-reason', t('Reason'), [
    'RSN01',
    'RSN02',
    'RSN03',
    'RSN04',
    'RSN05',
    'RSN06',
  ]);
  const form = createForm({
    id: 'remittance-form',
    fields: [walletId, walletName, personalId, sender, partner, reason],
    submitLabel: t('Send remittance'),
    submit: (key) =>
      request('/v1/remittances', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: {
          requestType: 'remitToWallet',
          baseCurrency: currency.input.value,
          foreignAmount: Number(foreign.input.value),
          receiver: {
            walletId: walletId.input.value.trim(),
            walletName: walletName.input.value.trim(),
            personalId: personalId.input.value.trim(),
          },
          remittanceInfo: {
            name: sender.input.value.trim(),
            partnerName: partner.input.value.trim(),
            reason: reason.input.value,
          },
        },
      }),
    onCreated: (created) => {
      announce(t('Remittance {id} accepted.', { id: created.remittanceId }));
      ctx.navigate(`#/remittances/${encodeURIComponent(created.remittanceId)}`);
    },
  });
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/remittances' }, `← ${t('Remittances')}`)),
    pageHeading(t('New remittance')),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'quote-heading' },
      h('h2', { id: 'quote-heading' }, t('1. Quote')),
      currency.element,
      foreign.element,
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'button', id: 'get-quote', onclick: () => void askQuote() }, t('Get a rate')),
      ),
      quoteBox,
    ),
    h('h2', {}, t('2. Receiver (wallet)')),
    form,
  );
  return () => clearInterval(ticker);
}
