import {
  acknowledgementFormat,
  buildNotification,
  type NotificationKind,
  type OperationName,
  type SigningKeys,
} from '../gateway';
import { readAcknowledgement } from './acknowledgement';
import type { FaultLayer, ForgeryKind, IpnFaults } from './faults';
import type { SandboxLogger, SandboxTiming } from './options';
import type { Scheduler } from './scheduler';

/**
 * Sends signed notifications to the merchant's ipnUrl: asynchronously, over real HTTP (JSON POST),
 * after `ipnDelayMs`, with the IPN faults applied. A delivery the merchant did not accept because of
 * a connection error, a timeout or a 5xx is redelivered with exponential backoff (the spec shows no
 * redelivery; this is what the real gateway is known to do); a 4xx is final (the merchant refused it).
 */
export interface Notice {
  kind: NotificationKind;
  /** The operation that led to it (fault rules are scoped by operation). */
  source: OperationName;
  url: string | undefined;
  fields: Record<string, unknown>;
}

export type IpnOutcome = 'delivered' | 'rejected' | 'failed' | 'dropped' | 'skipped';

export interface IpnLogEntry {
  seq: number;
  at: string;
  kind: NotificationKind;
  url: string | null;
  orderId: string;
  requestId: string;
  /** Absent for notifications without one (the unbind call). */
  resultCode?: number;
  /** 1 for the first delivery; higher for redeliveries. 0 when nothing was sent (dropped, skipped). */
  attempt: number;
  outcome: IpnOutcome;
  /** This delivery is the extra copy of a `duplicate` fault. */
  duplicate: boolean;
  /** This notification was held by a `reorder` fault and sent after the next one. */
  reordered: boolean;
  /** A forged variant (a `forge` fault), not the gateway's notification: the merchant must refuse it. */
  forged?: ForgeryKind;
  /** The body's signature, which tells the copies of one notification apart from another's. */
  signature?: string;
  /** HTTP status of the merchant's answer. */
  httpStatus?: number;
  /** Flows acknowledged with a signed JSON body: the merchant's resultCode, once the body verified. */
  ackResultCode?: number;
  error?: string;
}

export interface IpnDispatcher {
  send(notice: Notice): void;
  log(): IpnLogEntry[];
  /** Aborts deliveries in flight; with the scheduler stopped, nothing is sent afterwards. */
  stop(): void;
}

interface Delivery {
  notice: Notice;
  body: Record<string, unknown>;
  duplicate: boolean;
  reordered: boolean;
  forged?: ForgeryKind;
}

/** Signs with a key the merchant never shared: what a forger who knows the format can produce. */
const FORGER_KEYS: SigningKeys = {
  accessKey: 'forger-access-key',
  secretKey: 'forger-secret-key-0123456789abcd',
};

export function createIpnDispatcher(deps: {
  keys: SigningKeys;
  timing: SandboxTiming;
  faults: FaultLayer;
  scheduler: Scheduler;
  logger: SandboxLogger;
  now: () => number;
}): IpnDispatcher {
  const { keys, timing, faults, scheduler, logger, now } = deps;
  const entries: IpnLogEntry[] = [];
  const inFlight = new Set<AbortController>();
  let held: Delivery[] = [];
  let seq = 0;
  // Deliveries past timing.ipnMaxInFlight wait here, oldest first.
  const waitingTurn: Array<() => void> = [];
  let delivering = 0;
  const turn = async () => {
    if (delivering >= timing.ipnMaxInFlight) await new Promise<void>((resolve) => waitingTurn.push(resolve));
    delivering += 1;
  };
  const endTurn = () => {
    delivering -= 1;
    waitingTurn.shift()?.();
  };

  function record(
    delivery: Delivery,
    attempt: number,
    outcome: IpnOutcome,
    extra: Partial<IpnLogEntry> = {},
  ) {
    const { fields, kind, url } = delivery.notice;
    entries.push({
      seq: ++seq,
      at: new Date(now()).toISOString(),
      kind,
      url: url ?? null,
      orderId: String(fields.orderId),
      requestId: String(fields.requestId),
      ...(typeof fields.resultCode === 'number' ? { resultCode: fields.resultCode } : {}),
      attempt,
      outcome,
      duplicate: delivery.duplicate,
      reordered: delivery.reordered,
      ...(delivery.forged ? { forged: delivery.forged } : {}),
      ...(typeof delivery.body.signature === 'string' ? { signature: delivery.body.signature } : {}),
      ...extra,
    });
  }

  async function post(delivery: Delivery, attempt: number): Promise<void> {
    if (scheduler.stopped) return;
    await turn();
    try {
      await postOnce(delivery, attempt);
    } finally {
      endTurn();
    }
  }

  async function postOnce(delivery: Delivery, attempt: number): Promise<void> {
    if (scheduler.stopped) return;
    const controller = new AbortController();
    inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), timing.ipnTimeoutMs);
    let retry = false;
    try {
      const response = await fetch(delivery.notice.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(delivery.body),
        signal: controller.signal,
      });
      const answer = Buffer.from(await response.arrayBuffer());
      if (scheduler.stopped) return;
      const accepted = response.status >= 200 && response.status < 300;
      retry = response.status >= 500;
      if (accepted && acknowledgementFormat(delivery.notice.kind, delivery.notice.source) === 'signed-json') {
        // This flow's acknowledgement is a signed body: a 2xx alone does not say the merchant has it.
        const ack = readAcknowledgement(answer, delivery.body, keys);
        retry = !ack.ok;
        record(delivery, attempt, ack.ok ? 'delivered' : 'failed', {
          httpStatus: response.status,
          ...(ack.ok ? { ackResultCode: ack.resultCode } : { error: `bad acknowledgement: ${ack.reason}` }),
        });
      } else {
        record(delivery, attempt, accepted ? 'delivered' : retry ? 'failed' : 'rejected', {
          httpStatus: response.status,
        });
      }
    } catch (error) {
      if (scheduler.stopped) return;
      retry = true;
      record(delivery, attempt, 'failed', { error: describe(error) });
    } finally {
      clearTimeout(timer);
      inFlight.delete(controller);
    }
    if (retry && attempt < timing.ipnMaxAttempts) {
      const delayMs = timing.ipnRetryDelayMs * 2 ** (attempt - 1);
      logger.warn(
        { kind: delivery.notice.kind, orderId: delivery.notice.fields.orderId, attempt, delayMs },
        'sandbox IPN not accepted; redelivering',
      );
      scheduler.after(delayMs, () => void post(delivery, attempt + 1));
    }
  }

  /** orderId of the last notification of each kind: a forger replays a body under another order's id. */
  const lastOrderOf = new Map<NotificationKind, string>();

  function forgery(delivery: Delivery, kind: ForgeryKind): Delivery {
    const genuine = delivery.body;
    const forged = (body: Record<string, unknown>): Delivery => ({ ...delivery, body, forged: kind });
    switch (kind) {
      case 'amount':
        if (typeof genuine.amount === 'number') return forged({ ...genuine, amount: genuine.amount + 1000 });
        return forgery(delivery, 'resultCode');
      case 'resultCode':
        return forged({ ...genuine, resultCode: genuine.resultCode === 0 ? 1006 : 0 });
      case 'foreignKey': {
        const { signature: _signature, ...fields } = genuine;
        return forged(buildNotification(delivery.notice.kind, fields, FORGER_KEYS));
      }
      case 'otherOrder': {
        const other = lastOrderOf.get(delivery.notice.kind);
        const orderId = other && other !== genuine.orderId ? other : `${String(genuine.orderId)}X`;
        return forged({ ...genuine, orderId });
      }
    }
  }

  /** The forged variants, one after the other; `otherOrder` takes an order notified before this one. */
  async function forge(delivery: Delivery, kinds: readonly ForgeryKind[]): Promise<void> {
    for (const kind of kinds) await post(forgery(delivery, kind), 1);
  }

  /**
   * Sends one notification: the forged variants first when asked, then the genuine one (twice in a row
   * for `duplicate`, or `copies` times at once), then whatever a reorder fault held back.
   */
  async function deliver(
    delivery: Delivery,
    effects: IpnFaults,
    forgeries: readonly ForgeryKind[],
  ): Promise<void> {
    const release = held;
    held = [];
    await forge(delivery, forgeries);
    lastOrderOf.set(delivery.notice.kind, String(delivery.body.orderId));
    await Promise.all(
      Array.from({ length: effects.copies }, (_, index) => post({ ...delivery, duplicate: index > 0 }, 1)),
    );
    if (effects.duplicate) await post({ ...delivery, duplicate: true }, 1);
    for (const late of release) await post({ ...late, reordered: true }, 1);
  }

  return {
    send(notice) {
      if (scheduler.stopped) return;
      let body: Record<string, unknown>;
      try {
        body = buildNotification(notice.kind, notice.fields, keys);
      } catch (error) {
        // A sandbox bug, not a merchant problem. The money already moved, so the request must not
        // fail because of it: log it loudly and record it.
        logger.warn({ kind: notice.kind, error: describe(error) }, 'sandbox could not build an IPN');
        const unsent: Delivery = { notice, body: {}, duplicate: false, reordered: false };
        record(unsent, 0, 'failed', { error: `could not build: ${describe(error)}` });
        return;
      }
      const delivery: Delivery = { notice, body, duplicate: false, reordered: false };
      if (!notice.url) {
        record(delivery, 0, 'skipped', { error: 'no ipnUrl in the request' });
        return;
      }
      const identity = `${String(body.orderId)}:${String(body.requestId)}:${String(body.resultCode)}`;
      const effects = faults.forIpn(notice.kind, notice.source, identity, String(body.orderId));
      // The forger is not the gateway: a genuine notification lost, held back or late does not stop it, and
      // it comes at the usual time (a run that asked for a forgery sees one sent).
      const forgesAlone = effects.drop || effects.reorder || effects.delayMs > 0;
      if (forgesAlone && effects.forgeries.length > 0)
        scheduler.after(timing.ipnDelayMs, () => void forge(delivery, effects.forgeries));
      if (effects.drop) {
        record(delivery, 0, 'dropped');
        return;
      }
      if (effects.reorder) {
        held.push(delivery);
        return;
      }
      scheduler.after(
        timing.ipnDelayMs + effects.delayMs,
        () => void deliver(delivery, effects, forgesAlone ? [] : effects.forgeries),
      );
    },
    log: () => entries.map((entry) => ({ ...entry })),
    stop() {
      held = [];
      for (const controller of inFlight) controller.abort();
      inFlight.clear();
    },
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
