import type { SandboxTiming } from './options';
import type { Scheduler } from './scheduler';

/**
 * The simulated customer. Every order that waits for a person — a hosted payment page, a terminal
 * prompt, a binding or subscription link, a token payment sent to the provider (8000), a subscription
 * reactivation — is registered here with what approving and declining it does. The hosted page, the
 * admin API and `autoApprove` all act through this desk, so they cannot disagree.
 */
export type CustomerStep =
  'payment' | 'terminal' | 'binding' | 'subscription' | 'token-redirect' | 'reactivation';

export interface ApprovalOptions {
  /** payWithMethod: what the customer picks on the choice page (default wallet). */
  method?: 'wallet' | 'credit' | 'domestic';
  /** Overrides the payType reported (e.g. 'app' or 'qr' instead of 'webApp'). */
  payType?: string;
  /** A voucher the customer applies: reported in promotionInfo (the amount paid stays the order's). */
  voucher?: { amount: number; name?: string };
}

export interface CustomerAnswer {
  orderId: string;
  step: CustomerStep;
  resultCode: number;
  message: string;
  transId?: number;
  /** Where the customer's browser is sent: `redirectUrl?<signed notification parameters>`. */
  redirectUrl?: string;
}

export interface AwaitingCustomer {
  orderId: string;
  step: CustomerStep;
  amount: number;
  description: string;
  partnerClientId?: string;
  createdAt: number;
  /** Links of document 2 expire (linkValidityMs); nothing else does. */
  expiresAt?: number;
  approve(options: ApprovalOptions): CustomerAnswer;
  decline(): CustomerAnswer;
  /** Called once when the link is found past `expiresAt`. */
  expire?(): CustomerAnswer;
}

export type AwaitingSummary = Omit<AwaitingCustomer, 'approve' | 'decline' | 'expire'>;

export interface CustomerDesk {
  wait(entry: AwaitingCustomer): void;
  /** Undefined when nothing waits under `orderId` (already answered, expired, unknown). */
  approve(orderId: string, options?: ApprovalOptions): CustomerAnswer | undefined;
  decline(orderId: string): CustomerAnswer | undefined;
  get(orderId: string): AwaitingSummary | undefined;
  list(): AwaitingSummary[];
}

/** With autoApprove, an amount ending in these digits is declined by the simulated customer. */
export const AUTO_DECLINE_SUFFIX = '1006';

export function createCustomerDesk(deps: {
  scheduler: Scheduler;
  timing: SandboxTiming;
  settings: { autoApprove: boolean };
  now: () => number;
}): CustomerDesk {
  const waiting = new Map<string, AwaitingCustomer>();

  /** Expiry is checked against the (injectable) clock whenever the order is touched. */
  function live(orderId: string): AwaitingCustomer | undefined {
    const entry = waiting.get(orderId);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && deps.now() >= entry.expiresAt) {
      waiting.delete(orderId);
      entry.expire?.();
      return undefined;
    }
    return entry;
  }

  function take(orderId: string): AwaitingCustomer | undefined {
    const entry = live(orderId);
    if (entry) waiting.delete(orderId);
    return entry;
  }

  const summary = ({ approve: _a, decline: _d, expire: _e, ...rest }: AwaitingCustomer): AwaitingSummary =>
    rest;

  const desk: CustomerDesk = {
    wait(entry) {
      waiting.set(entry.orderId, entry);
      if (entry.expiresAt !== undefined)
        deps.scheduler.after(entry.expiresAt - deps.now(), () => void live(entry.orderId));
      if (deps.settings.autoApprove)
        deps.scheduler.after(deps.timing.customerDelayMs, () => {
          if (String(entry.amount).endsWith(AUTO_DECLINE_SUFFIX)) desk.decline(entry.orderId);
          else desk.approve(entry.orderId);
        });
    },
    approve(orderId, options = {}) {
      const entry = take(orderId);
      if (!entry) return undefined;
      const answer = entry.approve(options);
      // A refused choice (e.g. a card below the card minimum) leaves the order waiting.
      if (answer.resultCode === 22) waiting.set(orderId, entry);
      return answer;
    },
    decline: (orderId) => take(orderId)?.decline(),
    get(orderId) {
      const entry = live(orderId);
      return entry && summary(entry);
    },
    list: () =>
      [...waiting.keys()]
        .map((orderId) => live(orderId))
        .filter((entry): entry is AwaitingCustomer => entry !== undefined)
        .map(summary),
  };
  return desk;
}
