// @ts-check
/**
 * The detail page every capability shares: the record's facts, its actions for the signed-in roles
 * (the API checks them again), the capability's own sections, and its timeline — the record's own
 * steps, the gateway's notifications for its orders and what people did to it (from the audit log),
 * with the link to its workflow in the Temporal UI. It refreshes every 4 s.
 */
import { request } from './api.js';
import { fill, fillIfChanged, h, table } from './dom.js';
import { dateTime } from './format.js';
import { t } from './i18n.js';
import { errorBox, facts, pageHeading, statusBadge, workflowLink } from './ui.js';
import { explainResult } from './result-codes.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */
/** @typedef {import('./types.js').Resource} Resource */
/** @typedef {import('./types.js').TimelineEvent} TimelineEvent */

/**
 * An audit entry in words: `requested` was written before acting and never completed (the process
 * stopped in between), `failed` is an error whose effect is not known.
 * @param {ApiRecord} action
 */
function actionWords(action) {
  const words = { action: action.action, code: action.errorCode ?? '—' };
  if (action.outcome === 'succeeded') return t('{action} (done)', words);
  if (action.outcome === 'requested') return t('{action} (outcome not recorded)', words);
  if (action.outcome === 'failed') return t('{action} (failed: {code})', words);
  return t('{action} (refused: {code})', words);
}

/** @param {TimelineEvent[]} events */
function timelineTable(events) {
  if (!events.length) return h('p', {}, t('Nothing recorded yet.'));
  return table({
    caption: t('What happened, oldest first'),
    columns: [t('When'), t('What'), t('Who or what')],
    className: 'timeline compact',
    rows: events
      .filter((event) => event.at)
      .sort((a, b) => new Date(a.at ?? 0).getTime() - new Date(b.at ?? 0).getTime())
      .map((event) => [dateTime(event.at), event.what, event.who ?? '—']),
  });
}

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @param {Resource} resource
 * @param {string} id
 */
export function detailPage(main, ctx, resource, id) {
  const title = resource.singular?.() ?? resource.title();
  const statusOf = resource.statusOf ?? ((/** @type {ApiRecord} */ view) => view.status);
  const problem = h('div');
  const summary = h('section', { id: 'detail-summary', 'aria-label': t('Summary') });
  const feedback = h('div', { id: 'action-feedback' });
  const actions = h('section', { id: 'detail-actions', 'aria-labelledby': 'actions-heading' });
  const sections = h('div', { id: 'detail-sections' });
  const timeline = h('section', { id: 'detail-timeline', 'aria-labelledby': 'timeline-heading' });
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: `#/${resource.name}` }, `← ${resource.title()}`)),
    pageHeading(`${title} ${id}`),
    problem,
    summary,
    feedback,
    actions,
    sections,
    timeline,
  );

  const refresh = async () => {
    /** @type {ApiRecord} */
    let view;
    try {
      view = await request(`${resource.endpoint}/${encodeURIComponent(id)}`);
      if (resource.load) view = await resource.load(view, id);
      fill(problem);
    } catch (error) {
      fillIfChanged(problem, { error: String(error) }, () =>
        errorBox(error, t('This record could not be loaded')),
      );
      return;
    }
    fillIfChanged(summary, view, () => [
      facts([
        [t('Status'), h('span', { id: 'detail-status' }, statusBadge(statusOf(view)))],
        ...(resource.facts?.(view) ?? []),
        [
          t('Workflow'),
          workflowLink(ctx.config, view.workflowId, view.workflowId) ?? view.workflowId ?? null,
        ],
      ]),
    ]);
    const available = (resource.actions?.(view, ctx, { refresh, feedback, id }) ?? []).filter(Boolean);
    fillIfChanged(
      actions,
      { status: statusOf(view), n: available.length, v: resource.actionKey?.(view) },
      () => (available.length ? [h('h2', { id: 'actions-heading' }, t('Actions')), ...available] : []),
    );
    fillIfChanged(sections, view, () => resource.sections?.(view, ctx) ?? []);
    try {
      const params = new URLSearchParams({ targetType: resource.auditTarget ?? '', targetId: id });
      if (view.workflowId) params.set('workflowId', view.workflowId);
      const orderIds = resource.orderIds?.(view) ?? [];
      if (orderIds.length) params.set('orderIds', orderIds.join(','));
      const found = await request(`/v1/console/timeline?${params}`);
      /** @type {TimelineEvent[]} */
      const events = [
        ...(resource.events?.(view) ?? []),
        ...found.notifications.map((/** @type {ApiRecord} */ note) => ({
          at: note.receivedAt,
          what: t('Gateway notification {kind} for {order}: result {code}, {meaning}', {
            kind: note.kind,
            order: note.orderId,
            code: note.resultCode ?? '—',
            meaning: explainResult(note.resultCode),
          }),
          who: t('gateway'),
        })),
        ...found.actions.map((/** @type {ApiRecord} */ action) => ({
          at: action.at,
          what: actionWords(action),
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
      fillIfChanged(timeline, { error: String(error) }, () =>
        errorBox(error, t('The timeline could not be loaded')),
      );
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), 4000);
  return () => clearInterval(timer);
}
