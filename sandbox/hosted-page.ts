import type { AwaitingSummary, CustomerAnswer } from './customer';

/**
 * The customer's side of payUrl: a tiny page with the order and two real buttons (forms, so they
 * work with the keyboard and without JavaScript). Approving or declining answers with a 303 to the
 * merchant's signed redirect, or a result page when the order has no redirectUrl.
 */

const escape = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1a1a1a; }
  .amount { font-size: 2rem; font-weight: 600; margin: .5rem 0 1.5rem; }
  form { display: inline; }
  button { font-size: 1rem; padding: .6rem 1.4rem; margin-right: .5rem; border-radius: .4rem; border: 1px solid #555; cursor: pointer; }
  button:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
  .approve { background: #a50064; color: #fff; border-color: #a50064; }
  .note { color: #555; font-size: .875rem; margin-top: 2rem; }
</style>
</head>
<body>
${body}
<p class="note">payrun gateway sandbox — simulated customer. No real money moves.</p>
</body>
</html>`;

const STEP_TITLES: Readonly<Record<string, string>> = {
  payment: 'Confirm payment',
  terminal: 'Pay at the terminal',
  binding: 'Link your account',
  subscription: 'Authorize the subscription',
  'token-redirect': 'Confirm payment with your bank',
  reactivation: 'Reactivate the subscription',
};

export function orderPage(order: AwaitingSummary, path: string): string {
  const title = STEP_TITLES[order.step] ?? 'Confirm';
  const action = (verb: string) => `${path}/${verb}`;
  return layout(
    title,
    `<main>
<h1>${escape(title)}</h1>
<p>${escape(order.description || order.orderId)}</p>
<p class="amount">${order.amount.toLocaleString('vi-VN')} VND</p>
<p>Order <code>${escape(order.orderId)}</code></p>
<form method="post" action="${escape(action('approve'))}"><button class="approve" type="submit" autofocus>Approve</button></form>
<form method="post" action="${escape(action('decline'))}"><button type="submit">Decline</button></form>
</main>`,
  );
}

export function resultPage(answer: CustomerAnswer): string {
  const ok = answer.resultCode === 0;
  return layout(
    ok ? 'Done' : 'Not completed',
    `<main role="status"><h1>${ok ? 'Done' : 'Not completed'}</h1><p>${escape(answer.message)} (resultCode ${answer.resultCode})</p></main>`,
  );
}

export function notWaitingPage(orderId: string): string {
  return layout(
    'Nothing to confirm',
    `<main role="status"><h1>Nothing to confirm</h1><p>Order <code>${escape(orderId)}</code> is not waiting for the customer (unknown, already answered or expired).</p></main>`,
  );
}
