// @ts-check
/** The items of a payout run's page: a table by state, in pages of 100, refreshed with the run. */
import { request } from './api.js';
import { fillIfChanged, h, table } from './dom.js';
import { count, label, vnd } from './format.js';
import { t } from './i18n.js';
import { errorBox, statusBadge } from './ui.js';
import { resultText } from './result-codes.js';
import { reasonText } from './payout-run-retries.js';
import { payeeFlagsOf } from './payee-flags.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

export const ITEM_STATES = [
  'QUEUED',
  'ELIGIBLE',
  'INELIGIBLE',
  'PENDING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
];
const ITEMS_PAGE = 100;

/**
 * The items table with its state filter and pages; refreshed with the run while it is live.
 * @param {string} runId
 */
export function itemsSection(runId) {
  let state = '';
  let offset = 0;
  const body = h('div', { id: 'items-table' });
  const select = h(
    'select',
    {
      id: 'item-state',
      onchange: () => {
        state = select.value;
        offset = 0;
        void load();
      },
    },
    h('option', { value: '' }, t('All states')),
    ITEM_STATES.map((value) => h('option', { value }, label(value))),
  );
  const element = h(
    'section',
    { id: 'run-items', 'aria-labelledby': 'items-heading' },
    h('h2', { id: 'items-heading' }, t('Items')),
    h('div', { class: 'filter' }, h('label', { for: 'item-state' }, t('Show items in state')), select),
    body,
  );

  async function load() {
    const query = new URLSearchParams({ limit: String(ITEMS_PAGE), offset: String(offset) });
    if (state) query.set('state', state);
    try {
      const { items } = await request(`/v1/payout-runs/${encodeURIComponent(runId)}/items?${query}`);
      fillIfChanged(body, { items, state, offset }, () => itemsTable(items));
    } catch (error) {
      fillIfChanged(body, { error: String(error) }, () => errorBox(error, t('Items could not be loaded')));
    }
  }

  /** @param {ApiRecord[]} items */
  function itemsTable(items) {
    const pager = h(
      'p',
      { class: 'actions' },
      offset > 0
        ? h(
            'button',
            { type: 'button', onclick: () => ((offset -= ITEMS_PAGE), void load()) },
            t('Previous page'),
          )
        : null,
      items.length === ITEMS_PAGE
        ? h(
            'button',
            { type: 'button', onclick: () => ((offset += ITEMS_PAGE), void load()) },
            t('Next page'),
          )
        : null,
    );
    if (!items.length) {
      return h('p', {}, state ? t('No items in state {state}.', { state: label(state) }) : t('No items.'));
    }
    return [
      table({
        caption:
          t('Items {from}–{to}', { from: count(offset + 1), to: count(offset + items.length) }) +
          (state ? t(', state {state}', { state: label(state) }) : ''),
        columns: [
          t('Row'),
          t('Payout id'),
          t('Receiver'),
          t('In the payee directory'),
          t('Amount'),
          t('State'),
          t('Result'),
          t('Gateway transaction'),
        ],
        numeric: [0, 4],
        className: 'items',
        rows: items.map((item) => [
          String(item.row),
          item.payoutId,
          item.walletName,
          // Read before approving: a receiver new to the directory, a payee changed lately, a name mismatch.
          payeeFlagsOf(item),
          vnd(item.amount),
          statusBadge(item.state),
          // A failed row says why in payrun's words (its own reason table), in the page's language.
          item.reason
            ? [item.resultCode, reasonText(item.reason)]
                .filter((part) => part !== null && part !== undefined && part !== '')
                .join(' · ')
            : (resultText(item.resultCode, item.message) ?? '—'),
          item.transId ?? '—',
        ]),
      }),
      pager,
    ];
  }

  return { element, refresh: () => load() };
}
