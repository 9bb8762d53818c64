// @ts-check
/**
 * The approvals inbox (#/approvals): disbursements, refunds and remittances waiting for approvers,
 * oldest first, each with Approve and Reject and an optional note. The API and the item's workflow
 * decide whether a decision counts (role, not the person who asked, not twice); the page shows what
 * they answered, a refusal in the chosen language. Also the line an item's own page shows while it
 * waits ("awaiting approval: 1 of 2, asked by …").
 */
import { post, request } from './api.js';
import { fill, fillIfChanged, h, table } from './dom.js';
import { dateTime, label, runFileName, vnd } from './format.js';
import { t } from './i18n.js';
import { actionButton, errorBox, pageHeading, statusBadge } from './ui.js';
import { serverText } from './server-text.js';
import { payeeCountsOf } from './payee-flags.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */

export const APPROVAL_KINDS = ['disbursement', 'refund', 'remittance'];

/** Rows a page of the inbox shows, oldest first; the rest are a page further. */
const PAGE_SIZE = 50;

/** @param {string} kind */
const kindWords = (kind) =>
  ({ disbursement: t('Disbursement'), refund: t('Refund'), remittance: t('Remittance') })[kind] ?? kind;

/**
 * The page of the item an approval is for. A refund has no page of its own: it is shown within its
 * payment, whose id is the refund's without the `-r<n>` the API appends (db/payments: `<paymentId>-r<seq>`).
 * @param {string} kind
 * @param {string} id
 */
export function itemHash(kind, id) {
  if (kind === 'disbursement') return `#/disbursements/${encodeURIComponent(id)}`;
  if (kind === 'remittance') return `#/remittances/${encodeURIComponent(id)}`;
  return `#/payments/${encodeURIComponent(id.replace(/-r\d+$/, ''))}`;
}

/** @param {ApiRecord} approval */
const approvedSoFar = (approval) =>
  (approval.decisions ?? []).filter((/** @type {ApiRecord} */ decision) => decision.decision === 'approve')
    .length;

/**
 * "1 of 2": approvals given of those the policy asks for.
 * @param {ApiRecord} approval
 */
export const progressOf = (approval) =>
  t('{given} of {needed}', { given: approvedSoFar(approval), needed: approval.requiredApprovers });

/**
 * Whether the signed-in person holds a role that may decide this item (admin holds every role); the
 * API checks again, and alone knows whether they asked for it themselves.
 * @param {Ctx} ctx
 * @param {ApiRecord} approval
 */
const mayDecide = (ctx, approval) => {
  const roles = ctx.me?.roles ?? [];
  return (
    roles.includes('admin') ||
    (approval.approverRoles ?? []).some((/** @type {string} */ role) => roles.includes(role))
  );
};

/**
 * An item's approval, when it waits for one (null when the policy asked for none).
 * @param {string} kind
 * @param {string} id
 * @returns {Promise<ApiRecord | null>}
 */
export async function approvalOf(kind, id) {
  try {
    return await request(`/v1/approvals/${kind}/${encodeURIComponent(id)}`);
  } catch {
    // No approval recorded (below the first band), or the inbox cannot be read now: the page shows the item.
    return null;
  }
}

/**
 * What an item's page says while it waits: how many approved of how many, who asked, and the inbox.
 * @param {ApiRecord | null | undefined} approval
 * @param {string} [idPrefix]
 */
export function approvalLine(approval, idPrefix = 'approval') {
  if (!approval || approval.status !== 'requested') return null;
  return h(
    'p',
    { class: 'status-line', id: `${idPrefix}-line` },
    t('Awaiting approval: {progress}, asked by {name}; expires {when}.', {
      progress: progressOf(approval),
      name: approval.requestedBy,
      when: dateTime(approval.expiresAt),
    }),
    ' ',
    h(
      'a',
      { href: `#/approvals?kind=${approval.kind}`, id: `${idPrefix}-inbox-link` },
      t('Open the approvals inbox'),
    ),
  );
}

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @param {URLSearchParams} query
 */
export function approvalsPage(main, ctx, query) {
  const kind = APPROVAL_KINDS.includes(query.get('kind') ?? '') ? (query.get('kind') ?? '') : '';
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  /** @param {number} at */
  const hashAt = (at) => {
    const params = new URLSearchParams();
    if (kind) params.set('kind', kind);
    if (at) params.set('offset', String(at));
    const text = params.toString();
    return `#/approvals${text ? `?${text}` : ''}`;
  };
  const feedback = h('div', { id: 'approvals-feedback' });
  const runsSection = runsAwaitingApproval();
  const body = h('div', { id: 'approvals-body' }, h('p', {}, t('Loading…')));
  /** @type {HTMLSelectElement} */
  const choice = h(
    'select',
    {
      id: 'approvals-kind',
      name: 'kind',
      onchange: () => ctx.navigate(choice.value ? `#/approvals?kind=${choice.value}` : '#/approvals'),
    },
    h('option', { value: '' }, t('Every kind')),
    APPROVAL_KINDS.map((value) => h('option', { value, selected: value === kind }, kindWords(value))),
  );
  fill(
    main,
    pageHeading(t('Approvals')),
    h(
      'p',
      {},
      t(
        'Disbursements, refunds and remittances that wait for another person before anything is paid, oldest first. Nobody approves what they asked for.',
      ),
    ),
    h(
      'form',
      { class: 'filters', role: 'search', onsubmit: (event) => event.preventDefault() },
      h('div', { class: 'field' }, h('label', { for: 'approvals-kind' }, t('Kind')), choice),
    ),
    feedback,
    body,
    // Payout runs are decided on their own page, where each row's payee flags are; here, how many to look at.
    kind === '' && ctx.can('readRuns') ? runsSection.element : null,
  );

  /**
   * Approve and Reject with an optional note, for a person whose roles may decide.
   * @param {ApiRecord} approval
   */
  const decisionCell = (approval) => {
    if (!mayDecide(ctx, approval)) return '—';
    // Nothing here pays: a decision goes to the item's workflow, which counts each person once and pays
    // (once, under its own orderIds) only when the last approver needed approved. A double click or a second
    // tab is refused (approval_already_given, approval_not_pending), never counted twice.

    const key = `${approval.kind}-${approval.id}`;
    const note = h('input', {
      id: `note-${key}`,
      name: `note-${key}`,
      maxlength: '500',
      placeholder: t('Note (optional)'),
      'aria-label': t('Note on {id} (optional)', { id: approval.id }),
    });
    const base = `/v1/approvals/${approval.kind}/${encodeURIComponent(approval.id)}`;
    const noteBody = () => (note.value.trim() ? { note: note.value.trim() } : {});
    return h(
      'div',
      { class: 'decision' },
      note,
      h(
        'span',
        { class: 'actions' },
        actionButton({
          id: `approve-${key}`,
          label: t('Approve'),
          run: () => post(`${base}/approve`, noteBody()),
          done: (/** @type {ApiRecord} */ answer) =>
            t('{kind} {id}: {status}, {progress} approvals.', {
              kind: kindWords(approval.kind),
              id: approval.id,
              status: label(answer.status),
              progress: progressOf(answer),
            }),
          refresh: load,
          feedback,
        }),
        actionButton({
          id: `reject-${key}`,
          label: t('Reject'),
          danger: true,
          run: () => post(`${base}/reject`, noteBody()),
          done: t('{kind} {id} rejected: it will not be paid.', {
            kind: kindWords(approval.kind),
            id: approval.id,
          }),
          refresh: load,
          feedback,
        }),
      ),
    );
  };

  /** @param {{ approvals: ApiRecord[], nextOffset: number | null }} page */
  const render = ({ approvals, nextOffset }) => {
    if (!approvals.length) return h('p', { id: 'approvals-empty' }, t('Nothing waits for approval.'));
    const pager = h(
      'p',
      { class: 'actions pager' },
      offset > 0
        ? h(
            'a',
            { class: 'button', id: 'previous-page', href: hashAt(Math.max(0, offset - PAGE_SIZE)) },
            t('Previous page'),
          )
        : null,
      nextOffset !== null && nextOffset !== undefined
        ? h('a', { class: 'button', id: 'next-page', href: hashAt(nextOffset) }, t('Next page'))
        : null,
    );
    return [
      table({
        caption: t('Waiting for approval, oldest first'),
        columns: [
          t('What'),
          t('Amount'),
          t('To whom'),
          t('Asked by'),
          t('Why'),
          t('Approvals'),
          t('Expires'),
          t('Decision'),
        ],
        numeric: [1],
        className: 'approvals',
        rows: approvals.map((approval) => [
          h(
            'span',
            { 'data-approval': approval.approvalId },
            `${kindWords(approval.kind)} `,
            h('a', { href: itemHash(approval.kind, approval.id) }, approval.id),
          ),
          vnd(approval.amount),
          serverText(approval.receiver),
          h(
            'span',
            {},
            approval.requestedBy,
            h('span', { class: 'hint' }, ` · ${dateTime(approval.requestedAt)}`),
          ),
          serverText(approval.description) ?? '—',
          h('span', { class: 'approvals-progress' }, progressOf(approval), ' ', statusBadge(approval.status)),
          dateTime(approval.expiresAt),
          decisionCell(approval),
        ]),
      }),
      pager,
    ];
  };

  async function load() {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
    if (kind) params.set('kind', kind);
    try {
      const answer = await request(`/v1/approvals?${params}`);
      const page = { approvals: answer.approvals, nextOffset: answer.nextOffset };
      // Redrawn only when what waits changed, so a note being typed is not wiped by the refresh.
      fillIfChanged(body, page, render);
    } catch (error) {
      fillIfChanged(body, { error: String(error) }, () =>
        errorBox(error, t('The inbox could not be loaded')),
      );
    }
  }
  const loadAll = () => Promise.all([load(), kind === '' && ctx.can('readRuns') ? runsSection.load() : null]);
  void loadAll();
  const timer = setInterval(() => void loadAll(), 5000);
  return () => clearInterval(timer);
}

/** Runs the inbox reads the payee counts of at once: the oldest waiting, a page further is on #/runs. */
const RUNS_SHOWN = 20;

/**
 * Payout runs awaiting approval, oldest first, each with how many of its rows pay a receiver new to the
 * payee directory, a payee changed lately, or a payee whose wallet holds another name, so an approver
 * knows before opening a run what to look at twice.
 */
function runsAwaitingApproval() {
  const body = h('div', { id: 'approval-runs-body' }, h('p', {}, t('Loading…')));
  const element = h(
    'section',
    { id: 'approval-runs', 'aria-labelledby': 'approval-runs-heading' },
    h('h2', { id: 'approval-runs-heading' }, t('Payout runs waiting for approval')),
    body,
  );
  /** @param {ApiRecord[]} runs */
  const render = (runs) => {
    if (!runs.length) return h('p', { id: 'approval-runs-empty' }, t('No payout run waits for approval.'));
    return table({
      caption: t('Payout runs waiting for approval, oldest first; each is decided on its own page'),
      columns: [
        t('Run'),
        t('File'),
        t('Rows'),
        t('Amount'),
        t('Uploaded by'),
        t('Approvals'),
        t('Receivers to check'),
      ],
      numeric: [2, 3],
      className: 'approval-runs',
      rows: runs.map((run) => [
        h('a', { href: `#/runs/${encodeURIComponent(run.runId)}`, 'data-run': run.runId }, run.runId),
        runFileName(run),
        String(run.rowCount),
        vnd(run.totalAmount),
        h('span', {}, run.uploadedBy, h('span', { class: 'hint' }, ` · ${dateTime(run.uploadedAt)}`)),
        t('{given} of {needed}', { given: run.approvals?.given ?? 0, needed: run.approvals?.required ?? 0 }),
        run.payees ? payeeCountsOf(run.payees) : '—',
      ]),
    });
  };
  async function load() {
    try {
      const params = new URLSearchParams({ status: 'awaiting_approval', limit: '200' });
      const { runs } = await request(`/v1/payout-runs?${params}`);
      // The list is newest first; the inbox reads oldest first, as it does every other approval.
      const oldest = /** @type {ApiRecord[]} */ (runs).slice(-RUNS_SHOWN).reverse();
      // The counts are in each run's own answer (GET /v1/payout-runs/:runId, `payees`).
      const views = await Promise.all(
        oldest.map((run) => request(`/v1/payout-runs/${encodeURIComponent(run.runId)}`)),
      );
      fillIfChanged(body, views, () => render(views));
    } catch (error) {
      fillIfChanged(body, { error: String(error) }, () =>
        errorBox(error, t('The payout runs could not be loaded')),
      );
    }
  }
  return { element, load };
}
