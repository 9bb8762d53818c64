/**
 * Finds English left on a Vietnamese page of the console. The English word list is built from the
 * console's own catalogue (every word of an English text that its Vietnamese does not use, and the
 * English spelling of every status) plus common English words, so the day someone adds an English
 * string without its Vietnamese, the words of that string are already on the list.
 */
import type { Page } from 'playwright-core';

export interface ConsoleCatalogue {
  VI: Record<string, string>;
  VI_STATUS: Record<string, string>;
  VI_ERRORS: Record<string, string>;
  VI_RULES: Record<string, string>;
  VI_ROLES: Record<string, string>;
  VI_RECORD_KINDS: Record<string, string>;
  VI_SERVER_TEXTS: Record<string, string>;
}

/**
 * Words a Vietnamese page may show though they are English. Each is a name or a code a Vietnamese
 * finance team uses as it is: keep this list short and say why an entry belongs here.
 */
export const ALLOWED_ON_VIETNAMESE_PAGES: Readonly<Record<string, string>> = {
  payrun: 'the product name',
  english: 'the language switcher names each language in itself, so an English reader finds theirs',
  temporal: 'the workflow engine’s name (its UI is linked)',
  excel: 'a brand name (the upload reads Excel files)',
  email: 'used as it is in Vietnamese',
  ok: 'used as it is in Vietnamese',
};

/**
 * Common English words that the catalogue may not contain yet: what a hurried developer writes on a
 * button or in a sentence.
 */
const COMMON_ENGLISH = `the a an and or of to in on at for from with without by is are was were be been
  not no yes all any none some more less this that these those it its you your we our they their
  has have had do does did done will would can could should must may may might new old next previous
  back close cancel ok save saved submit send sent edit delete remove add create created update updated
  view show hide open download upload search filter apply reset clear loading error errors failed
  success successful succeeded pending processing waiting status state total amount date time day
  days week month year today yesterday page pages of item items row rows list details detail name
  id reason code message result results help settings sign out please try again later retry unknown
  empty nothing found here there yes no confirm approve approved reject rejected paid payment payments
  payout payouts run runs refund refunds customer balance report reports schedule scheduled`.split(/\s+/);

/** Lower-case ASCII words of a text; words with Vietnamese letters are Vietnamese by construction. */
export function asciiWords(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}+/gu) ?? []).filter(
    (word) => word.length >= 2 && /^[a-z]+$/.test(word),
  );
}

/**
 * A token that names a record rather than says something: ids (`run-20261126-1a2b3c`), codes
 * (`payout_run.completed`, `payment.refund`), addresses, file names, amounts. Shown as they are in
 * both languages, like the codes they are.
 */
const isIdentifier = (token: string) =>
  /[\d_@/\\]/.test(token) || /\p{L}\.\p{L}/u.test(token) || /^https?:/.test(token);

/**
 * The words that mark a text as English on a Vietnamese page. A word any Vietnamese text of the
 * catalogue uses (`an`, `in`, `ban`, or a loan word such as `webhook`) is Vietnamese enough to pass.
 */
export function englishWordList(catalogue: ConsoleCatalogue): Set<string> {
  const vietnamese = new Set<string>();
  // Identifiers a Vietnamese text quotes (`wallet_id`, `payUrl`) do not make their words Vietnamese.
  const prose = (text: string) =>
    asciiWords(
      text
        .split(/\s+/)
        .filter((token) => !isIdentifier(token) && !/[a-z][A-Z]/.test(token))
        .join(' '),
    );
  const tables: Array<Record<string, string>> = Object.values(catalogue);
  for (const table of tables)
    for (const text of Object.values(table)) for (const word of prose(text)) vietnamese.add(word);
  const english = new Set<string>(COMMON_ENGLISH.flatMap(asciiWords));
  for (const [englishText, vietnameseText] of [
    ...Object.entries(catalogue.VI),
    ...Object.entries(catalogue.VI_SERVER_TEXTS),
  ]) {
    const theirs = new Set(asciiWords(vietnameseText));
    for (const word of asciiWords(englishText.replace(/\{\w+\}/g, ' ')))
      if (!theirs.has(word)) english.add(word);
  }
  // Statuses, roles and kinds of record: their English is their own name (`payouts-approver`).
  for (const table of [catalogue.VI_STATUS, catalogue.VI_ROLES, catalogue.VI_RECORD_KINDS])
    for (const name of Object.keys(table)) for (const word of asciiWords(name)) english.add(word);
  for (const word of [...english])
    if (vietnamese.has(word) || word in ALLOWED_ON_VIETNAMESE_PAGES) english.delete(word);
  return english;
}

/** One piece of text the page shows, where it is. */
export interface ShownText {
  element: string;
  source: 'text' | 'aria-label' | 'title' | 'placeholder' | 'alt';
  text: string;
}

/**
 * Every text a person sees or hears on the page: visible text, the options of visible selects, and
 * the aria-label, title, placeholder and alt attributes of visible elements. Runs in the page.
 */
const COLLECT = `(() => {
  const describe = (element) => {
    const parts = [];
    for (let node = element; node && node !== document.body && parts.length < 3; node = node.parentElement) {
      const id = node.id ? '#' + node.id : '';
      const cls = !id && node.classList.length ? '.' + [...node.classList].join('.') : '';
      parts.unshift(node.tagName.toLowerCase() + id + cls);
      if (id) break;
    }
    return parts.join(' > ');
  };
  const visible = (element) =>
    element.checkVisibility ? element.checkVisibility({ visibilityProperty: true }) : element.offsetParent !== null;
  const shown = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const text = (node.textContent ?? '').trim();
    if (!text || !parent || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(parent.tagName)) continue;
    const select = parent.closest('select');
    if (!visible(select ?? parent)) continue;
    shown.push({ element: describe(parent), source: 'text', text });
  }
  for (const element of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
    if (!visible(element)) continue;
    for (const source of ['aria-label', 'title', 'placeholder', 'alt']) {
      const text = element.getAttribute(source);
      if (text && text.trim()) shown.push({ element: describe(element), source, text: text.trim() });
    }
  }
  shown.push({ element: 'title', source: 'text', text: document.title });
  return shown;
})()`;

/** A word of English found on a page. */
export interface EnglishFound extends ShownText {
  word: string;
}

/**
 * English words among the texts, ignoring identifiers and the data the test itself typed (a person's
 * name such as "Mai Maker" is theirs to choose, not the console's).
 */
export function englishIn(shown: ShownText[], english: Set<string>, data: string[]): EnglishFound[] {
  const found: EnglishFound[] = [];
  for (const item of shown) {
    let text = item.text;
    for (const value of data) if (value) text = text.split(value).join(' ');
    for (const token of text.split(/\s+/)) {
      if (!token || isIdentifier(token)) continue;
      for (const word of asciiWords(token)) if (english.has(word)) found.push({ ...item, word });
    }
  }
  return found;
}

/** The English on the page as it is now, one line per element, for the failure message. */
export async function englishOnPage(
  page: Page,
  english: Set<string>,
  data: string[],
): Promise<EnglishFound[]> {
  const shown = await page.evaluate<ShownText[]>(COLLECT);
  return englishIn(shown, english, data);
}

/** The findings as lines a person fixes from: page, element, where the text is, the word and the text. */
export function describeFindings(pageName: string, found: EnglishFound[]): string[] {
  const lines = new Map<string, string[]>();
  for (const item of found) {
    const key = `${pageName} | ${item.element} | ${item.source} | "${item.text.slice(0, 120)}"`;
    lines.set(key, [...(lines.get(key) ?? []), item.word]);
  }
  return [...lines].map(([key, words]) => `${key} | English: ${[...new Set(words)].join(', ')}`);
}
