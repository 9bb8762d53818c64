// @ts-check
/**
 * The finance console: sign-in, the language, navigation by role, and a hash router (#/runs,
 * #/payments/<id>, #/payments?status=…), so the server serves one page and every view has its own
 * address to bookmark or share. Each page is a module of its own; this one only chooses which.
 */
import { request, whenUnauthorized, providerSession } from './api.js';
import { approvalsPage } from './approvals.js';
import { auditPage } from './audit.js';
import { dashboardPage } from './dashboard.js';
import { detailPage } from './detail-page.js';
import { disbursements, newDisbursementPage } from './disbursements.js';
import { announce, fill, h } from './dom.js';
import { roleName } from './format.js';
import { holdsPage } from './holds.js';
import { LANGUAGES, language, setLanguage, t } from './i18n.js';
import { listPage } from './list-page.js';
import { mailPage } from './mail.js';
import { payments } from './payments.js';
import { planPage, plansPage } from './plans.js';
import { runPage } from './payout-run.js';
import { payoutRuns } from './payout-runs.js';
import { uploadPage } from './payout-upload.js';
import { newRemittancePage, remittances } from './remittances.js';
import { reportsPage } from './reports.js';
import { revenuePage } from './revenue.js';
import { methodsPage } from './saved-methods.js';
import { signInPage } from './sign-in.js';
import { subscriptions } from './subscriptions.js';
import { savedMethodPayments } from './saved-method-payments.js';
import { errorBox, pageHeading } from './ui.js';
import { webhookEndpoints } from './webhook-endpoints.js';
import { newPayeePage, payees } from './payees.js';
import { newSchedulePage, schedulePage, schedulesPage } from './payout-schedules.js';

/** @typedef {import('./types.js').Ctx} Ctx */
/** @typedef {import('./types.js').Duty} Duty */
/** @typedef {import('./types.js').Leave} Leave */
/** @typedef {import('./types.js').Resource} Resource */

/**
 * What each duty may do, mirroring the API's route roles (admin may do everything). The console
 * only hides what would be refused; the API is what enforces it.
 * @type {Record<Duty, string[]>}
 */
const DUTIES = {
  readRuns: ['viewer', 'payouts-maker', 'payouts-approver'],
  upload: ['payouts-maker'],
  decide: ['payouts-approver'],
  // The roles an approval policy may name as approvers (contracts/approvals APPROVER_ROLES).
  approve: ['payouts-approver', 'billing', 'remittance', 'payments'],
  subscriptions: ['billing', 'viewer'],
  reactivate: ['billing'],
  // Creating, re-pricing and archiving plans (the API's plan routes); reading them is `subscriptions`.
  plans: ['billing'],
  savedMethodPayments: ['payments', 'viewer'],
  // A customer's saved methods are looked up by their id: only the duty that sees customers in full.
  savedMethods: ['payments'],
  remittances: ['remittance', 'viewer', 'payouts-approver'],
  sendRemittance: ['remittance'],
  payments: ['payments', 'viewer', 'payouts-approver'],
  confirmPayments: ['payments'],
  audit: ['viewer'],
  // Webhook endpoints are admin-only (the API's role); admin passes every duty.
  webhooks: [],
  // Holding and releasing are admin-only; anyone signed in may read the panel at #/holds.
  holds: [],
  // The dev mail catcher's inbox (GET /v1/dev/mail) is admin-only.
  mail: [],
};

/**
 * The capabilities whose records have the shared list and detail pages, by address.
 * @type {Record<string, Resource>}
 */
const RESOURCES = {
  subscriptions,
  'saved-method-payments': savedMethodPayments,
  remittances,
  payments,
  disbursements,
  'webhook-endpoints': webhookEndpoints,
  payees,
};

/**
 * Signed-in state; rebuilt from the stored key on reload.
 * @type {Ctx}
 */
const ctx = {
  me: null,
  config: { temporalUiUrl: null, namespace: 'default', disbursementAmountRanges: null },
  can(duty) {
    const roles = ctx.me?.roles ?? [];
    return roles.includes('admin') || roles.some((role) => DUTIES[duty].includes(role));
  },
  navigate(hash) {
    if (location.hash === hash) void render();
    else location.hash = hash;
  },
};

/** Stops what the current page started (timers, polling) when another opens. */
let leavePage = () => {};

/**
 * The person's session at payrun, opened by a sign-in through the identity provider (an HttpOnly cookie
 * the page never reads); false when there is none.
 * @returns {Promise<boolean>}
 */
async function resumeProviderSession() {
  const response = await fetch('/auth/session', { headers: { accept: 'application/json' } });
  if (!response.ok) return false;
  const current = await response.json();
  providerSession.csrfToken = current.csrfToken;
  ctx.me = { name: current.person.name, roles: current.roles };
  await loadConsoleConfig();
  return true;
}

async function loadConsoleConfig() {
  try {
    const config = await request('/v1/console/config');
    ctx.config = {
      temporalUiUrl: config.temporalUiUrl,
      namespace: config.namespace,
      disbursementAmountRanges: config.disbursementAmountRanges,
    };
  } catch {
    // Without it the workflow links and the stated amount ranges are missing; the console works.
  }
}

function signOut() {
  if (providerSession.csrfToken) {
    // Ends the session here, then at the provider (its end-session page comes back to the console).
    const csrfToken = providerSession.csrfToken;
    providerSession.csrfToken = null;
    void fetch('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrfToken } })
      .then((response) => response.json())
      .then((answer) => {
        if (answer.endSessionUrl) location.assign(answer.endSessionUrl);
      })
      .catch(() => {});
  }
  ctx.me = null;
  renderChrome();
  ctx.navigate('#/sign-in');
  announce(t('Signed out.'));
}

/** @returns {Array<[string, string]>} */
function navLinks() {
  /** @type {Array<[string, string]>} */
  const links = [['#/dashboard', t('Needs you now')]];
  if (ctx.can('readRuns')) links.push(['#/runs', t('Payout runs')]);
  if (ctx.can('approve')) links.push(['#/approvals', t('Approvals')]);
  if (ctx.can('upload')) links.push(['#/upload', t('Upload payouts')]);
  if (ctx.can('readRuns')) links.push(['#/disbursements', t('Disbursements')]);
  if (ctx.can('readRuns')) links.push(['#/payees', t('Payees')]);
  if (ctx.can('readRuns')) links.push(['#/payout-schedules', t('Recurring payouts')]);
  if (ctx.can('payments')) links.push(['#/payments', t('Payments')]);
  if (ctx.can('subscriptions')) links.push(['#/subscriptions', t('Subscriptions')]);
  if (ctx.can('subscriptions')) links.push(['#/plans', t('Plans')]);
  if (ctx.can('savedMethodPayments')) links.push(['#/saved-method-payments', t('Saved-method payments')]);
  if (ctx.can('savedMethods')) links.push(['#/methods', t('Saved methods')]);
  if (ctx.can('remittances')) links.push(['#/remittances', t('Remittances')]);
  if (ctx.can('webhooks')) links.push(['#/webhook-endpoints', t('Webhook endpoints')]);
  if (ctx.can('holds')) links.push(['#/holds', t('Holds')]);
  if (ctx.can('audit')) links.push(['#/audit', t('Audit log')]);
  links.push(['#/reports', t('Reports')]);
  if (ctx.can('mail')) links.push(['#/mail', t('Mail')]);
  if (ctx.can('subscriptions')) links.push(['#/revenue', t('Revenue')]);
  return links;
}

function defaultPage() {
  return '#/dashboard';
}

function languageSwitch() {
  /** @type {HTMLSelectElement} */
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

/**
 * An element of index.html that is always there.
 * @param {string} id
 */
function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element;
}

/** Header: navigation for the signed-in roles, the language, who is signed in, and sign-out. */
function renderChrome() {
  const nav = byId('nav');
  const who = byId('who');
  byId('skip-link').textContent = t('Skip to main content');
  byId('brand-sub').textContent = t('finance console');
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
      h('span', { class: 'roles' }, ` (${ctx.me.roles.map(roleName).join(', ')})`),
    ),
    h('button', { type: 'button', id: 'sign-out', onclick: signOut }, t('Sign out')),
  );
}

/**
 * The page for an address: its title, and what opens it in `main`.
 * @param {string[]} parts
 * @param {URLSearchParams} query
 * @returns {[string, (main: HTMLElement) => Leave] | undefined}
 */
function route(parts, query) {
  const [name, id] = parts;
  if (name === 'dashboard') return [t('Needs you now'), (main) => dashboardPage(main, ctx)];
  if (name === 'runs' && id) return [t('Run {id}', { id }), (main) => runPage(main, ctx, id)];
  if (name === 'runs') return [t('Payout runs'), (main) => listPage(main, ctx, payoutRuns, query)];
  if (name === 'upload') return [t('Upload payouts'), (main) => uploadPage(main, ctx)];
  if (name === 'approvals') return [t('Approvals'), (main) => approvalsPage(main, ctx, query)];
  if (name === 'holds') return [t('Holds'), (main) => holdsPage(main, ctx)];
  if (name === 'reports') return [t('Reports'), (main) => reportsPage(main, ctx, query)];
  if (name === 'mail') return [t('Mail'), (main) => mailPage(main)];
  if (name === 'plans' && id) return [t('Plan {id}', { id }), (main) => planPage(main, ctx, id)];
  if (name === 'plans') return [t('Plans'), (main) => plansPage(main, ctx)];
  if (name === 'revenue') return [t('Revenue'), (main) => revenuePage(main)];
  if (name === 'audit') return [t('Audit log'), (main) => auditPage(main, ctx, query)];
  if (name === 'methods') return [t('Saved methods'), (main) => methodsPage(main, ctx, query)];
  if (name === 'payout-schedules' && id === 'new')
    return [t('New recurring payout'), (main) => newSchedulePage(main, ctx)];
  if (name === 'payout-schedules' && id)
    return [t('Recurring payout {id}', { id }), (main) => schedulePage(main, ctx, id)];
  if (name === 'payout-schedules') return [t('Recurring payouts'), (main) => schedulesPage(main, ctx)];
  if (name === 'disbursements' && id === 'new')
    return [t('New disbursement'), (main) => newDisbursementPage(main, ctx)];
  if (name === 'remittances' && id === 'new')
    return [t('New remittance'), (main) => newRemittancePage(main, ctx)];
  if (name === 'payees' && id === 'new') return [t('New payee'), (main) => newPayeePage(main, ctx)];
  // Addresses of earlier versions keep working.
  if (name === 'authorized-payments') {
    return [
      t('Payments'),
      (main) => listPage(main, ctx, payments, new URLSearchParams({ status: 'authorized_not_captured' })),
    ];
  }
  const resource = name === undefined ? undefined : RESOURCES[name];
  if (resource && id)
    return [
      `${resource.singular?.() ?? resource.title()} ${id}`,
      (main) => detailPage(main, ctx, resource, id),
    ];
  if (resource) return [resource.title(), (main) => listPage(main, ctx, resource, query)];
  return undefined;
}

async function render() {
  leavePage();
  leavePage = () => {};
  const main = byId('main');
  const hash = location.hash || '#/';
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').map(decodeURIComponent);
  const query = new URLSearchParams(search);

  if (!ctx.me) {
    try {
      await resumeProviderSession();
    } catch {
      // No provider configured, or payrun unreachable: the sign-in page says what can be done.
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
  // The session ended (signed out elsewhere, timed out, the person removed): start over at sign-in.
  providerSession.csrfToken = null;
  ctx.me = null;
  ctx.navigate('#/sign-in');
});

byId('skip-link').addEventListener('click', (event) => {
  // The hash is the router's; move focus without changing it.
  event.preventDefault();
  byId('main').focus();
});
window.addEventListener('hashchange', () => void render());
void render();
