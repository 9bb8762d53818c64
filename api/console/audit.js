// @ts-check
/** The audit log page: who did what, filtered, paged newest first, and downloadable as CSV. */
import { request } from './api.js';
import { announce, fill, fillIfChanged, h, saveBlob, table } from './dom.js';
import { dateTime, recordKind } from './format.js';
import { t } from './i18n.js';
import { AUDIT_ACTIONS } from './audit-actions.js';
import { errorBox, pageHeading, statusBadge } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

const PAGE_SIZE = 50;
/** The audited actions, by what the console calls them in the page's language. */
const actionOptions = () =>
  Object.entries(AUDIT_ACTIONS)
    .map(([action, english]) => /** @type {[string, string]} */ ([action, t(english)]))
    .sort(([, one], [, other]) => one.localeCompare(other));
/**
 * An action in the page's language; one no longer audited (an older entry) as it was recorded.
 * @param {string} action
 */
const actionName = (action) => (AUDIT_ACTIONS[action] ? t(AUDIT_ACTIONS[action]) : action);
const FIELDS = /** @type {const} */ (['action', 'actor', 'outcome', 'from', 'to', 'q']);
/** @typedef {(typeof FIELDS)[number]} Field */
/** @typedef {Record<Field, string>} AuditFilter */

/**
 * @param {HTMLElement} main
 * @param {import('./types.js').Ctx} ctx
 * @param {URLSearchParams} query
 */
export function auditPage(main, ctx, query) {
  const filter = /** @type {AuditFilter} */ (
    Object.fromEntries(FIELDS.map((name) => [name, query.get(name) ?? '']))
  );
  const offset = Number(query.get('offset') ?? 0) || 0;
  /** @type {Record<Field, HTMLInputElement | HTMLSelectElement>} */
  const inputs = {
    action: h(
      'select',
      { id: 'audit-action' },
      h('option', { value: '' }, t('All actions')),
      actionOptions().map(([value, text]) => h('option', { value, selected: value === filter.action }, text)),
    ),
    actor: h('input', { id: 'audit-actor', type: 'search', value: filter.actor, maxlength: '100' }),
    outcome: h(
      'select',
      { id: 'audit-outcome' },
      h('option', { value: '' }, t('Any outcome')),
      h('option', { value: 'succeeded', selected: filter.outcome === 'succeeded' }, t('Succeeded')),
      h('option', { value: 'refused', selected: filter.outcome === 'refused' }, t('Refused')),
      h('option', { value: 'failed', selected: filter.outcome === 'failed' }, t('Failed (error)')),
      h(
        'option',
        { value: 'requested', selected: filter.outcome === 'requested' },
        t('Outcome not recorded'),
      ),
    ),
    from: h('input', { id: 'audit-from', type: 'date', value: filter.from }),
    to: h('input', { id: 'audit-to', type: 'date', value: filter.to }),
    q: h('input', { id: 'audit-q', type: 'search', value: filter.q, maxlength: '100' }),
  };
  const labels = {
    action: t('Action'),
    actor: t('Who'),
    outcome: t('Outcome'),
    from: t('From (GMT+7)'),
    to: t('To (GMT+7)'),
    q: t('Record, request or key id'),
  };
  /**
   * @param {AuditFilter} values
   * @param {number} [at]
   */
  const hashOf = (values, at = 0) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
    if (at) params.set('offset', String(at));
    return `#/audit${params.toString() ? `?${params}` : ''}`;
  };
  const current = () =>
    /** @type {AuditFilter} */ (Object.fromEntries(FIELDS.map((name) => [name, inputs[name].value.trim()])));
  const body = h('div', { id: 'audit-body' }, h('p', {}, t('Loading…')));
  const status = h('p', { role: 'status' });
  fill(
    main,
    pageHeading(t('Audit log')),
    h(
      'p',
      {},
      t(
        'Every action a person took through the API, refused ones included. Nobody can change or delete an entry.',
      ),
    ),
    h(
      'form',
      {
        class: 'filters',
        role: 'search',
        onsubmit: (event) => {
          event.preventDefault();
          ctx.navigate(hashOf(current()));
        },
      },
      FIELDS.map((name) =>
        h('div', { class: 'field' }, h('label', { for: inputs[name].id }, labels[name]), inputs[name]),
      ),
      h('button', { type: 'submit', id: 'apply-filter' }, t('Apply')),
      h(
        'button',
        {
          type: 'button',
          id: 'download-audit',
          onclick: async () => {
            try {
              const params = new URLSearchParams(Object.entries(current()).filter(([, value]) => value));
              saveBlob(await request(`/v1/audit-log.csv?${params}`, { as: 'blob' }), 'payrun-audit-log.csv');
              announce(t('Audit log downloaded.'));
            } catch (error) {
              fill(status, errorBox(error, t('The audit log could not be downloaded')));
            }
          },
        },
        t('Download CSV'),
      ),
    ),
    status,
    body,
  );

  async function load() {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
    for (const [name, value] of Object.entries(filter)) if (value) params.set(name, value);
    try {
      const { entries, nextOffset } = await request(`/v1/audit-log?${params}`);
      fillIfChanged(body, { entries, nextOffset }, () =>
        entries.length
          ? [
              table({
                caption: t('{from}–{to}, newest first', { from: offset + 1, to: offset + entries.length }),
                columns: [
                  t('When'),
                  t('Who'),
                  t('Action'),
                  t('Record'),
                  t('Outcome'),
                  t('Details'),
                  t('Request id'),
                ],
                className: 'audit',
                rows: entries.map((/** @type {ApiRecord} */ entry) => [
                  dateTime(entry.at),
                  entry.actor,
                  h('span', { title: entry.action, 'data-action': entry.action }, actionName(entry.action)),
                  entry.targetId
                    ? `${recordKind(entry.targetType)} ${entry.targetId}`
                    : recordKind(entry.targetType),
                  h(
                    'span',
                    {},
                    // `requested`: written before acting, never completed (the process stopped in between).
                    statusBadge(
                      entry.outcome === 'succeeded'
                        ? 'succeeded'
                        : entry.outcome === 'requested'
                          ? 'outcome_unknown'
                          : 'failed',
                    ),
                    entry.errorCode ? h('code', {}, ` ${entry.errorCode}`) : null,
                  ),
                  Object.keys(entry.details ?? {}).length ? JSON.stringify(entry.details) : '—',
                  entry.requestId ?? '—',
                ]),
              }),
              h(
                'p',
                { class: 'actions pager' },
                offset > 0
                  ? h(
                      'a',
                      { class: 'button', href: hashOf(filter, Math.max(0, offset - PAGE_SIZE)) },
                      t('Previous page'),
                    )
                  : null,
                nextOffset !== null
                  ? h(
                      'a',
                      { class: 'button', id: 'next-page', href: hashOf(filter, nextOffset) },
                      t('Next page'),
                    )
                  : null,
              ),
            ]
          : h('p', {}, t('Nothing matches this filter.')),
      );
    } catch (error) {
      fillIfChanged(body, { error: String(error) }, () =>
        errorBox(error, t('The audit log could not be loaded')),
      );
    }
  }
  void load();
  const timer = setInterval(() => void load(), 5000);
  return () => clearInterval(timer);
}
