// @ts-check
/**
 * The helpers every page shares: error boxes in the chosen language, status badges, facts lists,
 * links to the Temporal UI, the page heading, form fields, create forms, action buttons and polling.
 * A page module builds its page from these and from dom.js, and nothing else.
 */
import { newIdempotencyKey } from './api.js';
import { announce, fill, h } from './dom.js';
import { label } from './format.js';
import { language, t } from './i18n.js';
import { VI_ERRORS, VI_RULES } from './messages-vi.js';
import { englishDetail, serverText } from './server-text.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Child} Child */
/** @typedef {import('./types.js').ConsoleConfig} ConsoleConfig */
/** @typedef {import('./dom.js').Attributes} Attributes */

/**
 * What errorBox shows: an ApiProblem (code, message, problems, request id), or any error.
 * @typedef {{ message?: string, code?: string, requestId?: string,
 *   problems?: Array<{ field?: string, rule?: string, message: string }> }} Shown
 */

/**
 * An API error in the chosen language: its stable code is looked up (Vietnamese), the API's own
 * words stay beside it as the detail to quote to support, with each problem and the request id.
 * @param {unknown} error
 * @param {string} [title]
 */
export function errorBox(error, title = t('That did not work')) {
  const shown = /** @type {Shown | undefined} */ (
    typeof error === 'object' && error !== null ? error : undefined
  );
  const problems = shown?.problems ?? [];
  const vi = language() === 'vi';
  const translated = vi && shown?.code ? VI_ERRORS[shown.code] : undefined;
  const message = shown?.message ?? String(error);
  return h(
    'div',
    { class: 'error-box', role: 'alert', 'data-code': shown?.code ?? null },
    h('h2', { class: 'error-title' }, title),
    h('p', { class: 'error-message' }, translated ?? message),
    translated && message !== translated ? h('div', { class: 'hint' }, englishDetail(message)) : null,
    problems.length
      ? h(
          'ul',
          {},
          problems.map((problem) => {
            const rule = vi && problem.rule ? VI_RULES[problem.rule] : undefined;
            return h(
              'li',
              {},
              [problem.field, problem.rule].filter(Boolean).join(' · '),
              problem.field || problem.rule ? ': ' : '',
              rule ?? problem.message,
              rule ? h('span', { class: 'hint' }, ' ', englishDetail(problem.message)) : null,
            );
          }),
        )
      : null,
    shown?.requestId ? h('p', { class: 'hint' }, t('Request id: {id}', { id: shown.requestId })) : null,
  );
}

/**
 * A rule of a file or row error in the chosen language, with the API's words as the detail.
 * @param {string} rule
 * @param {string} message
 * @returns {Child[]}
 */
export function ruleText(rule, message) {
  const translated = language() === 'vi' ? VI_RULES[rule] : undefined;
  return translated ? [translated, h('span', { class: 'hint' }, ' ', englishDetail(message))] : [message];
}

/** @type {Record<string, 'good' | 'bad' | 'muted' | 'warn'>} */
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
  refused: 'bad',
  ineligible: 'bad',
  expired: 'muted',
  cancelled: 'muted',
  canceled: 'muted',
  revoked: 'muted',
  paused: 'warn',
  awaiting_approval: 'warn',
  awaiting_funds: 'warn',
  awaiting_otp: 'warn',
  outcome_unknown: 'warn',
  authorized_not_captured: 'warn',
  pending: 'warn',
};

/**
 * A status as a word with a colour that only repeats it (the text carries the meaning).
 * @param {unknown} status
 */
export function statusBadge(status) {
  const tone = TONES[String(status).toLowerCase()] ?? 'info';
  return h('span', { class: `badge badge-${tone}`, 'data-status': String(status) }, label(String(status)));
}

/**
 * A status with why, when there is a why (a paused reason, a disabled endpoint's reason).
 * @param {unknown} status
 * @param {Child} reason
 */
export const statusCell = (status, reason) =>
  h(
    'span',
    {},
    statusBadge(status),
    reason
      ? h('span', { class: 'hint' }, ' ', typeof reason === 'string' ? serverText(reason) : reason)
      : null,
  );

/**
 * A value, or null (left out of facts) when it is empty.
 * @template T
 * @param {T | null | undefined | ''} value
 * @returns {T | null}
 */
export const maybe = (value) => (value === null || value === undefined || value === '' ? null : value);

/**
 * A definition list from [term, value] pairs; pairs with a null value are left out.
 * @param {Array<[string, Child]>} pairs
 */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))),
  );
}

/**
 * A link to a workflow in the Temporal UI, or nothing when the server has no UI configured.
 * @param {ConsoleConfig | undefined} config
 * @param {string | null | undefined} workflowId
 * @param {string} [text]
 */
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

/**
 * The page's main heading; it takes focus after navigation so screen readers start there.
 * @param {string} text
 */
export function pageHeading(text) {
  return h('h1', { tabindex: '-1', id: 'page-heading' }, text);
}

/**
 * @template {HTMLElement} E
 * @param {string} id
 * @param {string} labelText
 * @param {E} input
 */
const labelled = (id, labelText, input) => ({
  input,
  element: h('div', { class: 'field' }, h('label', { for: id }, labelText), input),
});

/**
 * A labelled input.
 * @param {string} id
 * @param {string} labelText
 * @param {Attributes} [attributes]
 */
export const field = (id, labelText, attributes = {}) =>
  labelled(id, labelText, h('input', { id, name: id, ...attributes }));

/**
 * A labelled select of `options` (value and text, or the value as its own text).
 * @param {string} id
 * @param {string} labelText
 * @param {Array<string | [string, string]>} options
 * @param {Attributes} [attributes]
 */
export const selectField = (id, labelText, options, attributes = {}) =>
  labelled(
    id,
    labelText,
    h(
      'select',
      { id, name: id, ...attributes },
      options.map((option) => {
        const [value, text] = typeof option === 'string' ? [option, option] : option;
        return h('option', { value }, text);
      }),
    ),
  );

/**
 * A create form that submits once per idempotency key: a double click or a retry creates one record.
 * @param {object} options
 * @param {string} options.id
 * @param {Array<{ element: HTMLElement }>} options.fields
 * @param {string} options.submitLabel
 * @param {(idempotencyKey: string) => Promise<ApiRecord>} options.submit
 * @param {(created: ApiRecord) => void} options.onCreated
 */
export function createForm({ id, fields, submitLabel, submit, onCreated }) {
  const feedback = h('div', { id: `${id}-feedback` });
  const key = newIdempotencyKey();
  const button = h('button', { type: 'submit', class: 'primary', id: `${id}-submit` }, submitLabel);
  return h(
    'form',
    {
      class: 'card',
      id,
      onsubmit: async (event) => {
        event.preventDefault();
        button.disabled = true;
        fill(feedback, h('p', { role: 'status' }, t('Sending…')));
        try {
          const created = await submit(key);
          onCreated(created);
        } catch (error) {
          fill(feedback, errorBox(error, t('Nothing was created')));
          button.disabled = false;
        }
      },
    },
    fields.map((entry) => entry.element),
    h('p', { class: 'actions' }, button),
    feedback,
  );
}

/**
 * A button that runs an action (a POST) and reports its outcome in `feedback`, then refreshes.
 * @param {object} options
 * @param {string} options.id
 * @param {string} options.label
 * @param {() => Promise<unknown>} options.run
 * @param {string | ((answer: any) => string)} options.done What is said when it worked; a function when
 *   the API's answer is part of the outcome (how many payments a settlement covered).
 * @param {boolean} [options.danger]
 * @param {() => Promise<unknown>} options.refresh
 * @param {HTMLElement} options.feedback
 */
export function actionButton({ id, label: text, run, done, danger = false, refresh, feedback }) {
  return h(
    'button',
    {
      type: 'button',
      id,
      class: danger ? 'danger' : 'primary',
      onclick: async (event) => {
        const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
        button.disabled = true;
        fill(feedback, h('p', { role: 'status' }, t('Sending…')));
        try {
          const answer = await run();
          const outcome = typeof done === 'function' ? done(answer) : done;
          fill(feedback, h('p', { role: 'status', class: 'outcome good', id: 'action-outcome' }, outcome));
          announce(outcome);
          await refresh();
        } catch (error) {
          fill(feedback, errorBox(error, t('That did not work')));
        } finally {
          button.disabled = false;
        }
      },
    },
    text,
  );
}

/**
 * Runs `tick` now and every `ms` until the returned stop function is called, or `tick` answers false.
 * @param {() => Promise<boolean | void>} tick
 * @param {number} ms
 * @returns {() => void}
 */
export function poll(tick, ms) {
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
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
