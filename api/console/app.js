/**
 * The finance console: sign-in, navigation by role, and a hash router (#/runs, #/runs/<id>, …), so
 * the server serves one page and every view has its own address to bookmark or share.
 */
import { ApiProblem, request, session, whenUnauthorized } from './api.js';
import { announce, fill, h } from './dom.js';
import { genericListPage } from './lists.js';
import { runPage, runsPage, uploadPage } from './payouts.js';
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
  tokenPayments: ['payments', 'billing', 'viewer'],
  remittances: ['remittance', 'viewer'],
  authorizedPayments: ['payments', 'viewer'],
  confirmPayments: ['payments'],
  // Webhook endpoints are admin-only (the API's role); admin passes every duty.
  webhooks: [],
};

const LISTS = {
  subscriptions: {
    title: 'Subscriptions',
    endpoint: '/v1/subscriptions',
    duty: 'subscriptions',
    intro:
      'Recurring billing. A subscription pauses after two failed charges; reactivate it once the customer has paid.',
    reactivate: true,
  },
  'token-payments': {
    title: 'Token payments waiting for an OTP',
    endpoint: '/v1/token-payments?state=awaiting_otp',
    duty: 'tokenPayments',
    intro: 'Payments with a stored token that wait for the customer to enter the one-time code.',
  },
  'authorized-payments': {
    title: 'Authorized payments',
    endpoint: '/v1/payments?status=authorized_not_captured',
    duty: 'authorizedPayments',
    intro:
      'Payments authorized without capture: the customer paid and the gateway holds the money. Capture ' +
      'the whole amount, or cancel to give it back, before the hold ends; after it nothing can be captured.',
    actions: [
      { label: 'Capture', path: 'capture', duty: 'confirmPayments', done: 'captured' },
      { label: 'Cancel', path: 'cancel', duty: 'confirmPayments', done: 'cancelled' },
    ],
  },
  'webhook-endpoints': {
    title: 'Webhook endpoints',
    endpoint: '/v1/webhook-endpoints',
    duty: 'webhooks',
    intro:
      'Where payrun sends signed events. An endpoint whose receiver kept refusing an event for the whole ' +
      'retry window (3 days) is disabled, with the reason beside it. Fix the receiver, then Enable: ' +
      'deliveries resume where they stopped.',
    actions: [{ label: 'Enable', path: 'enable', duty: 'webhooks', done: 'enabled', when: 'disabled' }],
  },
  remittances: {
    title: 'Remittances',
    endpoint: '/v1/remittances',
    duty: 'remittances',
    intro: 'Cross-border transfers: exchange, buy, verify the receiver, pay out.',
  },
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
  announce('Signed out.');
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
        fill(feedback, h('p', { role: 'status' }, 'Signing in…'));
        try {
          await signIn(input.value.trim());
          renderChrome();
          announce(`Signed in as ${ctx.me.name}.`);
          ctx.navigate(defaultPage());
        } catch (error) {
          const message =
            error instanceof ApiProblem && error.status === 401
              ? { message: 'That key was not accepted. Check it, or ask an admin for a new one.' }
              : error;
          fill(feedback, errorBox(message, 'Not signed in'));
          input.focus();
        }
      },
    },
    h('label', { for: 'api-key' }, 'API key'),
    h(
      'p',
      { id: 'api-key-hint', class: 'hint' },
      'Your personal key (prk_…). It is kept only in this browser tab and forgotten when the tab closes.',
    ),
    input,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    feedback,
  );
  fill(main, pageHeading('Sign in'), form);
  input.focus();
}

function navLinks() {
  const links = [];
  if (ctx.can('readRuns')) links.push(['#/runs', 'Payout runs']);
  if (ctx.can('upload')) links.push(['#/upload', 'Upload payouts']);
  for (const [name, list] of Object.entries(LISTS)) {
    if (ctx.can(list.duty)) links.push([`#/${name}`, list.title.replace(' waiting for an OTP', '')]);
  }
  return links;
}

function defaultPage() {
  return navLinks()[0]?.[0] ?? '#/nothing';
}

/** Header: navigation for the signed-in roles, who is signed in, and sign-out. */
function renderChrome() {
  const nav = document.getElementById('nav');
  const who = document.getElementById('who');
  if (!ctx.me) {
    fill(nav);
    fill(who);
    return;
  }
  const current = location.hash.split('/').slice(0, 2).join('/');
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
    h(
      'p',
      {},
      'Signed in as ',
      h('strong', { id: 'signed-in-name' }, ctx.me.name),
      h('span', { class: 'roles' }, ` (${ctx.me.roles.join(', ')})`),
    ),
    h('button', { type: 'button', onclick: signOut }, 'Sign out'),
  );
}

async function render() {
  leavePage();
  leavePage = () => {};
  const main = document.getElementById('main');
  const hash = location.hash || '#/';
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);

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
    document.title = 'Sign in · payrun console';
    signInPage(main);
    return;
  }

  let title;
  try {
    if (parts[0] === 'runs' && parts[1]) {
      title = `Run ${parts[1]}`;
      leavePage = runPage(main, ctx, parts[1]) ?? leavePage;
    } else if (parts[0] === 'runs') {
      title = 'Payout runs';
      leavePage = runsPage(main, ctx) ?? leavePage;
    } else if (parts[0] === 'upload') {
      title = 'Upload payouts';
      uploadPage(main, ctx);
    } else if (LISTS[parts[0]]) {
      const list = LISTS[parts[0]];
      title = list.title;
      leavePage = genericListPage(main, ctx, list) ?? leavePage;
    } else if (parts[0] === '' || parts[0] === 'sign-in') {
      ctx.navigate(defaultPage());
      return;
    } else {
      title = 'Nothing here';
      fill(
        main,
        pageHeading('Nothing here'),
        h(
          'p',
          {},
          navLinks().length
            ? 'This page does not exist. Use the navigation above.'
            : 'Your key has no role that the console has pages for. Ask an admin for the role you need.',
        ),
      );
    }
  } catch (error) {
    fill(main, pageHeading('Something went wrong'), errorBox(error));
  }
  document.title = `${title} · payrun console`;
  document.getElementById('page-heading')?.focus();
  announce(`${title} page`);
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
