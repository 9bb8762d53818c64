/**
 * The finance console: sign-in, the language, navigation by role, and a hash router (#/runs,
 * #/payments/<id>, #/payments?status=…), so the server serves one page and every view has its own
 * address to bookmark or share.
 */
import { ApiProblem, request, session, whenUnauthorized } from './api.js';
import { auditPage } from './audit.js';
import { dashboardPage } from './dashboard.js';
import { announce, fill, h } from './dom.js';
import { methodsPage, newDisbursementPage, newRemittancePage } from './forms.js';
import { LANGUAGES, language, setLanguage, t } from './i18n.js';
import { detailPage, listPage } from './pages.js';
import { runPage, runsResource, uploadPage } from './payouts.js';
import { RESOURCES } from './resources.js';
import { errorBox, pageHeading } from './ui.js';

/**
 * What each duty may do, mirroring the API's route roles (admin may do everything). The console
 * only hides what would be refused; the API is what enforces it.
 */
const DUTIES = {
  readRuns: ['viewer', 'payouts-maker', 'payouts-approver'],
  upload: ['payouts-maker'],
  decide: ['payouts-approver'],
  subscriptions: ['billing', 'viewer'],
  reactivate: ['billing'],
  tokenPayments: ['payments', 'viewer'],
  remittances: ['remittance', 'viewer'],
  sendRemittance: ['remittance'],
  payments: ['payments', 'viewer'],
  confirmPayments: ['payments'],
  audit: ['viewer'],
  // Webhook endpoints are admin-only (the API's role); admin passes every duty.
  webhooks: [],
};

/** Signed-in state; rebuilt from the stored key on reload. */
const ctx = {
  me: null,
  config: { temporalUiUrl: null, namespace: 'default' },
  can(duty) {
    const roles = ctx.me?.roles ?? [];
    return roles.includes('admin') || roles.some((role) => DUTIES[duty].includes(role));
  },
  navigate(hash) {
    if (location.hash === hash) void render();
    else location.hash = hash;
  },
};

let leavePage = () => {};

async function signIn(key) {
  const me = await request('/v1/me', { key });
  session.save(key);
  ctx.me = me;
  try {
    ctx.config = await request('/v1/console/config');
  } catch {
    // Without it only the workflow links are missing; the console works.
  }
}

function signOut() {
  session.clear();
  ctx.me = null;
  renderChrome();
  ctx.navigate('#/sign-in');
  announce(t('Signed out.'));
}

function signInPage(main) {
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
          renderChrome();
          announce(t('Signed in as {name}.', { name: ctx.me.name }));
          ctx.navigate(defaultPage());
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
  fill(main, pageHeading(t('Sign in')), form);
  input.focus();
}

function navLinks() {
  const links = [['#/dashboard', t('Needs you now')]];
  if (ctx.can('readRuns')) links.push(['#/runs', t('Payout runs')]);
  if (ctx.can('upload')) links.push(['#/upload', t('Upload payouts')]);
  if (ctx.can('readRuns')) links.push(['#/disbursements', t('Disbursements')]);
  if (ctx.can('payments')) links.push(['#/payments', t('Payments')]);
  if (ctx.can('subscriptions')) links.push(['#/subscriptions', t('Subscriptions')]);
  if (ctx.can('tokenPayments'))
    links.push(['#/token-payments', t('Token payments')], ['#/methods', t('Saved methods')]);
  if (ctx.can('remittances')) links.push(['#/remittances', t('Remittances')]);
  if (ctx.can('webhooks')) links.push(['#/webhook-endpoints', t('Webhook endpoints')]);
  if (ctx.can('audit')) links.push(['#/audit', t('Audit log')]);
  return links;
}

function defaultPage() {
  return '#/dashboard';
}

function languageSwitch() {
  const select = h(
    'select',
    {
      id: 'language',
      onchange: () => {
        setLanguage(select.value);
        renderChrome();
        void render();
      },
    },
    Object.entries(LANGUAGES).map(([code, name]) =>
      h('option', { value: code, lang: code, selected: code === language() }, name),
    ),
  );
  return h('p', { class: 'language' }, h('label', { for: 'language' }, t('Language')), ' ', select);
}

/** Header: navigation for the signed-in roles, the language, who is signed in, and sign-out. */
function renderChrome() {
  const nav = document.getElementById('nav');
  const who = document.getElementById('who');
  document.getElementById('skip-link').textContent = t('Skip to main content');
  document.getElementById('brand-sub').textContent = t('finance console');
  nav.setAttribute('aria-label', t('Main'));
  if (!ctx.me) {
    fill(nav);
    fill(who, languageSwitch());
    return;
  }
  const current = location.hash.split('?')[0].split('/').slice(0, 2).join('/');
  fill(
    nav,
    h(
      'ul',
      {},
      navLinks().map(([href, text]) =>
        h('li', {}, h('a', { href, 'aria-current': href === current ? 'page' : null }, text)),
      ),
    ),
  );
  fill(
    who,
    languageSwitch(),
    h(
      'p',
      {},
      t('Signed in as'),
      ' ',
      h('strong', { id: 'signed-in-name' }, ctx.me.name),
      h('span', { class: 'roles' }, ` (${ctx.me.roles.join(', ')})`),
    ),
    h('button', { type: 'button', id: 'sign-out', onclick: signOut }, t('Sign out')),
  );
}

/** The page for an address: [title, open(main) → leave function]. */
function route(parts, query) {
  const [name, id] = parts;
  if (name === 'dashboard') return [t('Needs you now'), (main) => dashboardPage(main, ctx)];
  if (name === 'runs' && id) return [t('Run {id}', { id }), (main) => runPage(main, ctx, id)];
  if (name === 'runs') return [t('Payout runs'), (main) => listPage(main, ctx, runsResource, query)];
  if (name === 'upload') return [t('Upload payouts'), (main) => uploadPage(main, ctx)];
  if (name === 'audit') return [t('Audit log'), (main) => auditPage(main, ctx, query)];
  if (name === 'methods') return [t('Saved methods'), (main) => methodsPage(main, ctx, query)];
  if (name === 'disbursements' && id === 'new')
    return [t('New disbursement'), (main) => newDisbursementPage(main, ctx)];
  if (name === 'remittances' && id === 'new')
    return [t('New remittance'), (main) => newRemittancePage(main, ctx)];
  // Addresses of earlier versions keep working.
  if (name === 'authorized-payments') {
    return [
      t('Payments'),
      (main) =>
        listPage(main, ctx, RESOURCES.payments, new URLSearchParams({ status: 'authorized_not_captured' })),
    ];
  }
  const resource = RESOURCES[name];
  if (resource && id) return [`${resource.singular()} ${id}`, (main) => detailPage(main, ctx, resource, id)];
  if (resource) return [resource.title(), (main) => listPage(main, ctx, resource, query)];
  return undefined;
}

async function render() {
  leavePage();
  leavePage = () => {};
  const main = document.getElementById('main');
  const hash = location.hash || '#/';
  const [path, search = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').map(decodeURIComponent);
  const query = new URLSearchParams(search);

  if (!ctx.me && session.key()) {
    try {
      await signIn(session.key());
    } catch {
      session.clear();
    }
  }
  renderChrome();
  if (!ctx.me) {
    if (hash !== '#/sign-in') history.replaceState(null, '', '#/sign-in');
    document.title = `${t('Sign in')} · payrun`;
    signInPage(main);
    return;
  }
  if (parts[0] === '' || parts[0] === 'sign-in') {
    ctx.navigate(defaultPage());
    return;
  }

  let title = t('Nothing here');
  try {
    const page = route(parts, query);
    if (page) {
      [title] = page;
      leavePage = page[1](main) ?? leavePage;
    } else {
      fill(main, pageHeading(title), h('p', {}, t('This page does not exist. Use the navigation above.')));
    }
  } catch (error) {
    fill(main, pageHeading(t('Something went wrong')), errorBox(error));
  }
  document.title = `${title} · payrun`;
  document.getElementById('page-heading')?.focus();
  announce(t('{title} page', { title }));
}

whenUnauthorized(() => {
  // The key stopped working (revoked while signed in): start over at sign-in.
  session.clear();
  ctx.me = null;
  ctx.navigate('#/sign-in');
});

document.getElementById('skip-link').addEventListener('click', (event) => {
  // The hash is the router's; move focus without changing it.
  event.preventDefault();
  document.getElementById('main').focus();
});
window.addEventListener('hashchange', () => void render());
void render();
