/**
 * The fault matrix, generated: every flow payrun runs declares the gateway operations it calls and what each
 * one does (moves money, creates nothing, or asks); the faults are declared per kind of call; the cells are
 * every (flow, operation, fault) that applies, plus each flow's notification faults and a cell without a
 * fault. Nothing here lists cells by hand: a new operation or flow comes in by its declaration, and the
 * coverage tests refuse an operation of the table, or a workflow the worker registers, that no flow declares.
 */
import { ASSUMED_CODES, codeOf, type OperationName } from '../../gateway';
import type { FaultRule, IpnFaultEffects } from '../../sandbox';

/** What a call does, which decides the faults that apply to it. */
export type Role =
  /** Moves money or creates an order: sent again with the same requestId; 40 and 41 are resolved by query. */
  | 'moves-money'
  /** Creates nothing (a check, a balance, a quote, an exchange of tokens): asked again with fresh ids. */
  | 'creates-nothing'
  /** Asks about an order: only evidence counts (gateway/evidence.ts). */
  | 'query';

export interface FlowSpec {
  readonly name: string;
  /** The workflow types the flow runs (checked against the worker's registry). */
  readonly workflows: readonly string[];
  readonly operations: Readonly<Partial<Record<OperationName, Role>>>;
  /** The flow's outcome arrives by notification: lost, duplicated and died-in-the-receiver cells apply. */
  readonly notifications?: boolean;
  /**
   * Money calls whose orderId a foreign order can take first (payrun's orderId is known before the call:
   * a caller's id, or one derived from it). Payrun-drawn ids (`rmt-…`, `bnd-…`) cannot be guessed.
   */
  readonly duplicateOrder?: readonly OperationName[];
  /** Money calls the spec gives no query for: a lost answer cannot be resolved, an operator is asked. */
  readonly unaskable?: readonly OperationName[];
  /** Queries the flow asks more than once (a first answer, then more): refusals after the first apply. */
  readonly asksAgain?: readonly OperationName[];
}

export interface Fault {
  readonly name: string;
  readonly roles: readonly Role[];
  /** The sandbox rule's effect; the cell adds the operation and its scope. Absent: `duplicate order`. */
  readonly effect?: Omit<FaultRule, 'operation' | 'orderIdPrefix' | 'fields' | 'label'>;
  /** Applies only to a query the flow asks more than once (`asksAgain`). */
  readonly later?: boolean;
}

/**
 * The query refusals exercised end to end: maintenance (10), bad format (20), duplicate requestId (40),
 * order not found (42), unknown error (99), merchant authentication (13, assumed). Every other code of the
 * table is walked against the evidence readers themselves (test/gateway/evidence.test.ts).
 */
export const REFUSALS_END_TO_END: readonly number[] = [
  codeOf('retry_later'),
  codeOf('invalid_request'),
  codeOf('duplicate_request'),
  codeOf('not_found'),
  99,
  ASSUMED_CODES.invalidSignature,
];

export const CALL_FAULTS: readonly Fault[] = [
  {
    name: 'answer lost',
    roles: ['moves-money', 'creates-nothing'],
    effect: { dropResponse: true, times: 1 },
  },
  {
    name: 'hang past the timeout',
    roles: ['moves-money', 'creates-nothing'],
    effect: { hang: true, times: 1 },
  },
  { name: 'HTTP 503', roles: ['moves-money', 'creates-nothing'], effect: { httpStatus: 503, times: 1 } },
  {
    name: 'retry later (10)',
    roles: ['moves-money', 'creates-nothing'],
    effect: { resultCode: 10, times: 1 },
  },
  { name: 'duplicate order', roles: ['moves-money'] },
  ...REFUSALS_END_TO_END.map((code): Fault => ({
    name: `query refused (${code})`,
    roles: ['query'],
    effect: { resultCode: code, times: 2 },
  })),
  { name: "query answer payrun's client rejects", roles: ['query'], effect: { garble: true, times: 2 } },
  // Later in the flow: the first answer passes, the next ones are refused (a query whose order is known to exist).
  ...[codeOf('retry_later'), 99].map((code): Fault => ({
    name: `query refused after its first answer (${code})`,
    roles: ['query'],
    effect: { resultCode: code, skip: 1, times: 2 },
    later: true,
  })),
];

export interface NotificationFault {
  readonly name: string;
  /** The sandbox's notification effect; `dies`: the receiver claims it, then never signals (a dead process). */
  readonly ipn?: IpnFaultEffects;
  readonly dies?: boolean;
}

export const NOTIFICATION_FAULTS: readonly NotificationFault[] = [
  { name: 'notification lost', ipn: { drop: true } },
  { name: 'notification duplicated', ipn: { copies: 3 } },
  { name: 'notification claimed by a receiver that died', dies: true },
];

export interface Cell {
  /** `flow · operation · fault`, unique. */
  readonly id: string;
  readonly flow: string;
  readonly operation?: OperationName;
  readonly role?: Role;
  readonly fault?: Fault;
  readonly notification?: NotificationFault;
  /**
   * `settles`: payrun can know, so its record must end as the ledger's (the flow's outcome without faults);
   * `attention`: payrun cannot know, so it must say needs_attention (or record no money) and move nothing.
   */
  readonly expect: 'settles' | 'attention';
  /** The flow takes its asking path (the outcome by query: a pending order, its notification lost). */
  readonly asks: boolean;
}

export function cellsOf(flows: readonly FlowSpec[]): Cell[] {
  const cells: Cell[] = [];
  for (const flow of flows) {
    cells.push({ id: `${flow.name} · no fault`, flow: flow.name, expect: 'settles', asks: false });
    for (const [operation, role] of Object.entries(flow.operations) as [OperationName, Role][]) {
      for (const fault of CALL_FAULTS) {
        if (!fault.roles.includes(role)) continue;
        if (fault.name === 'duplicate order' && !flow.duplicateOrder?.includes(operation)) continue;
        if (fault.later && !flow.asksAgain?.includes(operation)) continue;
        // A lost or hung answer of a call the spec gives no query for: the request may have been taken.
        const unaskable =
          flow.unaskable?.includes(operation) &&
          (fault.effect?.dropResponse === true || fault.effect?.hang === true);
        cells.push({
          id: `${flow.name} · ${operation} · ${fault.name}`,
          flow: flow.name,
          operation,
          role,
          fault,
          expect: fault.name === 'duplicate order' || unaskable ? 'attention' : 'settles',
          asks: role === 'query',
        });
      }
    }
    if (flow.notifications)
      for (const notification of NOTIFICATION_FAULTS)
        cells.push({
          id: `${flow.name} · ${notification.name}`,
          flow: flow.name,
          notification,
          expect: 'settles',
          asks: false,
        });
  }
  return cells;
}
