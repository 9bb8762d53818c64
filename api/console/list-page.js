// @ts-check
/**
 * The list page every capability shares. It filters by status, days (GMT+7) and id, pages from the
 * server, newest first, and keeps its filter in the address (#/payments?status=…), so a dashboard
 * link or a bookmark opens it filtered. Each capability describes its columns in its own module.
 */
import { request } from './api.js';
import { fill, fillIfChanged, h, table } from './dom.js';
import { t } from './i18n.js';
import { errorBox, pageHeading, statusBadge } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */
/** @typedef {import('./types.js').Resource} Resource */

const PAGE_SIZE = 20;

/** @typedef {{ status: string, from: string, to: string, q: string, offset: number }} ListFilter */

/**
 * The filter of a list page, read from the address.
 * @param {URLSearchParams} query
 * @returns {ListFilter}
 */
export function filterOf(query) {
  return {
    status: query.get('status') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
    q: query.get('q') ?? '',
    offset: Number(query.get('offset') ?? 0) || 0,
  };
}

/**
 * The address of a list with a filter.
 * @param {string} name
 * @param {Partial<ListFilter>} filter
 */
function hashFor(name, filter) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value) query.set(key, String(value));
  const text = query.toString();
  return `#/${name}${text ? `?${text}` : ''}`;
}

/**
 * @param {Ctx} ctx
 * @param {Resource} resource
 * @param {ListFilter} filter
 */
function filterForm(ctx, resource, filter) {
  /**
   * @param {string} id
   * @param {string} labelText
   * @param {HTMLElement} input
   */
  const field = (id, labelText, input) =>
    h('div', { class: 'field' }, h('label', { for: id }, labelText), input);
  const status = h(
    'select',
    { id: 'filter-status', name: 'status' },
    h('option', { value: '' }, t('All statuses')),
    resource.statuses.map((value) =>
      h('option', { value, selected: value === filter.status }, statusBadge(value).textContent),
    ),
  );
  const from = h('input', { id: 'filter-from', name: 'from', type: 'date', value: filter.from });
  const to = h('input', { id: 'filter-to', name: 'to', type: 'date', value: filter.to });
  const q = h('input', { id: 'filter-q', name: 'q', type: 'search', value: filter.q, maxlength: '100' });
  return h(
    'form',
    {
      class: 'filters',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        ctx.navigate(
          hashFor(resource.name, { status: status.value, from: from.value, to: to.value, q: q.value.trim() }),
        );
      },
    },
    field('filter-status', t('Status'), status),
    field('filter-from', t('From (GMT+7)'), from),
    field('filter-to', t('To (GMT+7)'), to),
    field('filter-q', resource.searchLabel?.() ?? t('Search by id'), q),
    h('button', { type: 'submit', id: 'apply-filter' }, t('Apply')),
    h('a', { href: `#/${resource.name}`, class: 'button' }, t('Clear')),
  );
}

/**
 * A capability's list: its filter, a page of rows newest first, and the pager; refreshed every 5 s.
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @param {Resource} resource
 * @param {URLSearchParams} query
 */
export function listPage(main, ctx, resource, query) {
  const filter = filterOf(query);
  const body = h('div', { id: 'list-body' }, h('p', {}, t('Loading…')));
  fill(
    main,
    pageHeading(resource.title()),
    h('p', {}, resource.intro()),
    resource.create && ctx.can(resource.create.duty)
      ? h(
          'p',
          {},
          h(
            'a',
            { href: `#/${resource.name}/new`, class: 'button primary', id: 'create-link' },
            resource.create.label(),
          ),
        )
      : null,
    resource.listExtras?.(ctx) ?? null,
    filterForm(ctx, resource, filter),
    body,
  );

  /** @param {{ rows: ApiRecord[], nextOffset: number | null | undefined }} page */
  const render = ({ rows, nextOffset }) => {
    if (!rows.length) {
      return h(
        'p',
        { id: 'list-empty' },
        filter.status || filter.q || filter.from || filter.to
          ? t('Nothing matches this filter.')
          : t('Nothing to show yet.'),
      );
    }
    return [
      table({
        caption: t('{from}–{to}, newest first', { from: filter.offset + 1, to: filter.offset + rows.length }),
        columns: resource.columns.map((column) => column.label()),
        numeric: resource.columns.flatMap((column, index) => (column.numeric ? [index] : [])),
        className: `list list-${resource.name}`,
        rows: rows.map((row) =>
          resource.columns.map((column, index) =>
            index === 0
              ? h(
                  'a',
                  { href: `#/${resource.name}/${encodeURIComponent(resource.idOf(row))}` },
                  resource.idOf(row),
                )
              : column.value(row, ctx),
          ),
        ),
      }),
      h(
        'p',
        { class: 'actions pager' },
        filter.offset > 0
          ? h(
              'a',
              {
                class: 'button',
                id: 'previous-page',
                href: hashFor(resource.name, { ...filter, offset: Math.max(0, filter.offset - PAGE_SIZE) }),
              },
              t('Previous page'),
            )
          : null,
        nextOffset !== null && nextOffset !== undefined
          ? h(
              'a',
              {
                class: 'button',
                id: 'next-page',
                href: hashFor(resource.name, { ...filter, offset: nextOffset }),
              },
              t('Next page'),
            )
          : null,
      ),
    ];
  };

  async function load() {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(filter.offset) });
    for (const key of /** @type {const} */ (['status', 'from', 'to', 'q'])) {
      if (filter[key]) params.set(key, filter[key]);
    }
    try {
      const answer = await request(`${resource.endpoint}?${params}`);
      fillIfChanged(body, { rows: answer[resource.key], nextOffset: answer.nextOffset }, render);
    } catch (error) {
      fillIfChanged(body, { error: String(error) }, () => errorBox(error, t('The list could not be loaded')));
    }
  }
  void load();
  const timer = setInterval(() => void load(), 5000);
  return () => clearInterval(timer);
}
