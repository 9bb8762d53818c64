// @ts-check
/**
 * Recurring payout schedules (#/payout-schedules, docs/payout-runs.md "Recurring runs"): the list with each
 * schedule's calendar and next occurrence in GMT+7, a schedule's page (its rows, and its occurrences: the runs
 * it made, each linked), the create form (a payout file's rows, or payees of the directory with amounts), and
 * pause, resume and delete, each asked twice. A schedule never pays: every occurrence is a run that waits for
 * its own approval, which the run's page takes.
 */
import { post, request } from './api.js';
import { fill, h, table } from './dom.js';
import { count, dateTime, vnd } from './format.js';
import { t } from './i18n.js';
import {
  createForm,
  errorBox,
  facts,
  field,
  pageHeading,
  poll,
  selectField,
  statusBadge,
  actionButton,
} from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */
/** @typedef {import('./types.js').Leave} Leave */

/** The header of the rows a schedule takes: a payout file's (docs/payout-runs.md), payee_id last. */
const ROWS_HEADER = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id,payee_id';

/** @param {number} value */
const twoDigits = (value) => String(value).padStart(2, '0');

/**
 * "Day 25 of each month, 09:00 GMT+7" in the page's language.
 * @param {ApiRecord} calendar
 */
export function calendarText(calendar) {
  const time = `${twoDigits(calendar.hour)}:${twoDigits(calendar.minute)}`;
  return calendar.dayOfMonth === 'last'
    ? t('Last day of each month, {time} GMT+7', { time })
    : t('Day {day} of each month, {time} GMT+7', { day: calendar.dayOfMonth, time });
}

/**
 * The schedules, newest first.
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @returns {Leave}
 */
export function schedulesPage(main, ctx) {
  const body = h('div', { id: 'schedules-body' }, h('p', {}, t('Loading…')));
  fill(
    main,
    pageHeading(t('Recurring payouts')),
    h(
      'p',
      {},
      t(
        'The same payees every month, at a day and time in GMT+7. Each occurrence makes an ordinary run that waits for its own approval; a schedule never pays by itself.',
      ),
    ),
    ctx.can('upload')
      ? h(
          'p',
          {},
          h(
            'a',
            { href: '#/payout-schedules/new', class: 'button primary', id: 'create-link' },
            t('New recurring payout'),
          ),
        )
      : null,
    body,
  );
  return poll(async () => {
    try {
      const answer = await request('/v1/payout-schedules');
      /** @type {ApiRecord[]} */
      const schedules = answer.schedules;
      fill(
        body,
        schedules.length
          ? table({
              caption: t('Recurring payouts, newest first'),
              columns: [t('Name'), t('Calendar'), t('Next occurrence'), t('Rows'), t('Total'), t('Status')],
              numeric: [3, 4],
              className: 'list list-payout-schedules',
              rows: schedules.map((schedule) => [
                h(
                  'a',
                  {
                    href: `#/payout-schedules/${encodeURIComponent(schedule.scheduleId)}`,
                    'data-schedule': schedule.scheduleId,
                  },
                  schedule.name,
                ),
                calendarText(schedule.calendar),
                h('span', { class: 'next-occurrence' }, dateTime(schedule.nextOccurrences[0])),
                count(schedule.rowCount),
                vnd(schedule.totalAmount),
                statusBadge(schedule.status),
              ]),
            })
          : h('p', { id: 'list-empty' }, t('Nothing to show yet.')),
      );
    } catch (error) {
      fill(body, errorBox(error, t('The list could not be loaded')));
    }
  }, 5000);
}

/**
 * A change that needs a second click: the first shows what it does and asks again.
 * @param {object} options
 * @param {string} options.id
 * @param {string} options.label
 * @param {string} options.question
 * @param {string} options.confirmLabel
 * @param {() => Promise<unknown>} options.run
 * @param {string} options.done
 * @param {boolean} [options.danger]
 * @param {() => Promise<void>} options.refresh
 * @param {HTMLElement} options.feedback
 */
function confirmedAction({
  id,
  label,
  question,
  confirmLabel,
  run,
  done,
  danger = false,
  refresh,
  feedback,
}) {
  const asked = h('span', { class: 'confirm' });
  const open = h(
    'button',
    {
      type: 'button',
      id,
      class: danger ? 'danger' : '',
      onclick: () => {
        open.hidden = true;
        fill(
          asked,
          h('span', { role: 'alert', id: `${id}-question` }, question),
          ' ',
          actionButton({ id: `${id}-confirm`, label: confirmLabel, run, done, danger, refresh, feedback }),
          ' ',
          h(
            'button',
            {
              type: 'button',
              id: `${id}-keep`,
              onclick: () => {
                fill(asked);
                open.hidden = false;
                open.focus();
              },
            },
            t('Keep it as it is'),
          ),
        );
      },
    },
    label,
  );
  return h('span', {}, open, asked);
}

/**
 * A schedule: what it pays, when, and the runs its occurrences made.
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @param {string} scheduleId
 * @returns {Leave}
 */
export function schedulePage(main, ctx, scheduleId) {
  const body = h('div', { id: 'schedule-body' }, h('p', {}, t('Loading…')));
  const feedback = h('div', { id: 'schedule-feedback' });
  const actions = h('p', { class: 'actions', id: 'schedule-actions' });
  fill(
    main,
    pageHeading(t('Recurring payout {id}', { id: scheduleId })),
    h('p', {}, h('a', { href: '#/payout-schedules' }, t('All recurring payouts'))),
    body,
    actions,
    feedback,
  );
  const path = `/v1/payout-schedules/${encodeURIComponent(scheduleId)}`;
  let shownStatus = '';

  /** @param {ApiRecord} view */
  const showActions = (view) => {
    if (view.status === shownStatus) return;
    shownStatus = view.status;
    if (!ctx.can('upload')) return fill(actions);
    /** @param {'pause' | 'resume' | 'delete'} action */
    const change = (action) => () => post(`${path}/${action}`);
    fill(
      actions,
      view.status === 'active'
        ? confirmedAction({
            id: 'pause-schedule',
            label: t('Pause'),
            question: t('Pause it? No occurrence makes a run until it is resumed.'),
            confirmLabel: t('Yes, pause it'),
            run: change('pause'),
            done: t('Paused: no occurrence makes a run until it is resumed.'),
            refresh,
            feedback,
          })
        : confirmedAction({
            id: 'resume-schedule',
            label: t('Resume'),
            question: t('Resume it? Its next occurrence makes a run again.'),
            confirmLabel: t('Yes, resume it'),
            run: change('resume'),
            done: t('Resumed: its next occurrence makes a run.'),
            refresh,
            feedback,
          }),
      ' ',
      confirmedAction({
        id: 'delete-schedule',
        label: t('Delete'),
        question: t('Delete it for good? Runs it already made stay as they are.'),
        confirmLabel: t('Yes, delete it'),
        danger: true,
        run: async () => {
          await change('delete')();
          ctx.navigate('#/payout-schedules');
        },
        done: t('Deleted.'),
        refresh: async () => {},
        feedback,
      }),
    );
  };

  async function refresh() {
    try {
      const view = await request(path);
      fill(body, scheduleSections(view));
      showActions(view);
    } catch (error) {
      fill(body, errorBox(error, t('The record could not be loaded')));
      fill(actions);
      shownStatus = '';
    }
  }
  return poll(refresh, 5000);
}

/** @param {ApiRecord} view */
function scheduleSections(view) {
  /** @type {ApiRecord[]} */
  const rows = view.rows;
  /** @type {ApiRecord[]} */
  const runs = view.runs;
  return [
    facts([
      [t('Name'), h('span', { id: 'schedule-name' }, view.name)],
      [t('Status'), h('span', { id: 'schedule-status' }, statusBadge(view.status))],
      [t('Calendar'), h('span', { id: 'schedule-calendar' }, calendarText(view.calendar))],
      [
        t('Next occurrences'),
        view.nextOccurrences.length
          ? h(
              'ul',
              { id: 'next-occurrences' },
              /** @type {string[]} */ (view.nextOccurrences).map((at) => h('li', {}, dateTime(at))),
            )
          : '—',
      ],
      [t('Rows'), count(view.rowCount)],
      [t('Total'), vnd(view.totalAmount)],
      [t('Created by'), view.createdBy],
      [t('Created'), dateTime(view.createdAt)],
    ]),
    h('h2', {}, t('Occurrences')),
    runs.length
      ? table({
          caption: t('The runs its occurrences made, newest first; each waits for its own approval'),
          columns: [t('Occurrence'), t('Run'), t('Status'), t('Rows'), t('Total')],
          numeric: [3, 4],
          className: 'schedule-runs compact',
          rows: runs.map((run) => [
            dateTime(run.occurrenceAt),
            h('a', { href: `#/runs/${encodeURIComponent(run.runId)}`, class: 'occurrence-run' }, run.runId),
            statusBadge(run.status),
            count(run.rowCount),
            vnd(run.totalAmount),
          ]),
        })
      : h('p', { id: 'no-occurrences' }, t('No occurrence has made a run yet.')),
    h('h2', {}, t('What it pays')),
    table({
      caption: t('Paid at every occurrence, each payout id with the month added'),
      columns: [t('Payout id'), t('Directory payee'), t('Receiver'), t('Amount'), t('Description')],
      numeric: [3],
      className: 'schedule-rows compact',
      rows: rows.map((row) => [
        row.payoutId,
        row.payeeId ?? '—',
        `${row.walletName} · ${row.walletId}`,
        vnd(row.amount),
        row.description,
      ]),
    }),
  ];
}

/**
 * A field's text as a CSV cell: quoted when it holds a separator, a quote or a line break.
 * @param {string} value
 */
const csvCell = (value) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/**
 * The create form: name, calendar, and the rows, as a payout file's CSV or as directory payees with amounts.
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @returns {Leave}
 */
export function newSchedulePage(main, ctx) {
  const name = field('schedule-name-input', t('Name'), { required: true, maxlength: '200' });
  const day = selectField('schedule-day', t('Day of the month'), [
    ...Array.from({ length: 28 }, (_, index) => String(index + 1)),
    ['last', t('Last day of the month')],
  ]);
  const hour = field('schedule-hour', t('Hour (GMT+7)'), {
    type: 'number',
    min: '0',
    max: '23',
    value: '9',
    required: true,
  });
  const minute = field('schedule-minute', t('Minute'), {
    type: 'number',
    min: '0',
    max: '59',
    value: '0',
    required: true,
  });
  const mode = selectField('schedule-rows-mode', t('Rows'), [
    ['file', t('As a payout file (CSV)')],
    ['payees', t('Payees of the directory')],
  ]);
  /** @type {HTMLTextAreaElement} */
  const csv = h('textarea', {
    id: 'schedule-rows',
    name: 'schedule-rows',
    rows: '8',
    spellcheck: 'false',
    placeholder: ROWS_HEADER,
  });
  const csvFile = h('input', { id: 'schedule-rows-file', type: 'file', accept: '.csv,text/csv' });
  csvFile.addEventListener('change', async () => {
    const file = csvFile.files?.[0];
    if (file) csv.value = await file.text();
  });
  const fileRows = h(
    'div',
    { id: 'rows-as-file' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'schedule-rows' }, t('Rows as an upload takes them, header first')),
      csv,
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'schedule-rows-file' }, t('Or read them from a CSV file')),
      csvFile,
    ),
  );
  const payeeLines = h('tbody', {});
  /** @type {ApiRecord[]} */
  let directory = [];
  const addLine = () => {
    const index = payeeLines.children.length + 1;
    /** @type {HTMLSelectElement} */
    const payee = h(
      'select',
      { class: 'line-payee', 'aria-label': t('Payee {n}', { n: index }) },
      h('option', { value: '' }, '—'),
      directory.map((entry) => h('option', { value: entry.payeeId }, `${entry.name} (${entry.payeeId})`)),
    );
    const payoutId = h('input', {
      class: 'line-payout-id',
      maxlength: '40',
      'aria-label': t('Payout id {n}', { n: index }),
    });
    payee.addEventListener('change', () => {
      if (!payoutId.value) payoutId.value = payee.value;
    });
    payeeLines.append(
      h(
        'tr',
        {},
        h('td', {}, payee),
        h('td', {}, payoutId),
        h(
          'td',
          {},
          h('input', {
            class: 'line-amount',
            type: 'number',
            min: '1',
            'aria-label': t('Amount (VND) {n}', { n: index }),
          }),
        ),
        h(
          'td',
          {},
          h('input', {
            class: 'line-description',
            maxlength: '200',
            'aria-label': t('Description {n}', { n: index }),
          }),
        ),
      ),
    );
  };
  const payeeRows = h(
    'div',
    { id: 'rows-by-payee', hidden: true },
    h(
      'table',
      { class: 'compact' },
      h('caption', {}, t('One line per payee; the payee directory gives the wallet')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [t('Payee'), t('Payout id'), t('Amount (VND)'), t('Description')].map((text) =>
            h('th', { scope: 'col' }, text),
          ),
        ),
      ),
      payeeLines,
    ),
    h('button', { type: 'button', id: 'add-payee-line', onclick: addLine }, t('Add a payee')),
  );
  const directoryRead = request('/v1/payees?status=active&limit=100')
    .then((answer) => {
      directory = answer.rows;
    })
    .catch(() => {
      // Without the directory the lines offer no payees; rows can still be given as a file.
    });
  mode.input.addEventListener('change', () => {
    fileRows.hidden = mode.input.value !== 'file';
    payeeRows.hidden = mode.input.value !== 'payees';
    // The first line waits for the directory, so its payee list is complete.
    if (mode.input.value === 'payees')
      void directoryRead.then(() => {
        if (!payeeLines.children.length) addLine();
      });
  });

  /** The payee lines as a payout file's rows: the directory fills in each receiver. */
  const payeeCsv = () =>
    [
      ROWS_HEADER,
      ...[...payeeLines.querySelectorAll('tr')].flatMap((line) => {
        /** @param {string} selector */
        const value = (selector) =>
          /** @type {HTMLInputElement | HTMLSelectElement} */ (line.querySelector(selector)).value.trim();
        const payeeId = value('.line-payee');
        if (!payeeId) return [];
        return [
          [
            value('.line-payout-id'),
            '',
            '',
            '',
            value('.line-amount'),
            value('.line-description'),
            '',
            payeeId,
          ]
            .map(csvCell)
            .join(','),
        ];
      }),
    ].join('\n');

  fill(
    main,
    pageHeading(t('New recurring payout')),
    h(
      'p',
      {},
      t(
        'The rows are checked as an upload is. Every occurrence pays them under payout ids with the month added, and waits for approval by someone other than you.',
      ),
    ),
    createForm({
      id: 'schedule-form',
      fields: [name, day, hour, minute, mode, { element: fileRows }, { element: payeeRows }],
      submitLabel: t('Save the recurring payout'),
      submit: () =>
        post('/v1/payout-schedules', {
          name: name.input.value,
          calendar: {
            dayOfMonth: day.input.value === 'last' ? 'last' : Number(day.input.value),
            hour: Number(hour.input.value),
            minute: Number(minute.input.value),
          },
          rows: mode.input.value === 'file' ? csv.value : payeeCsv(),
        }),
      onCreated: (created) => ctx.navigate(`#/payout-schedules/${encodeURIComponent(created.scheduleId)}`),
    }),
  );
}
