// @ts-check
/**
 * The dev mail catcher's inbox (#/mail): every notice payrun sent to subscribers while developing, as
 * the customer would read it (subject, recipient, language, the text). Admin only, and only where
 * `npm run dev` or `npm run cluster` runs a catcher: elsewhere the API has no such route and the page
 * says so.
 */
import { request } from './api.js';
import { fill, fillIfChanged, h } from './dom.js';
import { dateTime } from './format.js';
import { t } from './i18n.js';
import { errorBox, pageHeading, poll } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Leave} Leave */

/** @param {string | null} lang */
const languageWords = (lang) => (lang === 'vi' ? t('Vietnamese') : lang === 'en' ? t('English') : '—');

/** @param {ApiRecord} mail */
const message = (mail) =>
  h(
    'article',
    { class: 'mail', id: `mail-${mail.id}`, 'data-lang': mail.lang ?? '', 'data-kind': mail.kind ?? '' },
    h('h2', {}, mail.subject || t('(no subject)')),
    h(
      'p',
      { class: 'hint' },
      t('To {to} · {language} · {at}', {
        to: (mail.to ?? []).join(', '),
        language: languageWords(mail.lang),
        at: dateTime(mail.receivedAt),
      }),
      mail.kind ? ` · ${mail.kind}` : '',
    ),
    h('pre', { class: 'mail-text' }, mail.text),
  );

/**
 * @param {HTMLElement} main
 * @returns {Leave}
 */
export function mailPage(main) {
  const body = h('div', { id: 'mail-body' }, h('p', {}, t('Loading…')));
  fill(
    main,
    pageHeading(t('Mail')),
    h('p', {}, t('Every notice sent to subscribers on this development stack, newest first.')),
    body,
  );
  async function load() {
    try {
      const answer = await request('/v1/dev/mail');
      fillIfChanged(body, answer.messages, () =>
        answer.messages.length ? answer.messages.map(message) : h('p', {}, t('No mail yet.')),
      );
    } catch (error) {
      fillIfChanged(body, { error: String(error) }, () =>
        errorBox(error, t('No mail catcher runs here: notices go to the mail server (SMTP_URL).')),
      );
    }
  }
  return poll(load, 3000);
}
