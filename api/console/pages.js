/**
 * The list and detail pages every capability shares. A list filters by status, days (GMT+7) and id,
 * pages from the server, newest first, and keeps its filter in the address (#/payments?status=…), so
 * a dashboard link or a bookmark opens it filtered. A detail page shows the record, its actions for
 * the signed-in roles, and its timeline: the record's own steps, the gateway's notifications and what
 * people did, with the link to the workflow in the Temporal UI.
 */
import { request } from './api.js';
import { announce, fill, fillIfChanged, h, table } from './dom.js';
import { dateTime } from './format.js';
import { t } from './i18n.js';
import { errorBox, facts, pageHeading, statusBadge, workflowLink } from './ui.js';

const PAGE_SIZE = 20;

/** The filter of a list page, read from and written to the address. */
export function filterOf(query) {
  return {
    status: query.get('status') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
    q: query.get('q') ?? '',
    offset: Number(query.get('offset') ?? 0) || 0,
  };
}

function hashFor(name, filter) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value) query.set(key, String(value));
  const text = query.toString();
  return `#/${name}${text ? `?${text}` : ''}`;
}

function filterForm(ctx, resource, filter) {
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
    for (const key of ['status', 'from', 'to', 'q']) if (filter[key]) params.set(key, filter[key]);
    try {
      const answer = await request(`${resource.endpoint}?${params}`);
      fillIfChanged(body, { rows: answer[resource.key], nextOffset: answer.nextOffset }, render);
    } catch (error) {
      fillIfChanged(body, { error: error.message }, () => errorBox(error, t('The list could not be loaded')));
    }
  }
  void load();
  const timer = setInterval(() => void load(), 5000);
  return () => clearInterval(timer);
}

/** A button that posts an action and reports its outcome; `body()` may read a form first. */
export function actionButton({ id, label, run, done, danger = false, refresh, feedback }) {
  return h(
    'button',
    {
      type: 'button',
      id,
      class: danger ? 'danger' : 'primary',
      onclick: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        fill(feedback, h('p', { role: 'status' }, t('Sending…')));
        try {
          await run();
          fill(feedback, h('p', { role: 'status', class: 'outcome good', id: 'action-outcome' }, done));
          announce(done);
          await refresh();
        } catch (error) {
          fill(feedback, errorBox(error, t('That did not work')));
        } finally {
          button.disabled = false;
        }
      },
    },
    label,
  );
}

function timelineTable(events) {
  if (!events.length) return h('p', {}, t('Nothing recorded yet.'));
  return table({
    caption: t('What happened, oldest first'),
    columns: [t('When'), t('What'), t('Who or what')],
    className: 'timeline compact',
    rows: events
      .filter((event) => event.at)
      .sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime())
      .map((event) => [dateTime(event.at), event.what, event.who ?? '—']),
  });
}

export function detailPage(main, ctx, resource, id) {
  const problem = h('div');
  const summary = h('section', { id: 'detail-summary', 'aria-label': t('Summary') });
  const feedback = h('div', { id: 'action-feedback' });
  const actions = h('section', { id: 'detail-actions', 'aria-labelledby': 'actions-heading' });
  const sections = h('div', { id: 'detail-sections' });
  const timeline = h('section', { id: 'detail-timeline', 'aria-labelledby': 'timeline-heading' });
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: `#/${resource.name}` }, `← ${resource.title()}`)),
    pageHeading(`${resource.singular()} ${id}`),
    problem,
    summary,
    feedback,
    actions,
    sections,
    timeline,
  );

  const refresh = async () => {
    let view;
    try {
      view = await request(`${resource.endpoint}/${encodeURIComponent(id)}`);
      if (resource.load) view = await resource.load(view, id);
      fill(problem);
    } catch (error) {
      fillIfChanged(problem, { error: error.message }, () =>
        errorBox(error, t('This record could not be loaded')),
      );
      return;
    }
    fillIfChanged(summary, view, () => [
      facts([
        [t('Status'), h('span', { id: 'detail-status' }, statusBadge(resource.statusOf(view)))],
        ...resource.facts(view),
        [
          t('Workflow'),
          workflowLink(ctx.config, view.workflowId, view.workflowId) ?? view.workflowId ?? null,
        ],
      ]),
    ]);
    const available = (resource.actions?.(view, ctx, { refresh, feedback, id }) ?? []).filter(Boolean);
    fillIfChanged(
      actions,
      { status: resource.statusOf(view), n: available.length, v: resource.actionKey?.(view) },
      () => (available.length ? [h('h2', { id: 'actions-heading' }, t('Actions')), ...available] : []),
    );
    fillIfChanged(sections, view, () => resource.sections?.(view, ctx) ?? []);
    try {
      const params = new URLSearchParams({ targetType: resource.auditTarget, targetId: id });
      if (view.workflowId) params.set('workflowId', view.workflowId);
      const orderIds = resource.orderIds?.(view) ?? [];
      if (orderIds.length) params.set('orderIds', orderIds.join(','));
      const found = await request(`/v1/console/timeline?${params}`);
      const events = [
        ...(resource.events?.(view) ?? []),
        ...found.notifications.map((note) => ({
          at: note.receivedAt,
          what: t('Gateway notification {kind} for {order}: result {code}', {
            kind: note.kind,
            order: note.orderId,
            code: note.resultCode ?? '—',
          }),
          who: t('gateway'),
        })),
        ...found.actions.map((action) => ({
          at: action.at,
          what:
            action.outcome === 'succeeded'
              ? t('{action} (done)', { action: action.action })
              : t('{action} (refused: {code})', { action: action.action, code: action.errorCode ?? '—' }),
          who: action.actor,
        })),
      ];
      fillIfChanged(timeline, events, () => [
        h('h2', { id: 'timeline-heading' }, t('Timeline')),
        workflowLink(ctx.config, view.workflowId)
          ? h('p', {}, workflowLink(ctx.config, view.workflowId))
          : null,
        timelineTable(events),
      ]);
    } catch (error) {
      fillIfChanged(timeline, { error: error.message }, () =>
        errorBox(error, t('The timeline could not be loaded')),
      );
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), 4000);
  return () => clearInterval(timer);
}
