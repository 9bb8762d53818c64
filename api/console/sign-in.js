// @ts-check
/** Sign-in with an API key; the language can be chosen here already (in the header). */
import { ApiProblem } from './api.js';
import { fill, h } from './dom.js';
import { t } from './i18n.js';
import { errorBox, pageHeading } from './ui.js';

/**
 * @param {HTMLElement} main
 * @param {(key: string) => Promise<void>} signIn Checks the key and keeps it; throws when it is refused.
 */
export function signInPage(main, signIn) {
  const input = h('input', {
    id: 'api-key',
    name: 'api-key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'api-key-hint',
  });
  const feedback = h('div', { id: 'sign-in-feedback' });
  const form = h(
    'form',
    {
      class: 'card narrow',
      onsubmit: async (event) => {
        event.preventDefault();
        fill(feedback, h('p', { role: 'status' }, t('Signing in…')));
        try {
          await signIn(input.value.trim());
        } catch (error) {
          const message =
            error instanceof ApiProblem && error.status === 401
              ? { message: t('That key was not accepted. Check it, or ask an admin for a new one.') }
              : error;
          fill(feedback, errorBox(message, t('Not signed in')));
          input.focus();
        }
      },
    },
    h('label', { for: 'api-key' }, t('API key')),
    h(
      'p',
      { id: 'api-key-hint', class: 'hint' },
      t('Your personal key (prk_…). It is kept only in this browser tab and forgotten when the tab closes.'),
    ),
    input,
    h('button', { type: 'submit', class: 'primary', id: 'sign-in' }, t('Sign in')),
    feedback,
  );
  // People sign in through the company's identity provider; the key form stays for machines' keys.
  const provider = h(
    'div',
    { class: 'card narrow' },
    h(
      'a',
      { href: '/auth/login', class: 'button primary', id: 'sign-in-provider' },
      t('Sign in with your company account'),
    ),
    h('p', { class: 'hint' }, t('Your company’s sign-in page opens; you come back here signed in.')),
  );
  fill(main, pageHeading(t('Sign in')), provider, form);
  input.focus();
}
