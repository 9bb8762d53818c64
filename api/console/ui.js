/** Pieces every page uses: error boxes, status labels, facts lists and links to the Temporal UI. */
import { h } from './dom.js';
import { label } from './format.js';
import { language, t } from './i18n.js';
import { VI_ERRORS, VI_RULES } from './messages-vi.js';

/**
 * An API error in the chosen language: its stable code is looked up (Vietnamese), the API's own
 * words stay beside it as the detail to quote to support, with each problem and the request id.
 */
export function errorBox(error, title = t('That did not work')) {
  const problems = error?.problems ?? [];
  const vi = language() === 'vi';
  const translated = vi ? VI_ERRORS[error?.code] : undefined;
  const message = error?.message ?? String(error);
  return h(
    'div',
    { class: 'error-box', role: 'alert', 'data-code': error?.code ?? null },
    h('h2', { class: 'error-title' }, title),
    h('p', { class: 'error-message' }, translated ?? message),
    translated && message !== translated ? h('p', { class: 'hint', lang: 'en' }, message) : null,
    problems.length
      ? h(
          'ul',
          {},
          problems.map((problem) => {
            const rule = vi ? VI_RULES[problem.rule] : undefined;
            return h(
              'li',
              {},
              [problem.field, problem.rule].filter(Boolean).join(' · '),
              problem.field || problem.rule ? ': ' : '',
              rule ?? problem.message,
              rule ? h('span', { class: 'hint', lang: 'en' }, ` (${problem.message})`) : null,
            );
          }),
        )
      : null,
    error?.requestId ? h('p', { class: 'hint' }, t('Request id: {id}', { id: error.requestId })) : null,
  );
}

/** A rule of a file or row error in the chosen language, with the API's words as the detail. */
export function ruleText(rule, message) {
  const translated = language() === 'vi' ? VI_RULES[rule] : undefined;
  return translated ? [translated, h('span', { class: 'hint', lang: 'en' }, ` (${message})`)] : [message];
}

const TONES = {
  reconciled: 'good',
  completed: 'good',
  succeeded: 'good',
  success: 'good',
  active: 'good',
  captured: 'good',
  refunded: 'good',
  paid: 'good',
  needs_attention: 'bad',
  failed: 'bad',
  rejected: 'bad',
  ineligible: 'bad',
  expired: 'muted',
  cancelled: 'muted',
  canceled: 'muted',
  revoked: 'muted',
  paused: 'warn',
  awaiting_approval: 'warn',
  awaiting_funds: 'warn',
  awaiting_otp: 'warn',
  authorized_not_captured: 'warn',
  pending: 'warn',
};

/** A status as a word with a colour that only repeats it (the text carries the meaning). */
export function statusBadge(status) {
  const tone = TONES[String(status).toLowerCase()] ?? 'info';
  return h('span', { class: `badge badge-${tone}`, 'data-status': String(status) }, label(status));
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
export function workflowLink(config, workflowId, text = t('Open in Temporal UI')) {
  if (!workflowId || !config?.temporalUiUrl) return null;
  const href =
    `${config.temporalUiUrl}/namespaces/${encodeURIComponent(config.namespace)}` +
    `/workflows/${encodeURIComponent(workflowId)}`;
  return h(
    'a',
    { href, target: '_blank', rel: 'noopener noreferrer', class: 'workflow-link' },
    text,
    h(
      'span',
      { class: 'visually-hidden' },
      ` (${t('workflow {id}, opens in a new tab', { id: workflowId })})`,
    ),
  );
}

/** The page's main heading; it takes focus after navigation so screen readers start there. */
export function pageHeading(text) {
  return h('h1', { tabindex: '-1', id: 'page-heading' }, text);
}
