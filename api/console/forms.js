/**
 * Pages that create or look something up: a single disbursement, a remittance (quote first, its age
 * shown, re-quoted when old), and a customer's saved methods with revoke.
 */
import { newIdempotencyKey, request } from './api.js';
import { announce, fill, h, table } from './dom.js';
import { age, dateTime, label, money, vnd } from './format.js';
import { t } from './i18n.js';
import { actionButton } from './pages.js';
import { errorBox, pageHeading, statusBadge } from './ui.js';

function field(id, labelText, { tag = 'input', options = [], ...attributes } = {}, hint) {
  const input = h(tag, { id, name: id, ...attributes }, options);
  return {
    input,
    element: h(
      'div',
      { class: 'field' },
      h('label', { for: id }, labelText),
      hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
      input,
    ),
  };
}

/** Submits once per idempotency key: a double click or a retry creates one record. */
function createForm({ id, fields, submitLabel, submit, onCreated }) {
  const feedback = h('div', { id: `${id}-feedback` });
  const key = newIdempotencyKey();
  const button = h('button', { type: 'submit', class: 'primary', id: `${id}-submit` }, submitLabel);
  return h(
    'form',
    {
      class: 'card',
      id,
      onsubmit: async (event) => {
        event.preventDefault();
        button.disabled = true;
        fill(feedback, h('p', { role: 'status' }, t('Sending…')));
        try {
          const created = await submit(key);
          onCreated(created);
        } catch (error) {
          fill(feedback, errorBox(error, t('Nothing was created')));
          button.disabled = false;
        }
      },
    },
    fields.map((entry) => entry.element),
    h('p', { class: 'actions' }, button),
    feedback,
  );
}

// ---------------------------------------------------------------- disbursement

export function newDisbursementPage(main, ctx) {
  const id = field('disbursement-id', t('Disbursement id (yours, used once)'), {
    required: true,
    maxlength: '50',
  });
  const amount = field('disbursement-amount', t('Amount (VND)'), {
    type: 'number',
    required: true,
    min: '1000',
    step: '1',
    inputmode: 'numeric',
  });
  const description = field('disbursement-description', t('Description'), { maxlength: '255' });
  const kind = field('disbursement-kind', t('Receiver'), {
    tag: 'select',
    options: [
      h('option', { value: 'wallet' }, t('Wallet')),
      h('option', { value: 'bank' }, t('Bank account')),
    ],
    onchange: () => showReceiver(),
  });
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
      t('Pays one receiver at once: a wallet 1.000–200.000.000 ₫, a bank account 10.000–20.000.000 ₫.'),
    ),
    form,
  );
  showReceiver();
}

// ---------------------------------------------------------------- remittance

export function newRemittancePage(main, ctx) {
  const currency = field('remit-currency', t('Currency'), {
    tag: 'select',
    options: ['USD', 'EUR', 'JPY', 'KRW', 'SGD', 'AUD', 'GBP'].map((code) =>
      h('option', { value: code }, code),
    ),
  });
  const foreign = field('remit-foreign-amount', t('Foreign amount'), {
    type: 'number',
    min: '1.01',
    step: '0.01',
    required: true,
  });
  const quoteBox = h('div', { id: 'quote', role: 'status' });
  let quote = null;
  let ticker;

  async function askQuote() {
    fill(quoteBox, t('Asking the gateway for a rate…'));
    try {
      const params = new URLSearchParams({ baseCurrency: currency.input.value });
      if (Number(foreign.input.value) > 1) params.set('foreignAmount', foreign.input.value);
      quote = await request(`/v1/remittance/quotes?${params}`);
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
  ticker = setInterval(showQuote, 1000);

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
  const reason = field('remit-reason', t('Reason'), {
    tag: 'select',
    options: ['RSN01', 'RSN02', 'RSN03', 'RSN04', 'RSN05', 'RSN06'].map((code) =>
      h('option', { value: code }, code),
    ),
  });
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

// ---------------------------------------------------------------- saved methods

export function methodsPage(main, ctx, query) {
  const customer = query.get('customer') ?? '';
  const input = h('input', {
    id: 'customer-id',
    type: 'search',
    value: customer,
    maxlength: '60',
    required: true,
  });
  const body = h('div', { id: 'methods-body' });
  const feedback = h('div', { id: 'action-feedback' });
  fill(
    main,
    pageHeading(t('Saved methods')),
    h(
      'p',
      {},
      t("A customer's saved cards and wallets (masked), and revoke. The token itself is never shown."),
    ),
    h(
      'form',
      {
        class: 'filters',
        role: 'search',
        onsubmit: (event) => {
          event.preventDefault();
          ctx.navigate(`#/methods?customer=${encodeURIComponent(input.value.trim())}`);
        },
      },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'customer-id' }, t('Customer id (partnerClientId)')),
        input,
      ),
      h('button', { type: 'submit', id: 'find-methods' }, t('Show methods')),
    ),
    feedback,
    body,
  );
  if (!customer) return;
  async function load() {
    try {
      const { methods } = await request(`/v1/customers/${encodeURIComponent(customer)}/methods?all=true`);
      fill(
        body,
        methods.length
          ? table({
              caption: t('Methods of {customer}', { customer }),
              columns: [t('Method'), t('Kind'), t('Shown as'), t('Status'), t('Saved'), t('Action')],
              className: 'methods',
              rows: methods.map((method) => [
                method.methodId,
                label(method.kind),
                method.last4
                  ? `•••• ${method.last4}${method.cardType ? ` (${method.cardType})` : ''}`
                  : (method.walletAlias ?? method.bankCode ?? '—'),
                statusBadge(method.status),
                dateTime(method.createdAt),
                method.status === 'active' && ctx.can('confirmPayments')
                  ? actionButton({
                      id: `revoke-${method.methodId}`,
                      label: t('Revoke'),
                      danger: true,
                      run: () =>
                        request(`/v1/methods/${encodeURIComponent(method.methodId)}`, { method: 'DELETE' }),
                      done: t('Method {id} revoked.', { id: method.methodId }),
                      refresh: load,
                      feedback,
                    })
                  : '—',
              ]),
            })
          : h('p', {}, t('This customer has no saved method.')),
      );
    } catch (error) {
      fill(body, errorBox(error, t('The methods could not be loaded')));
    }
  }
  void load();
}
