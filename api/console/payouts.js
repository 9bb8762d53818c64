/** Payout runs: the list, the upload with its preview, and the live run page. */
import { ApiProblem, newIdempotencyKey, request } from './api.js';
import { announce, fill, fillIfChanged, h, saveBlob, table } from './dom.js';
import { count, dateTime, label, percent, vnd } from './format.js';
import { errorBox, facts, pageHeading, statusBadge, workflowLink } from './ui.js';

const FINAL_RUN_STATUSES = new Set(['reconciled', 'needs_attention', 'rejected', 'expired']);
const ITEM_STATES = ['QUEUED', 'ELIGIBLE', 'INELIGIBLE', 'PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const POLL_MS = 1500;
const ITEMS_PAGE = 100;

/** Runs `tick` now and every `ms` until the returned stop function is called. */
function poll(tick, ms) {
  let stopped = false;
  let timer;
  const loop = async () => {
    if (stopped) return;
    let again = true;
    try {
      again = (await tick()) !== false;
    } catch {
      // A failed poll (server restarting) is retried on the next tick; the page shows the last data.
    }
    if (!stopped && again) timer = setTimeout(loop, ms);
  };
  void loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// ---------------------------------------------------------------- runs list

export function runsPage(main, ctx) {
  const body = h('div', { id: 'runs-list' }, h('p', {}, 'Loading runs…'));
  fill(
    main,
    pageHeading('Payout runs'),
    h('p', {}, 'Newest first. This list refreshes by itself.'),
    ctx.can('upload')
      ? h('p', {}, h('a', { href: '#/upload', class: 'button primary' }, 'Upload a payout file'))
      : null,
    body,
  );
  return poll(async () => {
    try {
      const { runs } = await request('/v1/payout-runs?limit=100');
      fillIfChanged(body, runs, () => runsTable(ctx, runs));
    } catch (error) {
      fillIfChanged(body, { error: error.message }, () => errorBox(error, 'Runs could not be loaded'));
    }
  }, 3000);
}

function runsTable(ctx, runs) {
  if (!runs.length) return h('p', {}, 'No payout runs yet.');
  return table({
    caption: `${runs.length} most recent runs`,
    columns: ['Run', 'File', 'Status', 'Rows', 'Total', 'Uploaded by', 'Uploaded', 'Decided by', 'Workflow'],
    numeric: [3, 4],
    rows: runs.map((run) => [
      h('a', { href: `#/runs/${encodeURIComponent(run.runId)}` }, run.runId),
      run.fileName,
      statusBadge(run.status),
      count(run.rowCount),
      vnd(run.totalAmount),
      run.uploadedBy,
      dateTime(run.uploadedAt),
      run.decidedBy ?? '—',
      workflowLink(ctx.config, run.workflowId, 'Temporal') ?? '—',
    ]),
  });
}

// ---------------------------------------------------------------- upload

export function uploadPage(main, ctx) {
  if (!ctx.can('upload')) {
    fill(main, pageHeading('Upload payouts'), h('p', {}, 'Uploading needs the payouts-maker role.'));
    return;
  }
  /** The file being looked at, with the idempotency key its submission will carry. */
  let current = null;
  const status = h('p', { id: 'upload-status', role: 'status', class: 'status-line' });
  const preview = h('section', { id: 'preview', 'aria-labelledby': 'preview-heading', hidden: true });
  const input = h('input', {
    id: 'payout-file',
    type: 'file',
    accept: '.csv,text/csv',
    'aria-describedby': 'payout-file-hint',
    onchange: () => input.files?.[0] && check(input.files[0]),
  });
  const dropZone = h(
    'div',
    {
      class: 'drop-zone',
      ondragover: (event) => {
        event.preventDefault();
        dropZone.classList.add('dragging');
      },
      ondragleave: () => dropZone.classList.remove('dragging'),
      ondrop: (event) => {
        event.preventDefault();
        dropZone.classList.remove('dragging');
        const file = event.dataTransfer?.files?.[0];
        if (file) void check(file);
      },
    },
    h('label', { for: 'payout-file' }, 'Payout CSV file'),
    h(
      'p',
      { id: 'payout-file-hint', class: 'hint' },
      'Columns: payout_id, wallet_id, wallet_name, personal_id, amount, description, store_id. ',
      'Amounts in whole đồng, plain digits. Choose a file (or drop it here): it is checked first, and nothing is created until you submit.',
    ),
    input,
  );
  fill(main, pageHeading('Upload payouts'), dropZone, status, preview);

  async function check(file) {
    current = { file, idempotencyKey: newIdempotencyKey() };
    const mine = current;
    status.textContent = `Checking ${file.name}…`;
    preview.hidden = true;
    try {
      const report = await request('/v1/payout-runs/dry-run', {
        method: 'POST',
        body: file,
        contentType: 'text/csv',
      });
      if (current !== mine) return; // another file was chosen meanwhile
      status.textContent = report.valid
        ? `${file.name} is valid: ${count(report.rowCount)} rows, ${vnd(report.totalAmount)}. Review and submit.`
        : `${file.name} has errors: nothing can be submitted until they are fixed.`;
      fill(preview, previewOf(report));
    } catch (error) {
      if (current !== mine) return;
      status.textContent = `${file.name} could not be checked.`;
      fill(preview, errorBox(error, 'The file could not be checked'));
    }
    preview.hidden = false;
  }

  function previewOf(report) {
    const { file } = current;
    const errorRows = new Set(report.rowErrors.map((error) => error.row)).size;
    return [
      h('h2', { id: 'preview-heading' }, `Preview of ${file.name}`),
      facts([
        ['Rows', count(report.rowCount)],
        ['Valid rows', count(report.validRowCount)],
        [
          report.valid ? 'Total' : 'Total of the valid rows',
          h('span', { id: 'preview-total' }, vnd(report.totalAmount)),
        ],
        ['Batches', report.valid ? count(report.batchCount) : null],
        ['Rows with errors', report.valid ? null : count(errorRows)],
      ]),
      report.valid ? submitForm() : errorsOf(report),
    ];
  }

  function errorsOf(report) {
    return h(
      'div',
      { class: 'file-errors' },
      report.fileErrors.length
        ? h(
            'div',
            { class: 'error-box' },
            h('h3', {}, 'Problems with the whole file'),
            h(
              'ul',
              {},
              report.fileErrors.map((error) => h('li', {}, h('code', {}, error.rule), ': ', error.message)),
            ),
          )
        : null,
      report.rowErrors.length
        ? table({
            caption: `Invalid rows (${count(report.rowErrors.length)} problems). Row numbers are lines of the file; the header is line 1.`,
            columns: ['Row', 'Column', 'Rule', 'Message'],
            numeric: [0],
            className: 'row-errors',
            rows: report.rowErrors.map((error) => [
              String(error.row),
              error.column ?? '—',
              h('code', {}, error.rule),
              error.message,
            ]),
          })
        : null,
      h(
        'p',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', id: 'download-error-report', onclick: downloadErrorReport },
          'Download error report (CSV)',
        ),
        ' Fix the file and choose it again.',
      ),
    );
  }

  async function downloadErrorReport() {
    const { file } = current;
    try {
      const blob = await request('/v1/payout-runs/dry-run?format=csv', {
        method: 'POST',
        body: file,
        contentType: 'text/csv',
        as: 'blob',
      });
      saveBlob(blob, `${file.name.replace(/\.csv$/i, '')}-errors.csv`);
      announce('Error report downloaded.');
    } catch (error) {
      fill(status, `The error report could not be downloaded: ${error.message}`);
    }
  }

  function submitForm() {
    const feedback = h('div');
    const button = h('button', { type: 'submit', class: 'primary', id: 'submit-run' }, 'Submit for approval');
    return h(
      'form',
      {
        class: 'actions',
        onsubmit: async (event) => {
          event.preventDefault();
          const { file, idempotencyKey } = current;
          button.disabled = true;
          fill(feedback, h('p', { role: 'status' }, 'Submitting…'));
          try {
            const run = await request(`/v1/payout-runs?fileName=${encodeURIComponent(file.name)}`, {
              method: 'POST',
              body: file,
              contentType: 'text/csv',
              // The same key for the same file: a double click or a retry after a timeout creates one run.
              headers: { 'idempotency-key': idempotencyKey },
            });
            announce(`Run ${run.runId} created; it waits for approval.`);
            ctx.navigate(`#/runs/${encodeURIComponent(run.runId)}`);
          } catch (error) {
            button.disabled = false;
            fill(feedback, errorBox(error, 'The run was not created'));
          }
        },
      },
      h('p', {}, 'The run will wait for a second person with the approver role before anything is paid.'),
      button,
      feedback,
    );
  }
}

// ---------------------------------------------------------------- run page

export function runPage(main, ctx, runId) {
  const live = h('p', { id: 'run-live', role: 'status', class: 'status-line' }, 'Loading…');
  const summary = h('section', { id: 'run-summary', 'aria-label': 'Summary' });
  const actions = h('section', { id: 'run-actions', 'aria-label': 'Decision' });
  const progress = h('section', { id: 'run-progress', 'aria-labelledby': 'progress-heading' });
  const reconciliation = h('section', {
    id: 'run-reconciliation',
    'aria-labelledby': 'reconciliation-heading',
  });
  const batches = h('section', { id: 'run-batches', 'aria-labelledby': 'batches-heading' });
  const items = itemsSection(runId);
  const problem = h('div');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/runs' }, '← All payout runs')),
    pageHeading(`Payout run ${runId}`),
    live,
    problem,
    summary,
    actions,
    progress,
    reconciliation,
    batches,
    items.element,
  );

  let view = null;
  const refresh = async () => {
    try {
      view = await request(`/v1/payout-runs/${encodeURIComponent(runId)}`);
      fill(problem);
    } catch (error) {
      fillIfChanged(problem, { error: error.message }, () => errorBox(error, 'The run could not be loaded'));
      if (error instanceof ApiProblem && error.status === 404) return false;
      return true;
    }
    const final = FINAL_RUN_STATUSES.has(view.status);
    const liveText =
      `Status: ${label(view.status)}. ${count(view.progress.done)} of ${count(view.progress.total)} items finished.` +
      (final ? '' : ' Updating live.');
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
    await items.refresh(view);
    // A final run changes no more: stop asking.
    return !final;
  };
  return poll(refresh, POLL_MS);
}

function summaryOf(ctx, view) {
  const decidedTerm =
    view.status === 'rejected' ? 'Rejected by' : view.status === 'expired' ? 'Decided by' : 'Approved by';
  return [
    facts([
      ['Status', h('span', { id: 'run-status' }, statusBadge(view.status))],
      ['Why', view.statusReason],
      ['File', view.fileName],
      ['Rows', count(view.rowCount)],
      ['Total', vnd(view.totalAmount)],
      ['Uploaded by', h('span', { id: 'uploaded-by' }, view.uploadedBy)],
      ['Uploaded', dateTime(view.uploadedAt)],
      [decidedTerm, h('span', { id: 'decided-by' }, view.decidedBy ?? 'not yet')],
      ['Decided', view.decidedAt ? dateTime(view.decidedAt) : null],
      ['Note', view.decisionNote],
      ['Approval expires', view.status === 'awaiting_approval' ? dateTime(view.expiresAt) : null],
      ['Completed', view.completedAt ? dateTime(view.completedAt) : null],
      ['Workflow', workflowLink(ctx.config, view.workflowId, view.workflowId)],
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
            const button = event.currentTarget;
            button.disabled = true;
            try {
              // A plain link cannot carry the Authorization header, so the page fetches the file itself.
              const blob = await request(`/v1/payout-runs/${encodeURIComponent(view.runId)}/results.csv`, {
                as: 'blob',
              });
              saveBlob(blob, `${view.runId}-results.csv`);
              announce('Results downloaded.');
            } catch (error) {
              announce(`Results could not be downloaded: ${error.message}`);
            } finally {
              button.disabled = false;
            }
          },
        },
        'Download results (CSV)',
      ),
    ),
  ];
}

function actionsOf(ctx, view, refresh) {
  const feedback = h('div', { class: 'decision-feedback' });
  const act = async (path, body, doneMessage) => {
    fill(feedback, h('p', { role: 'status' }, 'Sending…'));
    try {
      await request(`/v1/payout-runs/${encodeURIComponent(view.runId)}/${path}`, { method: 'POST', body });
      fill(feedback);
      announce(doneMessage);
      refresh();
    } catch (error) {
      fill(feedback, errorBox(error, 'The decision was not recorded'));
    }
  };

  if (view.status === 'awaiting_funds' && ctx.can('decide')) {
    return [
      h('h2', {}, 'Waiting for funds'),
      h('p', {}, 'The merchant balance was too low. Top it up at the gateway, then resume.'),
      h(
        'button',
        { type: 'button', class: 'primary', onclick: () => act('resume', {}, 'Run resumed.') },
        'Resume run',
      ),
      feedback,
    ];
  }
  if (view.status !== 'awaiting_approval') return [];
  if (!ctx.can('decide')) {
    return [h('p', { class: 'note' }, 'This run waits for a person with the approver role.')];
  }
  // The API refuses too; hiding the buttons saves the approver a pointless click.
  if (view.uploadedBy === ctx.me.name) {
    return [h('p', { class: 'note' }, 'You uploaded this run, so another approver must decide it.')];
  }
  const note = h('textarea', { id: 'decision-note', rows: '2', maxlength: '500' });
  return [
    h('h2', {}, 'Decide'),
    h(
      'p',
      {},
      `Uploaded by ${view.uploadedBy}: ${count(view.rowCount)} payouts, ${vnd(view.totalAmount)}. `,
      'Approving starts payment at once.',
    ),
    h('label', { for: 'decision-note' }, 'Note (optional, recorded with the decision)'),
    note,
    h(
      'p',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'primary',
          id: 'approve-run',
          onclick: () =>
            act('approve', note.value ? { note: note.value } : {}, 'Run approved; payment started.'),
        },
        'Approve and pay',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          id: 'reject-run',
          onclick: () =>
            act('reject', note.value ? { note: note.value } : {}, 'Run rejected; nothing will be paid.'),
        },
        'Reject',
      ),
    ),
    feedback,
  ];
}

function progressBar(id, labelText, { done, total }) {
  return h(
    'div',
    { class: 'progress' },
    h('label', { for: id }, labelText),
    h('progress', { id, max: Math.max(total, 1), value: done }, `${percent(done, total)}%`),
    h('span', { class: 'progress-text' }, `${count(done)} of ${count(total)} (${percent(done, total)}%)`),
  );
}

function countsTable(counts, caption) {
  const states = ITEM_STATES.filter((state) => counts?.[state]);
  if (!states.length) return h('p', {}, 'No items yet.');
  const total = states.reduce(
    (sum, state) => ({ count: sum.count + counts[state].count, amount: sum.amount + counts[state].amount }),
    { count: 0, amount: 0 },
  );
  return table({
    caption,
    columns: ['State', 'Items', 'Amount'],
    numeric: [1, 2],
    className: 'counts compact',
    rows: [
      ...states.map((state) => [label(state), count(counts[state].count), vnd(counts[state].amount)]),
      ['All', count(total.count), vnd(total.amount)],
    ],
  });
}

function progressOf(view) {
  return [
    h('h2', { id: 'progress-heading' }, 'Progress'),
    progressBar('run-progress-bar', 'Items finished in this run', view.progress),
    countsTable(view.counts, 'Items and amounts per state'),
  ];
}

function reconciliationOf(view) {
  const result = view.reconciliation;
  if (!result) {
    return [
      h('h2', { id: 'reconciliation-heading' }, 'Reconciliation'),
      h('p', {}, 'Reconciled when every batch has finished.'),
    ];
  }
  return [
    h('h2', { id: 'reconciliation-heading' }, 'Reconciliation'),
    h(
      'p',
      { class: result.balanced ? 'outcome good' : 'outcome bad', id: 'reconciliation-outcome' },
      result.balanced
        ? 'Balanced: the gateway and payrun agree on every row and amount.'
        : 'Not balanced: see the differences below.',
    ),
    table({
      caption: 'Uploaded, accounted for, and what the gateway reports',
      className: 'compact',
      columns: ['Source', 'Items', 'Amount'],
      numeric: [1, 2],
      rows: [
        ['Uploaded', count(result.uploaded?.count), vnd(result.uploaded?.amount)],
        ['Accounted for (final or pending)', count(result.accounted?.count), vnd(result.accounted?.amount)],
        ['Gateway: uploaded', count(result.gateway?.count), vnd(result.gateway?.amount)],
        ['Gateway: paid', count(result.gateway?.succeeded), vnd(result.gateway?.succeededAmount)],
      ],
    }),
    result.differences?.length
      ? h(
          'div',
          {},
          h('h3', {}, 'Differences'),
          h(
            'ul',
            {},
            result.differences.map((text) => h('li', {}, text)),
          ),
        )
      : null,
  ];
}

function batchesOf(ctx, view) {
  return [
    h('h2', { id: 'batches-heading' }, `Batches (${view.batches.length})`),
    table({
      caption: 'One gateway batch per up to 1,000 rows',
      columns: ['Batch', 'Status', 'Progress', 'Items', 'Amount', 'Per state', 'Workflow'],
      numeric: [3, 4],
      className: 'batches',
      rows: view.batches.map((batch) => [
        batch.batchId,
        h(
          'span',
          {},
          statusBadge(batch.status),
          batch.statusReason ? h('span', { class: 'hint' }, ` ${batch.statusReason}`) : null,
        ),
        progressBar(`batch-progress-${batch.seq}`, `Batch ${batch.seq} items finished`, batch.progress),
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
        workflowLink(ctx.config, batch.workflowId, 'Temporal') ?? '—',
      ]),
    }),
  ];
}

/** The items table with its state filter and pages; refreshed with the run while it is live. */
function itemsSection(runId) {
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
    h('option', { value: '' }, 'All states'),
    ITEM_STATES.map((value) => h('option', { value }, label(value))),
  );
  const element = h(
    'section',
    { id: 'run-items', 'aria-labelledby': 'items-heading' },
    h('h2', { id: 'items-heading' }, 'Items'),
    h('div', { class: 'filter' }, h('label', { for: 'item-state' }, 'Show items in state'), select),
    body,
  );

  async function load() {
    const query = new URLSearchParams({ limit: String(ITEMS_PAGE), offset: String(offset) });
    if (state) query.set('state', state);
    try {
      const { items } = await request(`/v1/payout-runs/${encodeURIComponent(runId)}/items?${query}`);
      fillIfChanged(body, { items, state, offset }, () => itemsTable(items));
    } catch (error) {
      fillIfChanged(body, { error: error.message }, () => errorBox(error, 'Items could not be loaded'));
    }
  }

  function itemsTable(items) {
    const pager = h(
      'p',
      { class: 'actions' },
      offset > 0
        ? h(
            'button',
            { type: 'button', onclick: () => ((offset -= ITEMS_PAGE), void load()) },
            'Previous page',
          )
        : null,
      items.length === ITEMS_PAGE
        ? h('button', { type: 'button', onclick: () => ((offset += ITEMS_PAGE), void load()) }, 'Next page')
        : null,
    );
    if (!items.length) return h('p', {}, state ? `No items in state ${label(state)}.` : 'No items.');
    return [
      table({
        caption: `Items ${count(offset + 1)}–${count(offset + items.length)}${state ? `, state ${label(state)}` : ''}`,
        columns: ['Row', 'Payout id', 'Receiver', 'Amount', 'State', 'Result', 'Gateway transaction'],
        numeric: [0, 3],
        className: 'items',
        rows: items.map((item) => [
          String(item.row),
          item.payoutId,
          item.walletName,
          vnd(item.amount),
          statusBadge(item.state),
          [item.resultCode, item.message]
            .filter((part) => part !== null && part !== undefined && part !== '')
            .join(' · ') || '—',
          item.transId ?? '—',
        ]),
      }),
      pager,
    ];
  }

  return { element, refresh: () => load() };
}
