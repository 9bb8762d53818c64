// @ts-check
/**
 * Retrying a run's failed rows, on the run's page: the "Retry failed rows" action on a reconciled run, the
 * retry draft's editor (each row's amount and receiver, or its removal; then submit or discard), and on a
 * run with retries its children and the combined reconciliation (each row's outcome across the family).
 */
import { request } from './api.js';
import { fill, fillIfChanged, h, table } from './dom.js';
import { count, dateTime, label, vnd } from './format.js';
import { language, t } from './i18n.js';
import { actionButton, errorBox, statusBadge } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */

const runPath = (/** @type {string} */ runId) => `/v1/payout-runs/${encodeURIComponent(runId)}`;

/** payrun's reason for a failed row, in the page's language. @param {ApiRecord | null | undefined} reason */
export const reasonText = (reason) => (reason ? (language() === 'vi' ? reason.vi : reason.en) : '');

/**
 * The retry action of a reconciled run with failed rows, for the upload duty.
 * @param {Ctx} ctx
 * @param {ApiRecord} view
 */
export function retryAction(ctx, view) {
  const failed = (view.counts?.FAILED?.count ?? 0) + (view.counts?.INELIGIBLE?.count ?? 0);
  if (view.status !== 'reconciled' || !failed || !ctx.can('upload')) return [];
  const feedback = h('div');
  return [
    h('h2', {}, t('Failed rows')),
    h(
      'p',
      {},
      t(
        '{n} rows were not paid. A retry makes a new run of exactly those rows, which you can correct before it is approved.',
        {
          n: count(failed),
        },
      ),
    ),
    h(
      'p',
      { class: 'actions' },
      actionButton({
        id: 'retry-failed',
        label: t('Retry failed rows'),
        run: async () => {
          const child = await request(`${runPath(view.runId)}/retry-failed`, { method: 'POST', body: {} });
          ctx.navigate(`#/runs/${encodeURIComponent(child.runId)}`);
          return child;
        },
        done: t('Retry draft created.'),
        refresh: async () => undefined,
        feedback,
      }),
    ),
    feedback,
  ];
}

/**
 * A retry draft's rows, editable by its maker, with submit and discard.
 * @param {Ctx} ctx
 * @param {ApiRecord} view
 * @param {() => Promise<unknown>} refresh
 */
export function draftEditor(ctx, view, refresh) {
  const section = h('div', { id: 'retry-draft' });
  const feedback = h('div');
  if (view.status !== 'draft') return section;
  const mine = view.uploadedBy === ctx.me?.name && ctx.can('upload');
  const load = async () => {
    try {
      const { items } = await request(`${runPath(view.runId)}/items?limit=1000`);
      fillIfChanged(section, items, () => rowsOf(items));
    } catch (error) {
      fill(section, errorBox(error, t('Items could not be loaded')));
    }
  };
  /** @param {ApiRecord} item @param {ApiRecord} body */
  const change = async (item, body) => {
    await request(`${runPath(view.runId)}/items/${item.row}`, { method: 'PATCH', body });
    await load();
  };
  /** @param {ApiRecord[]} items */
  const rowsOf = (items) => [
    h('h2', {}, t('Retry draft')),
    h(
      'p',
      {},
      mine
        ? t('Correct the rows that need it, remove the ones not to pay, then submit the retry for approval.')
        : t('{name} is preparing this retry; only they can change or submit it.', { name: view.uploadedBy }),
    ),
    table({
      caption: t('Rows of the retry'),
      columns: [t('Row'), t('Payout id'), t('Wallet'), t('Receiver'), t('Amount'), t('Change')],
      numeric: [0],
      className: 'items',
      rows: items.map((item) => {
        const wallet = h('input', {
          id: `draft-wallet-${item.row}`,
          value: item.walletId,
          'aria-label': t('Wallet of row {n}', { n: item.row }),
        });
        const name = h('input', {
          id: `draft-name-${item.row}`,
          value: item.walletName,
          'aria-label': t('Receiver of row {n}', { n: item.row }),
        });
        const amount = h('input', {
          id: `draft-amount-${item.row}`,
          type: 'number',
          value: String(item.amount),
          'aria-label': t('Amount of row {n}', { n: item.row }),
        });
        const rowFeedback = h('div');
        return [
          String(item.row),
          item.payoutId,
          mine ? wallet : item.walletId,
          mine ? name : item.walletName,
          mine ? amount : vnd(item.amount),
          mine
            ? h(
                'span',
                { class: 'actions' },
                actionButton({
                  id: `draft-save-${item.row}`,
                  label: t('Save row'),
                  run: () =>
                    change(item, {
                      walletId: /** @type {HTMLInputElement} */ (wallet).value,
                      walletName: /** @type {HTMLInputElement} */ (name).value,
                      amount: Number(/** @type {HTMLInputElement} */ (amount).value),
                    }),
                  done: t('Row {n} saved.', { n: item.row }),
                  refresh: async () => undefined,
                  feedback: rowFeedback,
                }),
                actionButton({
                  id: `draft-remove-${item.row}`,
                  label: t('Remove row'),
                  danger: true,
                  run: () => change(item, { remove: true }),
                  done: t('Row {n} removed.', { n: item.row }),
                  refresh: async () => undefined,
                  feedback: rowFeedback,
                }),
                rowFeedback,
              )
            : '—',
        ];
      }),
    }),
    mine
      ? h(
          'p',
          { class: 'actions' },
          actionButton({
            id: 'submit-retry',
            label: t('Submit for approval'),
            run: () => request(`${runPath(view.runId)}/submit`, { method: 'POST', body: {} }),
            done: t('Retry submitted; it waits for approval.'),
            refresh,
            feedback,
          }),
          actionButton({
            id: 'discard-retry',
            label: t('Discard retry'),
            danger: true,
            run: () => request(`${runPath(view.runId)}/discard`, { method: 'POST', body: {} }),
            done: t('Retry discarded; nothing will be paid.'),
            refresh,
            feedback,
          }),
        )
      : null,
    feedback,
  ];
  void load();
  return section;
}

/**
 * The retries made from a run and the combined reconciliation across them.
 * @param {ApiRecord} view
 */
export function familySection(view) {
  const section = h('div', { id: 'run-family' });
  if (!view.children?.length) return section;
  const combined = h('div', { id: 'combined-reconciliation' });
  fill(
    section,
    h('h2', {}, t('Retries of this run')),
    table({
      caption: t('Runs made from this run’s failed rows'),
      columns: [t('Run'), t('Status'), t('Rows'), t('Amount'), t('Uploaded by'), t('Uploaded')],
      numeric: [2, 3],
      className: 'compact',
      rows: view.children.map((/** @type {ApiRecord} */ child) => [
        h('a', { href: `#/runs/${encodeURIComponent(child.runId)}` }, child.runId),
        statusBadge(child.status),
        count(child.rowCount),
        vnd(child.totalAmount),
        child.uploadedBy,
        dateTime(child.uploadedAt),
      ]),
    }),
    combined,
  );
  void request(`${runPath(view.runId)}/reconciliation`)
    .then((result) => fill(combined, combinedOf(result)))
    .catch((error) => fill(combined, errorBox(error, t('The combined reconciliation could not be loaded'))));
  return section;
}

/** @param {ApiRecord} result */
function combinedOf(result) {
  const { totals } = result;
  return [
    h('h3', {}, t('Combined reconciliation')),
    table({
      caption: t('Every row of this run, across its retries'),
      columns: [t('Outcome'), t('Items'), t('Amount')],
      numeric: [1, 2],
      className: 'counts compact',
      rows: [
        [t('Paid'), count(totals.paid.count), vnd(totals.paid.amount)],
        [t('Failed'), count(totals.failed.count), vnd(totals.failed.amount)],
        [t('Pending'), count(totals.pending.count), vnd(totals.pending.amount)],
        [t('All rows'), count(totals.rows.count), vnd(totals.rows.amount)],
      ],
    }),
    table({
      caption: t('Each row’s outcome'),
      columns: [t('Row'), t('Payout id'), t('Amount'), t('Outcome'), t('Run'), t('Why')],
      numeric: [0, 2],
      className: 'items',
      rows: result.rows.map((/** @type {ApiRecord} */ row) => [
        String(row.itemNo),
        row.payoutId,
        vnd(row.paidAmount ?? row.amount),
        label(row.outcome),
        h('a', { href: `#/runs/${encodeURIComponent(row.paidBy ?? row.runId)}` }, row.paidBy ?? row.runId),
        reasonText(row.reason) || '—',
      ]),
    }),
  ];
}
