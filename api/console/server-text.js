// @ts-check
/**
 * Sentences the server writes into records in English (a status reason, an approval's description,
 * why a webhook endpoint stopped) as a page of the chosen language shows them. Known sentences are
 * matched against VI_SERVER_TEXTS (English with {placeholders} → Vietnamese); a sentence written in
 * Vietnamese (a person's note) is shown as it is; any other English sentence stays available on a
 * Vietnamese page behind a "details in English" disclosure, so the operator can still quote it to
 * support without English being the text the page shows.
 */
import { h } from './dom.js';
import { language, t } from './i18n.js';
import { VI_SERVER_TEXTS } from './messages-vi.js';

/** @type {Array<{ pattern: RegExp, names: string[], vietnamese: string }>} */
const KNOWN = Object.entries(/** @type {Record<string, string>} */ (VI_SERVER_TEXTS)).map(
  ([english, vietnamese]) => ({
    pattern: new RegExp(
      `^${english
        .split(/\{\w+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('(.+?)')}$`,
      's',
    ),
    names: [...english.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? ''),
    vietnamese,
  }),
);

/** Letters only Vietnamese uses: a text holding one was written in Vietnamese. */
const VIETNAMESE_LETTERS = /[ăâđêôơưàáảãạằắẳẵặầấẩẫậèéẻẽẹềếểễệìíỉĩịòóỏõọồốổỗộờớởỡợùúủũụừứửữựỳýỷỹỵ]/i;

/**
 * The Vietnamese of a sentence the server wrote, when payrun knows it.
 * @param {string} english
 * @returns {string | undefined}
 */
export function knownServerText(english) {
  for (const { pattern, names, vietnamese } of KNOWN) {
    const match = pattern.exec(english);
    if (match)
      return vietnamese.replace(/\{(\w+)\}/g, (whole, name) => {
        const at = names.indexOf(name);
        return at >= 0 ? (match[at + 1] ?? whole) : whole;
      });
  }
  return undefined;
}

/**
 * A server-written sentence in the page's language (see the module's comment).
 * @param {string | null | undefined} text
 * @returns {import('./types.js').Child}
 */
export function serverText(text) {
  if (text === null || text === undefined || text === '') return null;
  if (language() !== 'vi' || VIETNAMESE_LETTERS.test(text)) return text;
  return knownServerText(text) ?? englishDetail(text);
}

/**
 * English kept on a Vietnamese page only for quoting to support: closed until asked for.
 * @param {string} text
 */
export function englishDetail(text) {
  return h(
    'details',
    { class: 'english-detail' },
    h('summary', {}, t('Details in English')),
    h('span', { lang: 'en' }, text),
  );
}

/**
 * The same, where only a plain string fits (a sentence of the timeline).
 * @param {string | null | undefined} text
 */
export function serverWords(text) {
  if (text === null || text === undefined || text === '') return '—';
  if (language() !== 'vi' || VIETNAMESE_LETTERS.test(text)) return text;
  return knownServerText(text) ?? t('(details in English on the record’s page)');
}
