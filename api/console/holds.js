// @ts-check
/**
 * The hold panel (#/holds): one row per kind of money movement payrun can hold (bank and wallet
 * disbursements, batch payments, charges, refunds, remittances), with its status, what it holds and
 * who held it and why. An admin proposes a hold or a release and a second admin confirms it (the API
 * refuses the same person with self_approval); a waiting proposal can be withdrawn. Everyone may read
 * it; only admins see the buttons, and the API checks again.
 */
import { post, request } from './api.js';
import { fill, fillIfChanged, h, table } from './dom.js';
import { count, dateTime, vnd } from './format.js';
import { t } from './i18n.js';
import { actionButton, errorBox, pageHeading, statusBadge } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */

/** The release rate an admin is offered first: items a minute let through once the hold ends. */
const DEFAULT_RATE_PER_MINUTE = 60;

/** @param {string} kind */
const kindWords = (kind) =>
  ({
    bank_disbursement: t('Bank disbursements'),
    wallet_disbursement: t('Wallet disbursements'),
    batch_payment: t('Batch payments'),
    charge: t('Charges'),
    refund: t('Refunds'),
    remittance: t('Remittances'),
  })[kind] ?? kind;

/**
 * Who held it and why, in words: the proposer until a second admin confirms, then both.
 * @param {ApiRecord} hold
 */
function whoAndWhy(hold) {
  if (hold.status === 'off') return '—';
  const people = hold.heldBy?.length ? hold.heldBy.join(', ') : (hold.proposedBy ?? '—');
  return h(
    'span',
    {},
    h('span', { id: `hold-who-${hold.kind}` }, people),
    hold.heldAt ? h('span', { class: 'hint' }, ` · ${dateTime(hold.heldAt)}`) : null,
    hold.reason ? [h('br'), h('span', { id: `hold-reason-text-${hold.kind}` }, hold.reason)] : null,
  );
}

/** @param {ApiRecord} hold */
function releaseWords(hold) {
  const release = hold.release;
  if (!release) return null;
  return h(
    'span',
    { class: 'hint', id: `hold-release-${hold.kind}` },
    t('Release at {rate} a minute, proposed by {by}', {
      rate: count(release.ratePerMinute),
      by: release.proposedBy ?? '—',
    }),
    release.confirmedBy ? ` · ${t('confirmed by {by}', { by: release.confirmedBy })}` : '',
    release.remaining !== null && release.remaining !== undefined
      ? ` · ${t('{n} left', { n: count(release.remaining) })}`
      : '',
  );
}

/**
 * What an admin is told after Hold or Release: the kind's new status, when the API answered with it.
 * @param {string} kind
 * @param {ApiRecord | undefined} answer
 */
const outcome = (kind, answer) =>
  answer?.status
    ? t('{kind}: {status}.', { kind: kindWords(kind), status: statusBadge(answer.status).textContent ?? '' })
    : t('{kind}: sent.', { kind: kindWords(kind) });

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 */
export function holdsPage(main, ctx) {
  const feedback = h('div', { id: 'holds-feedback' });
  const body = h('div', { id: 'holds-body' }, h('p', {}, t('Loading…')));
  fill(
    main,
    pageHeading(t('Holds')),
    h(
      'p',
      {},
      t(
        'A hold stops one kind of money movement before it reaches the gateway; held items wait, none is lost or paid twice. Holding and releasing each take two admins: one proposes, another confirms.',
      ),
    ),
    feedback,
    body,
  );

  /**
   * The buttons for where a hold stands: Hold proposes (off) or confirms (proposed), Release proposes
   * (held) or confirms (release_proposed), Withdraw drops a waiting proposal.
   * @param {ApiRecord} hold
   */
  function controls(hold) {
    if (!ctx.can('holds')) return '—';
    const base = `/v1/holds/${encodeURIComponent(hold.kind)}`;
    const parts = [];
    if (hold.status === 'off' || hold.status === 'proposed') {
      const reason = h('input', {
        id: `hold-reason-${hold.kind}`,
        name: `hold-reason-${hold.kind}`,
        maxlength: '500',
        required: true,
        value: hold.status === 'proposed' ? (hold.reason ?? '') : '',
        'aria-label': t('Why hold {kind}', { kind: kindWords(hold.kind) }),
        placeholder: t('Reason'),
      });
      parts.push(
        reason,
        actionButton({
          id: `hold-${hold.kind}`,
          label: hold.status === 'proposed' ? t('Confirm the hold') : t('Hold'),
          danger: true,
          run: () => post(`${base}/hold`, { reason: reason.value.trim() }),
          done: (/** @type {ApiRecord} */ answer) => outcome(hold.kind, answer),
          refresh: load,
          feedback,
        }),
      );
    }
    if (hold.status === 'held' || hold.status === 'release_proposed') {
      const rate = h('input', {
        id: `release-rate-${hold.kind}`,
        name: `release-rate-${hold.kind}`,
        type: 'number',
        min: '1',
        step: '1',
        inputmode: 'numeric',
        value: String(hold.release?.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE),
        'aria-label': t('Items a minute once released ({kind})', { kind: kindWords(hold.kind) }),
      });
      parts.push(
        rate,
        actionButton({
          id: `release-${hold.kind}`,
          label: hold.status === 'release_proposed' ? t('Confirm the release') : t('Release'),
          run: () => post(`${base}/release`, { ratePerMinute: Number(rate.value) }),
          done: (/** @type {ApiRecord} */ answer) => outcome(hold.kind, answer),
          refresh: load,
          feedback,
        }),
      );
    }
    if (hold.status === 'proposed' || hold.status === 'release_proposed') {
      parts.push(
        actionButton({
          id: `withdraw-${hold.kind}`,
          label: t('Withdraw the proposal'),
          run: () => post(`${base}/withdraw`),
          done: t('Proposal withdrawn.'),
          refresh: load,
          feedback,
        }),
      );
    }
    return parts.length ? h('div', { class: 'decision' }, parts) : '—';
  }

  /** @param {ApiRecord[]} holds */
  const render = (holds) =>
    table({
      caption: t('Every kind that can be held'),
      columns: [t('Kind'), t('Status'), t('Held items'), t('Held total'), t('Who and why'), t('Actions')],
      numeric: [2, 3],
      className: 'holds',
      rows: holds.map((hold) => [
        h('span', { id: `hold-row-${hold.kind}`, 'data-kind': hold.kind }, kindWords(hold.kind)),
        h(
          'span',
          {},
          h('span', { id: `hold-status-${hold.kind}` }, statusBadge(hold.status)),
          ' ',
          releaseWords(hold),
        ),
        h('span', { id: `held-count-${hold.kind}` }, count(hold.held?.count ?? 0)),
        h('span', { id: `held-total-${hold.kind}` }, vnd(hold.held?.totalVnd ?? 0)),
        whoAndWhy(hold),
        controls(hold),
      ]),
    });

  async function load() {
    try {
      const answer = await request('/v1/holds');
      fillIfChanged(body, answer.holds, () => render(answer.holds));
    } catch (error) {
      fillIfChanged(body, { error: String(error) }, () =>
        errorBox(error, t('The holds could not be loaded')),
      );
    }
  }
  void load();
  const timer = setInterval(() => void load(), 5000);
  return () => clearInterval(timer);
}
