// @ts-check
/**
 * Sign-in: people sign in only through the company's identity provider (API keys are for machines and
 * never typed into the console); the language can be chosen here already (in the header).
 */
import { fill, h } from './dom.js';
import { t } from './i18n.js';
import { pageHeading } from './ui.js';

/** @param {HTMLElement} main */
export function signInPage(main) {
  const link = h(
    'a',
    { href: '/auth/login', class: 'button primary', id: 'sign-in-provider' },
    t('Sign in with your company account'),
  );
  const provider = h(
    'div',
    { class: 'card narrow' },
    link,
    h('p', { class: 'hint' }, t('Your company’s sign-in page opens; you come back here signed in.')),
  );
  fill(main, pageHeading(t('Sign in')), provider);
  link.focus();
}
