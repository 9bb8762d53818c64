// @ts-check
/**
 * The console's two languages. Every text is written in English at its place of use, wrapped in
 * t('…'); Vietnamese, the default, comes from messages-vi.js, keyed by that English text (a test
 * checks that every t('…') of the console has its Vietnamese). The choice is remembered in
 * localStorage: it is a preference, not a secret.
 */
import { VI } from './messages-vi.js';

const LANGUAGE_STORAGE = 'payrun.console.language';
export const LANGUAGES = { vi: 'Tiếng Việt', en: 'English' };
/** @typedef {keyof typeof LANGUAGES} Language */

/** @type {Record<string, string>} */
const vietnamese = VI;

/**
 * @param {string | null} code
 * @returns {code is Language}
 */
const isLanguage = (code) => code !== null && code in LANGUAGES;

/** @type {Language} */
let current = (() => {
  try {
    const stored = localStorage.getItem(LANGUAGE_STORAGE);
    return isLanguage(stored) ? stored : 'vi';
  } catch {
    return 'vi';
  }
})();

export const language = () => current;

/** @param {string} code */
export function setLanguage(code) {
  if (!isLanguage(code)) return;
  current = code;
  try {
    localStorage.setItem(LANGUAGE_STORAGE, code);
  } catch {
    // Storage refused (private mode): the choice lasts until the page reloads.
  }
  document.documentElement.lang = code;
}

/**
 * The text in the chosen language, with {name} placeholders filled from `params`.
 * @param {string} text
 * @param {Record<string, string | number>} [params]
 */
export function t(text, params = {}) {
  const chosen = current === 'vi' ? (vietnamese[text] ?? text) : text;
  return chosen.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

document.documentElement.lang = current;
