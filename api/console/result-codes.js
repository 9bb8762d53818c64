// @ts-check
/**
 * A gateway result code as a page shows it: payrun's explanation (result-code-explanations.js) in the
 * page's language, never the gateway's English message as the visible text.
 */
import { h } from './dom.js';
import { language, t } from './i18n.js';
import { RESULT_CODE_EXPLANATIONS } from './result-code-explanations.js';

/**
 * What a result code means, in the page's language; a code payrun does not know is said so, never
 * guessed.
 * @param {number | string | null | undefined} code
 */
export function explainResult(code) {
  if (code === null || code === undefined || code === '') return '—';
  const explanation = RESULT_CODE_EXPLANATIONS[Number(code)];
  if (explanation) return language() === 'vi' ? explanation.vi : explanation.en;
  return t('Result {code}, which payrun does not know; ask the gateway what it means.', { code });
}

/**
 * A gateway result as a page shows it: the code and payrun's explanation in the page's language. The
 * gateway's own message is English, so it stays a tooltip on English pages (to quote to the gateway's
 * support) and is left out on Vietnamese ones.
 * @param {number | string | null | undefined} code
 * @param {string | null | undefined} [message]
 * @returns {import('./types.js').Child}
 */
export function resultText(code, message) {
  if (code === null || code === undefined || code === '') {
    // No code: the message is payrun's own reason in English; Vietnamese pages show the status alone.
    return message && language() === 'en' ? message : null;
  }
  return h(
    'span',
    {
      class: 'result-code',
      'data-code': String(code),
      title: language() === 'en' ? (message ?? null) : null,
    },
    `${code} · ${explainResult(code)}`,
  );
}
