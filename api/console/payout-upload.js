// @ts-check
/**
 * Upload a payout file (CSV or .xlsx): it is checked first (a dry run) and previewed — how it was
 * read (separator or sheet, with a choice of sheets), the columns, the count and total, every bad row
 * with its rule in the chosen language and the error report to download — and nothing is created
 * until the maker submits it. Templates (CSV, Excel) download from here.
 */
import { newIdempotencyKey, request } from './api.js';
import { announce, fill, h, saveBlob, table } from './dom.js';
import { count, vnd } from './format.js';
import { t } from './i18n.js';
import { errorBox, facts, pageHeading, ruleText } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */

/** @typedef {{ file: File, sheet?: string, idempotencyKey: string }} Chosen */

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 */
export function uploadPage(main, ctx) {
  if (!ctx.can('upload')) {
    fill(main, pageHeading(t('Upload payouts')), h('p', {}, t('Uploading needs the payouts-maker role.')));
    return;
  }
  /**
   * The file being looked at, its chosen sheet, and the idempotency key its submission will carry.
   * @type {Chosen | null}
   */
  let current = null;
  /** The chosen file; the preview and its buttons exist only once there is one. */
  const chosen = () => {
    if (!current) throw new Error('No file is chosen.');
    return current;
  };
  const status = h('p', { id: 'upload-status', role: 'status', class: 'status-line' });
  const preview = h('section', { id: 'preview', 'aria-labelledby': 'preview-heading', hidden: true });
  /** @type {HTMLInputElement} */
  const input = h('input', {
    id: 'payout-file',
    type: 'file',
    accept: '.csv,.txt,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'aria-describedby': 'payout-file-hint',
    onchange: () => input.files?.[0] && void check(input.files[0]),
  });
  /** @type {HTMLDivElement} */
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
        const file = /** @type {DragEvent} */ (event).dataTransfer?.files?.[0];
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

  /**
   * @param {'csv' | 'xlsx'} format
   * @param {string} text
   */
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

  /**
   * @param {File} file
   * @param {string} [sheet]
   */
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

  /**
   * How the file was read: the separator or the sheet (with a choice of the others), and the columns.
   * @param {ApiRecord | null} source
   */
  function sourceOf(source) {
    if (!source) return null;
    /** @type {Record<string, string>} */
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
                onchange: (event) =>
                  void check(chosen().file, /** @type {HTMLSelectElement} */ (event.currentTarget).value),
              },
              source.sheets.map((/** @type {string} */ name) =>
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
              source.columns.map((/** @type {{ header: string, column: string }} */ { header, column }) =>
                h('li', {}, header === column ? column : `${header} → ${column}`),
              ),
            )
          : null,
      ],
    ]);
  }

  /** @param {ApiRecord} report */
  function previewOf(report) {
    const { file } = chosen();
    const errorRows = new Set(report.rowErrors.map((/** @type {ApiRecord} */ error) => error.row)).size;
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

  /** @param {ApiRecord} report */
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
              report.fileErrors.map((/** @type {ApiRecord} */ error) =>
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
            rows: report.rowErrors.map((/** @type {ApiRecord} */ error) => [
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
    const { file } = chosen();
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
      fill(
        status,
        t('The error report could not be downloaded: {message}', {
          message: error instanceof Error ? error.message : String(error),
        }),
      );
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
          const { file, idempotencyKey } = chosen();
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
