// @ts-check
/**
 * The dashboard's balance warnings: a banner for every balance the watcher last found low (below its
 * threshold or short of the runs waiting for funds), so it is seen before the gateway refuses a batch, and
 * the thresholds themselves, which a payouts approver (or an admin) sets per currency.
 */
import { request } from './api.js';
import { fill, fillIfChanged, h, table } from './dom.js';
import { dateTime, money } from './format.js';
import { t } from './i18n.js';
import { errorBox, field, selectField } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */

/** The balances the API watches (VND and the remittance currencies). */
const CURRENCIES = ['VND', 'USD', 'EUR', 'AUD', 'CAD', 'GBP', 'JPY', 'KRW', 'TWD', 'THB'];

/**
 * One banner per low balance; nothing when none is low.
 * @param {ApiRecord[]} thresholds
 */
const lowBanners = (thresholds) =>
  thresholds
    .filter((row) => row.low === true)
    .map((row) =>
      h(
        'p',
        { class: 'banner banner-warn balance-low', role: 'alert', 'data-currency': row.currency },
        t(
          'The {currency} balance is low: {balance}, below its threshold {threshold} or short of the runs waiting for funds. Top up before the next batch.',
          {
            currency: row.currency,
            balance: money(row.lastBalance, row.currency),
            threshold: money(row.threshold, row.currency),
          },
        ),
      ),
    );

/** @param {ApiRecord[]} thresholds */
const thresholdTable = (thresholds) =>
  thresholds.length === 0
    ? h('p', { class: 'hint' }, t('No balance threshold is set.'))
    : table({
        caption: t('Balance thresholds'),
        columns: [t('Currency'), t('Threshold'), t('Last balance'), t('Checked at'), t('State')],
        numeric: [1, 2],
        rows: thresholds.map((row) => [
          row.currency,
          money(row.threshold, row.currency),
          money(row.lastBalance, row.currency),
          row.checkedAt ? dateTime(row.checkedAt) : '—',
          row.low === null ? t('Not read yet') : row.low ? t('Low') : t('Enough'),
        ]),
      });

/**
 * The form to set one currency's threshold, shown only to those the API lets set it.
 * @param {() => Promise<void>} refresh
 */
function thresholdForm(refresh) {
  const feedback = h('div', { id: 'threshold-feedback' });
  const currency = selectField('threshold-currency', t('Currency'), CURRENCIES);
  const amount = field('threshold-amount', t('Threshold (major units)'), {
    type: 'number',
    min: '0',
    step: '1',
    required: true,
  });
  return h(
    'form',
    {
      class: 'card',
      id: 'threshold-form',
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await request(`/v1/balance-thresholds/${encodeURIComponent(currency.input.value)}`, {
            method: 'PUT',
            body: { threshold: Number(amount.input.value) },
          });
          fill(feedback, h('p', { role: 'status' }, t('Threshold saved.')));
          await refresh();
        } catch (error) {
          fill(feedback, errorBox(error, t('The threshold was not saved')));
        }
      },
    },
    currency.element,
    amount.element,
    h('p', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, t('Set threshold'))),
    feedback,
  );
}

/**
 * The banners (top of the dashboard) and the thresholds panel, kept fresh by the dashboard's refresh.
 * @param {Ctx} ctx
 * @returns {{ banners: HTMLElement, panel: HTMLElement, load: () => Promise<void> }}
 */
export function balanceWatch(ctx) {
  const banners = h('div', { id: 'balance-banners' });
  const list = h('div', { id: 'threshold-list' });
  const load = async () => {
    try {
      const answer = await request('/v1/balance-thresholds');
      /** @type {ApiRecord[]} */
      const thresholds = answer.thresholds ?? [];
      fillIfChanged(banners, thresholds, () => lowBanners(thresholds));
      fillIfChanged(list, thresholds, () => [thresholdTable(thresholds)]);
    } catch (error) {
      fill(list, errorBox(error, t('The balance thresholds could not be loaded')));
    }
  };
  const panel = h(
    'section',
    { id: 'balance-thresholds', 'aria-label': t('Balance thresholds') },
    h('h2', {}, t('Balance thresholds')),
    h(
      'p',
      { class: 'hint' },
      t(
        'Below its threshold, or short of the runs waiting for funds, a balance raises a warning before the gateway refuses a batch.',
      ),
    ),
    list,
    ctx.can('decide') ? thresholdForm(load) : null,
  );
  return { banners, panel, load };
}
