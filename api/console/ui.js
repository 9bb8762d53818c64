/** Pieces every page uses: error boxes, status labels, facts lists and links to the Temporal UI. */
import { h } from './dom.js';
import { label } from './format.js';

/** An API error as the operator needs it: the message, each problem, and the id to quote to support. */
export function errorBox(error, title = 'That did not work') {
  const problems = error?.problems ?? [];
  return h(
    'div',
    { class: 'error-box', role: 'alert' },
    h('h2', { class: 'error-title' }, title),
    h('p', {}, error?.message ?? String(error)),
    problems.length
      ? h(
          'ul',
          {},
          problems.map((problem) =>
            h(
              'li',
              {},
              [problem.field, problem.rule].filter(Boolean).join(' · '),
              problem.field || problem.rule ? ': ' : '',
              problem.message,
            ),
          ),
        )
      : null,
    error?.requestId ? h('p', { class: 'hint' }, `Request id: ${error.requestId}`) : null,
  );
}

/** A status as a word with a colour that only repeats it (the text carries the meaning). */
export function statusBadge(status) {
  const tone =
    {
      reconciled: 'good',
      completed: 'good',
      succeeded: 'good',
      active: 'good',
      needs_attention: 'bad',
      failed: 'bad',
      rejected: 'bad',
      expired: 'muted',
      cancelled: 'muted',
      paused: 'warn',
      awaiting_approval: 'warn',
      awaiting_funds: 'warn',
      awaiting_otp: 'warn',
      ineligible: 'bad',
      pending: 'warn',
    }[String(status).toLowerCase()] ?? 'info';
  return h('span', { class: `badge badge-${tone}` }, label(status));
}

/** A definition list from [term, value] pairs; pairs with a null value are left out. */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))),
  );
}

/** A link to a workflow in the Temporal UI, or nothing when the server has no UI configured. */
export function workflowLink(config, workflowId, text = 'Open in Temporal UI') {
  if (!workflowId || !config?.temporalUiUrl) return null;
  const href =
    `${config.temporalUiUrl}/namespaces/${encodeURIComponent(config.namespace)}` +
    `/workflows/${encodeURIComponent(workflowId)}`;
  return h(
    'a',
    { href, target: '_blank', rel: 'noopener noreferrer', class: 'workflow-link' },
    text,
    h('span', { class: 'visually-hidden' }, ` (workflow ${workflowId}, opens in a new tab)`),
  );
}

/** The page's main heading; it takes focus after navigation so screen readers start there. */
export function pageHeading(text) {
  return h('h1', { tabindex: '-1', id: 'page-heading' }, text);
}
