/** Payout runs: the list, the upload with its preview, and the live run page. */
import { ApiProblem, newIdempotencyKey, request } from './api.js';
import { announce, fill, fillIfChanged, h, saveBlob, table } from './dom.js';
import { count, dateTime, label, percent, vnd } from './format.js';
import { t } from './i18n.js';
import { errorBox, facts, pageHeading, ruleText, statusBadge, workflowLink } from './ui.js';

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

/** The runs list is the shared list page; a run's own page is the live one below. */
export const runsResource = {
  name: 'runs',
  title: () => t('Payout runs'),
  intro: () => t('Newest first. This list refreshes by itself.'),
  endpoint: '/v1/payout-runs',
  key: 'runs',
  searchLabel: () => t('Search by run id or file name'),
  statuses: [
    'awaiting_approval',
    'running',
    'awaiting_funds',
    'reconciled',
    'needs_attention',
    'rejected',
    'expired',
  ],
  idOf: (run) => run.runId,
  listExtras: (ctx) =>
    ctx.can('upload')
      ? h('p', {}, h('a', { href: '#/upload', class: 'button primary' }, t('Upload a payout file')))
      : null,
  columns: [
    { label: () => t('Run'), value: () => null },
    { label: () => t('File'), value: (run) => run.fileName },
    { label: () => t('Status'), value: (run) => statusBadge(run.status) },
    { label: () => t('Rows'), value: (run) => count(run.rowCount), numeric: true },
    { label: () => t('Total'), value: (run) => vnd(run.totalAmount), numeric: true },
    { label: () => t('Uploaded by'), value: (run) => run.uploadedBy },
    { label: () => t('Uploaded'), value: (run) => dateTime(run.uploadedAt) },
    { label: () => t('Decided by'), value: (run) => run.decidedBy ?? '—' },
    {
      label: () => t('Workflow'),
      value: (run, ctx) => workflowLink(ctx.config, run.workflowId, 'Temporal') ?? '—',
    },
  ],
};

// ---------------------------------------------------------------- upload

export function uploadPage(main, ctx) {
  if (!ctx.can('upload')) {
    fill(main, pageHeading(t('Upload payouts')), h('p', {}, t('Uploading needs the payouts-maker role.')));
    return;
  }
  /** The file being looked at, its chosen sheet, and the idempotency key its submission will carry. */
  let current = null;
  const status = h('p', { id: 'upload-status', role: 'status', class: 'status-line' });
  const preview = h('section', { id: 'preview', 'aria-labelledby': 'preview-heading', hidden: true });
  const input = h('input', {
    id: 'payout-file',
    type: 'file',
    accept: '.csv,.txt,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
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
    h('label', { for: 'payout-file' }, t('Payout file (CSV or Excel .xlsx)')),
    h(
      'p',
      { id: 'payout-file-hint', class: 'hint' },
      t(
        'Columns: payout_id, wallet_id, wallet_name, personal_id, amount, description, store_id (Vietnamese or English names are recognised, e.g. Số ví, Số tiền). CSV separated by commas, semicolons or tabs.',
      ),
      ' ',
      t('Choose a file (or drop it here): it is checked first, and nothing is created until you submit.'),
    ),
    input,
    h(
      'p',
      { class: 'actions' },
      t('Start from a template:'),
      ' ',
      templateButton('csv', t('Template (CSV)')),
      templateButton('xlsx', t('Template (Excel)')),
    ),
  );
  fill(main, pageHeading(t('Upload payouts')), dropZone, status, preview);

  function templateButton(format, text) {
    return h(
      'button',
      {
        type: 'button',
        id: `template-${format}`,
        onclick: async () => {
          try {
            const blob = await request(`/v1/payout-runs/template.${format}`, { as: 'blob' });
            saveBlob(blob, `payout-template.${format}`);
            announce(t('Template downloaded.'));
          } catch (error) {
            fill(status, errorBox(error, t('The template could not be downloaded')));
          }
        },
      },
      text,
    );
  }

  const sheetQuery = () => (current?.sheet ? `sheet=${encodeURIComponent(current.sheet)}` : '');

  async function check(file, sheet) {
    current = { file, sheet, idempotencyKey: newIdempotencyKey() };
    const mine = current;
    status.textContent = t('Checking {file}…', { file: file.name });
    preview.hidden = true;
    try {
      const query = sheetQuery();
      const report = await request(`/v1/payout-runs/dry-run${query ? `?${query}` : ''}`, {
        method: 'POST',
        body: file,
        contentType: 'application/octet-stream',
      });
      if (current !== mine) return; // another file was chosen meanwhile
      status.textContent = report.valid
        ? t('{file} is valid: {rows} rows, {total}. Review and submit.', {
            file: file.name,
            rows: count(report.rowCount),
            total: vnd(report.totalAmount),
          })
        : t('{file} has errors: nothing can be submitted until they are fixed.', { file: file.name });
      fill(preview, previewOf(report));
    } catch (error) {
      if (current !== mine) return;
      status.textContent = t('{file} could not be checked.', { file: file.name });
      fill(preview, errorBox(error, t('The file could not be checked')));
    }
    preview.hidden = false;
  }

  /** How the file was read: the separator or the sheet (with a choice of the others), and the columns. */
  function sourceOf(source) {
    if (!source) return null;
    const separators = { comma: t('comma (,)'), semicolon: t('semicolon (;)'), tab: t('tab') };
    const sheetChoice =
      source.sheets && source.sheets.length > 1
        ? h(
            'span',
            { class: 'filter' },
            h('label', { for: 'sheet-choice', class: 'visually-hidden' }, t('Sheet')),
            h(
              'select',
              {
                id: 'sheet-choice',
                onchange: (event) => void check(current.file, event.currentTarget.value),
              },
              source.sheets.map((name) =>
                h('option', { value: name, selected: name === source.sheet }, name),
              ),
            ),
          )
        : null;
    return facts([
      [t('Format'), h('span', { id: 'preview-format' }, source.format === 'xlsx' ? 'Excel (.xlsx)' : 'CSV')],
      [
        t('Separator'),
        source.separator ? h('span', { id: 'preview-separator' }, separators[source.separator]) : null,
      ],
      [t('Sheet'), source.sheet ? (sheetChoice ?? h('span', { id: 'preview-sheet' }, source.sheet)) : null],
      [
        t('Columns read'),
        source.columns?.length
          ? h(
              'ul',
              { class: 'plain', id: 'preview-columns' },
              source.columns.map(({ header, column }) =>
                h('li', {}, header === column ? column : `${header} → ${column}`),
              ),
            )
          : null,
      ],
    ]);
  }

  function previewOf(report) {
    const { file } = current;
    const errorRows = new Set(report.rowErrors.map((error) => error.row)).size;
    return [
      h('h2', { id: 'preview-heading' }, t('Preview of {file}', { file: file.name })),
      sourceOf(report.source),
      facts([
        [t('Rows'), count(report.rowCount)],
        [t('Valid rows'), count(report.validRowCount)],
        [
          report.valid ? t('Total') : t('Total of the valid rows'),
          h('span', { id: 'preview-total' }, vnd(report.totalAmount)),
        ],
        [t('Batches'), report.valid ? count(report.batchCount) : null],
        [t('Rows with errors'), report.valid ? null : count(errorRows)],
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
            { class: 'error-box', id: 'file-errors' },
            h('h3', {}, t('Problems with the whole file')),
            h(
              'ul',
              {},
              report.fileErrors.map((error) =>
                h(
                  'li',
                  { 'data-rule': error.rule },
                  h('code', {}, error.rule),
                  ': ',
                  ruleText(error.rule, error.message),
                ),
              ),
            ),
          )
        : null,
      report.rowErrors.length
        ? table({
            caption: t(
              'Invalid rows ({n} problems). Row numbers are those of the file or sheet; the header is row 1.',
              { n: count(report.rowErrors.length) },
            ),
            columns: [t('Row'), t('Column'), t('Rule'), t('Message')],
            numeric: [0],
            className: 'row-errors',
            rows: report.rowErrors.map((error) => [
              String(error.row),
              error.column ?? '—',
              h('code', {}, error.rule),
              ruleText(error.rule, error.message),
            ]),
          })
        : null,
      h(
        'p',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', id: 'download-error-report', onclick: downloadErrorReport },
          t('Download error report (CSV)'),
        ),
        ' ',
        t('Fix the file and choose it again.'),
      ),
    );
  }

  async function downloadErrorReport() {
    const { file } = current;
    try {
      const query = sheetQuery();
      const blob = await request(`/v1/payout-runs/dry-run?format=csv${query ? `&${query}` : ''}`, {
        method: 'POST',
        body: file,
        contentType: 'application/octet-stream',
        as: 'blob',
      });
      saveBlob(blob, `${file.name.replace(/\.(csv|txt|xlsx)$/i, '')}-errors.csv`);
      announce(t('Error report downloaded.'));
    } catch (error) {
      fill(status, t('The error report could not be downloaded: {message}', { message: error.message }));
    }
  }

  function submitForm() {
    const feedback = h('div');
    const button = h(
      'button',
      { type: 'submit', class: 'primary', id: 'submit-run' },
      t('Submit for approval'),
    );
    return h(
      'form',
      {
        class: 'actions',
        onsubmit: async (event) => {
          event.preventDefault();
          const { file, idempotencyKey } = current;
          button.disabled = true;
          fill(feedback, h('p', { role: 'status' }, t('Submitting…')));
          try {
            const query = sheetQuery();
            const run = await request(
              `/v1/payout-runs?fileName=${encodeURIComponent(file.name)}${query ? `&${query}` : ''}`,
              {
                method: 'POST',
                body: file,
                contentType: 'application/octet-stream',
                // The same key for the same file: a double click or a retry after a timeout creates one run.
                headers: { 'idempotency-key': idempotencyKey },
              },
            );
            announce(t('Run {id} created; it waits for approval.', { id: run.runId }));
            ctx.navigate(`#/runs/${encodeURIComponent(run.runId)}`);
          } catch (error) {
            button.disabled = false;
            fill(feedback, errorBox(error, t('The run was not created')));
          }
        },
      },
      h('p', {}, t('The run will wait for a second person with the approver role before anything is paid.')),
      button,
      feedback,
    );
  }
}

// ---------------------------------------------------------------- run page

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
  const items = itemsSection(runId);
  const problem = h('div');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/runs' }, '← All payout runs')),
    pageHeading(t('Payout run {id}', { id: runId })),
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
      fillIfChanged(problem, { error: error.message }, () =>
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
    await items.refresh(view);
    // A final run changes no more: stop asking.
    return !final;
  };
  return poll(refresh, POLL_MS);
}

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
      [t('Why'), view.statusReason],
      [t('File'), view.fileName],
      [t('Rows'), count(view.rowCount)],
      [t('Total'), vnd(view.totalAmount)],
      [t('Uploaded by'), h('span', { id: 'uploaded-by' }, view.uploadedBy)],
      [t('Uploaded'), dateTime(view.uploadedAt)],
      [decidedTerm, h('span', { id: 'decided-by' }, view.decidedBy ?? t('not yet'))],
      [t('Decided'), view.decidedAt ? dateTime(view.decidedAt) : null],
      [t('Note'), view.decisionNote],
      [t('Approval expires'), view.status === 'awaiting_approval' ? dateTime(view.expiresAt) : null],
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
            const button = event.currentTarget;
            button.disabled = true;
            try {
              // A plain link cannot carry the Authorization header, so the page fetches the file itself.
              const blob = await request(`/v1/payout-runs/${encodeURIComponent(view.runId)}/results.csv`, {
                as: 'blob',
              });
              saveBlob(blob, `${view.runId}-results.csv`);
              announce(t('Results downloaded.'));
            } catch (error) {
              announce(t('Results could not be downloaded: {message}', { message: error.message }));
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

function actionsOf(ctx, view, refresh) {
  const feedback = h('div', { class: 'decision-feedback' });
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
  if (view.status !== 'awaiting_approval') return [];
  if (!ctx.can('decide')) {
    return [h('p', { class: 'note' }, t('This run waits for a person with the approver role.'))];
  }
  // The API refuses too; hiding the buttons saves the approver a pointless click.
  if (view.uploadedBy === ctx.me.name) {
    return [h('p', { class: 'note' }, t('You uploaded this run, so another approver must decide it.'))];
  }
  const note = h('textarea', { id: 'decision-note', rows: '2', maxlength: '500' });
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
            act('approve', note.value ? { note: note.value } : {}, t('Run approved; payment started.')),
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
  if (!states.length) return h('p', {}, t('No items yet.'));
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

function progressOf(view) {
  return [
    h('h2', { id: 'progress-heading' }, t('Progress')),
    progressBar('run-progress-bar', t('Items finished in this run'), view.progress),
    countsTable(view.counts, t('Items and amounts per state')),
  ];
}

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
            result.differences.map((text) => h('li', {}, text)),
          ),
        )
      : null,
  ];
}

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
      rows: view.batches.map((batch) => [
        batch.batchId,
        h(
          'span',
          {},
          statusBadge(batch.status),
          batch.statusReason ? h('span', { class: 'hint' }, ` ${batch.statusReason}`) : null,
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
      fillIfChanged(body, { error: error.message }, () => errorBox(error, t('Items could not be loaded')));
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
          t('Amount'),
          t('State'),
          t('Result'),
          t('Gateway transaction'),
        ],
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
