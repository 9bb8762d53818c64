import { isPending, outcomeOf } from '../../gateway';

/** The small page a customer sees after paying. It only shows; the IPN changes state. */
const escape = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export type ReturnPageInput =
  | { verified: false }
  | {
      verified: true;
      orderId: string;
      amount: number;
      resultCode: number;
      message: string;
      recordedStatus: string;
    };

function headline(input: Extract<ReturnPageInput, { verified: true }>): string {
  const outcome = outcomeOf(input.resultCode);
  if (outcome === 'succeeded') return 'Payment received';
  if (isPending(outcome) || outcome === 'awaiting_customer') return 'Payment is being processed';
  return 'Payment not completed';
}

export function renderReturnPage(input: ReturnPageInput): string {
  const title = input.verified ? headline(input) : 'We could not confirm this payment';
  const body = input.verified
    ? `<p>Order <strong>${escape(input.orderId)}</strong>, ${input.amount.toLocaleString('en-US')} VND.</p>
    <p>${escape(input.message)} (code ${input.resultCode})</p>
    <p>We will confirm the final result with the payment service; you can close this page.</p>`
    : `<p>The link you followed is incomplete or altered. Nothing was changed. If you paid, the result
    reaches us directly from the payment service.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · payrun</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}h1{font-size:1.5rem}</style>
</head>
<body>
<main>
  <h1 role="status">${escape(title)}</h1>
  ${body}
</main>
</body>
</html>
`;
}
