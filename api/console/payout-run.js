// @ts-check
/**
 * A payout run's own page, live: status and why, who uploaded and who decided, the decision (approve
 * or reject, never by the uploader; resume after a top-up), a progress bar for the run and for each
 * batch, items and amounts per state, the reconciliation, and the items table by state. It polls
 * every 1.5 s until the run is final.
 */
import { ApiProblem, request } from './api.js';
import { announce, fill, fillIfChanged, h, saveBlob, table } from './dom.js';
import { count, dateTime, label, percent, runFileName, vnd } from './format.js';
import { t } from './i18n.js';
import { ITEM_STATES, itemsSection } from './payout-run-items.js';
import { errorBox, facts, pageHeading, poll, statusBadge, workflowLink } from './ui.js';
import { serverText } from './server-text.js';
import { draftEditor, familySection, retryAction } from './payout-run-retries.js';
import { payeeCountsOf } from './payee-flags.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */

const FINAL_RUN_STATUSES = new Set(['reconciled', 'needs_attention', 'rejected', 'expired']);
const POLL_MS = 1500;

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @param {string} runId
 */
export function runPage(main, ctx, runId) {
  const live = h('p', { id: 'run-live', role: 'status', class: 'status-line' }, t('Loading…'));
  const summary = h('section', { id: 'run-summary', 'aria-label': t('Summary') });
  const actions = h('section', { id: 'run-actions', 'aria-label': t('Decision') });
  const progress = h('section', { id: 'run-progress', 'aria-labelledby': 'progress-heading' });
  const reconciliation = h('section', {
    id: 'run-reconciliation',
    'aria-labelledby': 'reconciliation-heading',
  });
  const batches = h('section', { id: 'run-batches', 'aria-labelledby': 'batches-heading' });
  const retries = h('section', { id: 'run-retries', 'aria-label': t('Retries') });
  const family = h('section', { id: 'run-family-section', 'aria-label': t('Retries of this run') });
  const items = itemsSection(runId);
  const problem = h('div');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/runs' }, `← ${t('All payout runs')}`)),
    pageHeading(t('Payout run {id}', { id: runId })),
    live,
    problem,
    summary,
    actions,
    retries,
    progress,
    reconciliation,
    family,
    batches,
    items.element,
  );

  /** @returns {Promise<boolean>} whether to ask again */
  const refresh = async () => {
    /** @type {ApiRecord} */
    let view;
    try {
      view = await request(`/v1/payout-runs/${encodeURIComponent(runId)}`);
      fill(problem);
    } catch (error) {
      fillIfChanged(problem, { error: String(error) }, () =>
        errorBox(error, t('The run could not be loaded')),
      );
      if (error instanceof ApiProblem && error.status === 404) return false;
      return true;
    }
    const final = FINAL_RUN_STATUSES.has(view.status);
    const liveText =
      t('Status: {status}. {done} of {total} items finished.', {
        status: label(view.status),
        done: count(view.progress.done),
        total: count(view.progress.total),
      }) + (final ? '' : ' ' + t('Updating live.'));
    if (live.textContent !== liveText) live.textContent = liveText;
    // Only what the summary shows: progress ticks must not rebuild it (and drop the focus on its button).
    const { progress: _p, counts: _c, batches: _b, reconciliation: _r, ...summaryFields } = view;
    fillIfChanged(summary, summaryFields, () => summaryOf(ctx, view));
    fillIfChanged(actions, { status: view.status, uploadedBy: view.uploadedBy }, () =>
      actionsOf(ctx, view, () => void refresh()),
    );
    fillIfChanged(progress, { progress: view.progress, counts: view.counts }, () => progressOf(view));
    fillIfChanged(reconciliation, view.reconciliation, () => reconciliationOf(view));
    fillIfChanged(batches, view.batches, () => batchesOf(ctx, view));
    // The retry action, or the draft's editor (loaded once per status: a poll must not drop what is typed).
    fillIfChanged(retries, { status: view.status, counts: view.counts }, () =>
      view.status === 'draft' ? draftEditor(ctx, view, refresh) : retryAction(ctx, view),
    );
    fillIfChanged(family, view.children, () => familySection(view));
    await items.refresh();
    // A final run changes no more: stop asking.
    return !final;
  };
  return poll(refresh, POLL_MS);
}

/**
 * @param {Ctx} ctx
 * @param {ApiRecord} view
 */
function summaryOf(ctx, view) {
  const decidedTerm =
    view.status === 'rejected'
      ? t('Rejected by')
      : view.status === 'expired'
        ? t('Decided by')
        : t('Approved by');
  return [
    facts([
      [t('Status'), h('span', { id: 'run-status' }, statusBadge(view.status))],
      [t('Why'), serverText(view.statusReason)],
      [t('File'), runFileName(view)],
      [
        t('Retry of'),
        view.parentRunId
          ? h(
              'a',
              { href: `#/runs/${encodeURIComponent(view.parentRunId)}`, id: 'parent-run' },
              view.parentRunId,
            )
          : null,
      ],
      [
        t('Recurring payout'),
        // A run an occurrence made leads back to its schedule, with the occurrence it paid for.
        view.scheduleId
          ? h(
              'span',
              {},
              h(
                'a',
                { href: `#/payout-schedules/${encodeURIComponent(view.scheduleId)}`, id: 'run-schedule' },
                view.scheduleId,
              ),
              ' · ',
              t('occurrence of {at}', { at: dateTime(view.occurrenceAt) }),
            )
          : null,
      ],
      [t('Rows'), count(view.rowCount)],
      [t('Total'), vnd(view.totalAmount)],
      [t('Uploaded by'), h('span', { id: 'uploaded-by' }, view.uploadedBy)],
      [t('Uploaded'), dateTime(view.uploadedAt)],
      [
        t('Approvals given'),
        view.approvals
          ? h(
              'span',
              { id: 'run-approvals' },
              t('{given} of {required}', view.approvals) +
                (view.approvals.approvedBy.length ? ` (${view.approvals.approvedBy.join(', ')})` : ''),
            )
          : null,
      ],
      [
        t('Receivers to check'),
        // The approver's flags: receivers not in the payee directory, payees changed lately, name mismatches.
        view.payees ? h('span', { id: 'run-payees' }, payeeCountsOf(view.payees)) : null,
      ],
      [decidedTerm, h('span', { id: 'decided-by' }, view.decidedBy ?? t('not yet'))],
      [t('Decided'), view.decidedAt ? dateTime(view.decidedAt) : null],
      [t('Note'), view.decisionNote],
      [t('Approval expires'), view.status === 'awaiting_approval' ? dateTime(view.expiresAt) : null],
      [t('Pays at'), view.executeAt ? h('span', { id: 'run-execute-at' }, dateTime(view.executeAt)) : null],
      [t('Warnings before its time'), scheduleWarningsOf(view)],
      [t('Completed'), view.completedAt ? dateTime(view.completedAt) : null],
      [t('Workflow'), workflowLink(ctx.config, view.workflowId, view.workflowId)],
    ]),
    h(
      'p',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          id: 'download-results',
          onclick: async (event) => {
            const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
            button.disabled = true;
            try {
              // A plain link cannot carry the Authorization header, so the page fetches the file itself.
              const blob = await request(`/v1/payout-runs/${encodeURIComponent(view.runId)}/results.csv`, {
                as: 'blob',
              });
              saveBlob(blob, `${view.runId}-results.csv`);
              announce(t('Results downloaded.'));
            } catch (error) {
              announce(t('Results could not be downloaded: {message}', { message: messageOf(error) }));
            } finally {
              button.disabled = false;
            }
          },
        },
        t('Download results (CSV)'),
      ),
    ),
  ];
}

/**
 * @param {Ctx} ctx
 * @param {ApiRecord} view
 * @param {() => void} refresh
 */
function actionsOf(ctx, view, refresh) {
  const feedback = h('div', { class: 'decision-feedback' });
  /**
   * @param {string} path
   * @param {ApiRecord} body
   * @param {string} doneMessage
   */
  const act = async (path, body, doneMessage) => {
    fill(feedback, h('p', { role: 'status' }, t('Sending…')));
    try {
      await request(`/v1/payout-runs/${encodeURIComponent(view.runId)}/${path}`, { method: 'POST', body });
      fill(feedback);
      announce(doneMessage);
      refresh();
    } catch (error) {
      fill(feedback, errorBox(error, t('The decision was not recorded')));
    }
  };

  if (view.status === 'awaiting_funds' && ctx.can('decide')) {
    return [
      h('h2', {}, t('Waiting for funds')),
      h('p', {}, t('The merchant balance was too low. Top it up at the gateway, then resume.')),
      h(
        'button',
        { type: 'button', class: 'primary', onclick: () => act('resume', {}, t('Run resumed.')) },
        t('Resume run'),
      ),
      feedback,
    ];
  }
  if (view.status === 'scheduled' && ctx.can('decide')) {
    return [
      h('h2', {}, t('Scheduled')),
      h(
        'p',
        {},
        t('This run pays at {time}. It can be cancelled until then.', { time: dateTime(view.executeAt) }),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          id: 'cancel-run',
          onclick: () => act('cancel', {}, t('Run cancelled; nothing will be paid.')),
        },
        t('Cancel scheduled run'),
      ),
      feedback,
    ];
  }
  if (view.status !== 'awaiting_approval') return [];
  if (!ctx.can('decide')) {
    return [h('p', { class: 'note' }, t('This run waits for a person with the approver role.'))];
  }
  // The API refuses too; hiding the buttons saves the approver a pointless click.
  if (view.uploadedBy === ctx.me?.name) {
    return [h('p', { class: 'note' }, t('You uploaded this run, so another approver must decide it.'))];
  }
  const note = h('textarea', { id: 'decision-note', rows: '2', maxlength: '500' });
  // The time is entered in GMT+7 (the finance team's clock), whatever the browser's zone.
  const payAt = h('input', { id: 'pay-at', type: 'datetime-local', 'aria-describedby': 'pay-at-hint' });
  const approval = () => ({
    ...(note.value ? { note: note.value } : {}),
    ...(payAt.value
      ? { executeAt: `${payAt.value.length === 16 ? `${payAt.value}:00` : payAt.value}+07:00` }
      : {}),
  });
  return [
    h('h2', {}, t('Decide')),
    h(
      'p',
      {},
      t('Uploaded by {name}: {rows} payouts, {total}.', {
        name: view.uploadedBy,
        rows: count(view.rowCount),
        total: vnd(view.totalAmount),
      }),
      ' ',
      t('Approving starts payment at once.'),
    ),
    h('label', { for: 'decision-note' }, t('Note (optional, recorded with the decision)')),
    note,
    h('label', { for: 'pay-at' }, t('Pay at (GMT+7, optional)')),
    payAt,
    h('p', { id: 'pay-at-hint', class: 'hint' }, t('Leave empty to pay as soon as the run is approved.')),
    h(
      'p',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'primary',
          id: 'approve-run',
          onclick: () => {
            const body = approval();
            return act(
              'approve',
              body,
              body.executeAt
                ? t('Run approved; it pays at the time chosen.')
                : t('Run approved; payment started.'),
            );
          },
        },
        t('Approve and pay'),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          id: 'reject-run',
          onclick: () =>
            act('reject', note.value ? { note: note.value } : {}, t('Run rejected; nothing will be paid.')),
        },
        t('Reject'),
      ),
    ),
    feedback,
  ];
}

/**
 * What the check ahead of a scheduled run found, in words; nothing when it found nothing.
 * @param {ApiRecord} view
 */
function scheduleWarningsOf(view) {
  const warnings =
    /** @type {{ fundsShort?: ApiRecord | null, receivers?: ApiRecord | null } | undefined} */ (
      view.scheduleWarnings
    );
  const lines = [];
  if (warnings?.fundsShort)
    lines.push(
      t('Balance short: {balance} for {needed} needed.', {
        balance: vnd(warnings.fundsShort.balance),
        needed: vnd(warnings.fundsShort.needed),
      }),
    );
  if (warnings?.receivers)
    lines.push(
      t('Receivers refused by the wallet check: {count}.', {
        count: count(warnings.receivers.receiversRefused),
      }),
    );
  return lines.length
    ? h('span', { id: 'run-schedule-warnings', class: 'badge badge-warn' }, lines.join(' '))
    : null;
}

/**
 * @param {string} id
 * @param {string} labelText
 * @param {{ done: number, total: number }} progress
 */
function progressBar(id, labelText, { done, total }) {
  return h(
    'div',
    { class: 'progress' },
    h('label', { for: id }, labelText),
    h('progress', { id, max: Math.max(total, 1), value: done }, `${percent(done, total)}%`),
    h(
      'span',
      { class: 'progress-text' },
      t('{done} of {total} ({percent}%)', {
        done: count(done),
        total: count(total),
        percent: percent(done, total),
      }),
    ),
  );
}

/** @typedef {Record<string, { count: number, amount: number }>} StateCounts */

/**
 * @param {StateCounts | undefined} counts
 * @param {string} caption
 */
function countsTable(counts, caption) {
  const states = ITEM_STATES.filter((state) => counts?.[state]);
  if (!counts || !states.length) return h('p', {}, t('No items yet.'));
  const total = states.reduce(
    (sum, state) => ({ count: sum.count + counts[state].count, amount: sum.amount + counts[state].amount }),
    { count: 0, amount: 0 },
  );
  return table({
    caption,
    columns: [t('State'), t('Items'), t('Amount')],
    numeric: [1, 2],
    className: 'counts compact',
    rows: [
      ...states.map((state) => [label(state), count(counts[state].count), vnd(counts[state].amount)]),
      [t('All'), count(total.count), vnd(total.amount)],
    ],
  });
}

/** @param {ApiRecord} view */
function progressOf(view) {
  return [
    h('h2', { id: 'progress-heading' }, t('Progress')),
    progressBar('run-progress-bar', t('Items finished in this run'), view.progress),
    countsTable(view.counts, t('Items and amounts per state')),
  ];
}

/** @param {ApiRecord} view */
function reconciliationOf(view) {
  const result = view.reconciliation;
  if (!result) {
    return [
      h('h2', { id: 'reconciliation-heading' }, t('Reconciliation')),
      h('p', {}, t('Reconciled when every batch has finished.')),
    ];
  }
  return [
    h('h2', { id: 'reconciliation-heading' }, t('Reconciliation')),
    h(
      'p',
      { class: result.balanced ? 'outcome good' : 'outcome bad', id: 'reconciliation-outcome' },
      result.balanced
        ? t('Balanced: the gateway and payrun agree on every row and amount.')
        : t('Not balanced: see the differences below.'),
    ),
    table({
      caption: t('Uploaded, accounted for, and what the gateway reports'),
      className: 'compact',
      columns: [t('Source'), t('Items'), t('Amount')],
      numeric: [1, 2],
      rows: [
        [t('Uploaded'), count(result.uploaded?.count), vnd(result.uploaded?.amount)],
        [
          t('Accounted for (final or pending)'),
          count(result.accounted?.count),
          vnd(result.accounted?.amount),
        ],
        [t('Gateway: uploaded'), count(result.gateway?.count), vnd(result.gateway?.amount)],
        [t('Gateway: paid'), count(result.gateway?.succeeded), vnd(result.gateway?.succeededAmount)],
      ],
    }),
    result.differences?.length
      ? h(
          'div',
          {},
          h('h3', {}, t('Differences')),
          h(
            'ul',
            {},
            result.differences.map((/** @type {string} */ text) => h('li', {}, text)),
          ),
        )
      : null,
  ];
}

/**
 * @param {Ctx} ctx
 * @param {ApiRecord} view
 */
function batchesOf(ctx, view) {
  return [
    h('h2', { id: 'batches-heading' }, t('Batches ({n})', { n: view.batches.length })),
    table({
      caption: t('One gateway batch per up to 1,000 rows'),
      columns: [
        t('Batch'),
        t('Status'),
        t('Progress'),
        t('Items'),
        t('Amount'),
        t('Per state'),
        t('Workflow'),
      ],
      numeric: [3, 4],
      className: 'batches',
      rows: view.batches.map((/** @type {ApiRecord} */ batch) => [
        batch.batchId,
        h(
          'span',
          {},
          statusBadge(batch.status),
          batch.statusReason ? h('span', { class: 'hint' }, ' ', serverText(batch.statusReason)) : null,
        ),
        progressBar(
          `batch-progress-${batch.seq}`,
          t('Batch {n} items finished', { n: batch.seq }),
          batch.progress,
        ),
        count(batch.itemCount),
        vnd(batch.totalAmount),
        h(
          'ul',
          { class: 'plain' },
          ITEM_STATES.filter((state) => batch.counts?.[state]).map((state) =>
            h(
              'li',
              {},
              `${label(state)}: ${count(batch.counts[state].count)} · ${vnd(batch.counts[state].amount)}`,
            ),
          ),
        ),
        workflowLink(ctx.config, batch.workflowId, t('Temporal')) ?? '—',
      ]),
    }),
  ];
}

/** @param {unknown} error */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}
