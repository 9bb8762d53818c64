/**
 * The console's two languages. Every text is written in English at its place of use, wrapped in
 * t('…'); Vietnamese, the default, comes from messages-vi.js, keyed by that English text (a test
 * checks that every t('…') of the console has its Vietnamese). The choice is remembered in
 * localStorage: it is a preference, not a secret.
 */
import { VI } from './messages-vi.js';

const LANGUAGE_STORAGE = 'payrun.console.language';
export const LANGUAGES = { vi: 'Tiếng Việt', en: 'English' };

let current = (() => {
  try {
    const stored = localStorage.getItem(LANGUAGE_STORAGE);
    return stored && stored in LANGUAGES ? stored : 'vi';
  } catch {
    return 'vi';
  }
})();

export const language = () => current;

export function setLanguage(code) {
  if (!(code in LANGUAGES)) return;
  current = code;
  try {
    localStorage.setItem(LANGUAGE_STORAGE, code);
  } catch {
    // Storage refused (private mode): the choice lasts until the page reloads.
  }
  document.documentElement.lang = code;
}

/** The text in the chosen language, with {name} placeholders filled from `params`. */
export function t(text, params = {}) {
  const chosen = current === 'vi' ? (VI[text] ?? text) : text;
  return chosen.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** A text that exists only when translated: t.maybe('status.paused') → undefined without an entry. */
t.has = (text) => current === 'en' || text in VI;

document.documentElement.lang = current;
