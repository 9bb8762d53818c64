/**
 * Every id payrun sends the gateway, stated once (issue 31, "one order-id namespace"). Pure code, no Node
 * built-ins: activities, the API and the tests import it. Workflow code does not: the limits below are read
 * from the operation table, and the workflow bundle evaluates its modules again for every new workflow
 * (`test/unit/workflow-bundle-imports.test.ts`); the ids a workflow derives come to it from its activities
 * or its contract.
 *
 * - **orderIds**: a business object's own id (a payment's, a disbursement's, a subscription's …) or an id
 *   derived from it by one of the families below (`<subscriptionId>-c<cycle>`, `<remittanceId>-buy` …).
 *   A user-supplied id that ends like a family is refused by the API (`reservedEndingOf`), so derived ids
 *   and user ids are disjoint by construction; the database keeps one owner per orderId across every kind
 *   (`gateway_order_ids`, `db/shared/gateway-order-ids.ts`).
 * - **lengths**: `maxIdLength(kind)` is the longest base id whose own orderId and every derived orderId fit
 *   the limits the operation table states (`gateway/operations/`); the API takes at most `maxUserIdLength`.
 * - **requestIds** (`requestIdFor`) and **lookups** (`lookupIdFor`) always fit the table's requestId limit,
 *   whatever the orderId's length.
 */
import { operationNames, operationSpec, ORDER_ID_PATTERN, type OperationName } from './operations';

// ---- limits, read from the operation table ----------------------------------------------------------------

/** The longest text the table allows in a request field of an operation; undefined: it states none. */
function maxLengthOf(operation: OperationName, field: 'orderId' | 'requestId'): number | undefined {
  const spec = operationSpec(operation).request[field];
  return spec?.kind === 'string' ? spec.maxLength : undefined;
}

/** requestId is String(50) on every operation; the tightest the table states is the one that holds. */
export const REQUEST_ID_MAX_LENGTH = Math.min(
  ...operationNames.flatMap((operation) => maxLengthOf(operation, 'requestId') ?? []),
);

// ---- kinds of base ids ------------------------------------------------------------------------------------

/** The ids payrun derives gateway orderIds from; the first four are chosen by API callers. */
export type IdKind =
  | 'payment'
  | 'disbursement'
  | 'subscription'
  | 'saved_method_payment'
  | 'remittance'
  | 'saved_method_binding'
  | 'payout_run';

/** The kinds whose id an API caller chooses (the others are made up by payrun: `rmt-…`, `bnd-…`, `run-…`). */
export const USER_ID_KINDS = ['payment', 'disbursement', 'subscription', 'saved_method_payment'] as const;
export type UserIdKind = (typeof USER_ID_KINDS)[number];

interface KindSpec {
  /** The operations that take the base id itself as their orderId (none for a payout run). */
  readonly sentTo: readonly OperationName[];
  /**
   * A limit the spec states for every orderId of this kind, base and derived alike, read where the table
   * states it: document 2's "subscription orderId 50" (on subscription/start, /create and /manage; the
   * table's subscription/pay entry states none, and a charge is a subscription orderId all the same), and
   * wallet binding's String(50) (binding.linkWallet), which holds for a binding's deletion too.
   */
  readonly limitFrom?: OperationName;
}

const PAYMENT_CREATES = operationNames.filter(
  (name) => name.startsWith('payment.') && !['payment.query', 'payment.confirm'].includes(name),
);

const KINDS: Readonly<Record<IdKind, KindSpec>> = {
  payment: { sentTo: [...PAYMENT_CREATES, 'payment.query', 'payment.confirm'] },
  disbursement: { sentTo: ['disbursement.pay', 'payment.query'] },
  subscription: {
    sentTo: ['subscription.start', 'subscription.create', 'tokenization.cbQuery', 'payment.query'],
    limitFrom: 'subscription.start',
  },
  saved_method_payment: { sentTo: ['tokenization.pay', 'tokenization.verify', 'payment.query'] },
  remittance: { sentTo: ['remittance.create', 'payment.query'] },
  saved_method_binding: {
    sentTo: [
      'binding.payWithCC',
      'binding.payWithATM',
      'binding.linkWallet',
      'tokenization.cbQuery',
      'tokenization.bind',
    ],
    limitFrom: 'binding.linkWallet',
  },
  payout_run: { sentTo: [] },
};

// ---- families of derived orderIds -------------------------------------------------------------------------

/** The bounds the families' longest suffixes are budgeted for; a derivation beyond them would not fit. */
export const DERIVATION_BOUNDS = {
  /** Subscription cycles: 99 999 cycles, 273 years of daily billing. */
  maxCycle: 99_999,
  /** Attempts of one cycle after the first (the workflow makes one retry, after insufficient funds). */
  maxRetry: 9,
  /** pause / cancel / reactivate calls of one subscription (a suffix no longer than a charge retry's). */
  maxManageSeq: 99_999_999,
} as const;

export interface OrderIdFamily {
  readonly name: string;
  /** How the suffix reads, as the API's refusal names it. */
  readonly shape: string;
  /** The suffix, matched at the end of an id. */
  readonly ending: RegExp;
  /** The kind of base id the suffix is added to. */
  readonly base: IdKind;
  /** The operations that take these ids as their orderId. */
  readonly sentTo: readonly OperationName[];
  /** The longest suffix payrun derives (DERIVATION_BOUNDS); unset: unbounded, allowed only where no limit applies. */
  readonly longest?: string;
  /** Where the derivation is written. */
  readonly derivedBy: string;
  readonly why: string;
}

const { maxCycle, maxRetry, maxManageSeq } = DERIVATION_BOUNDS;

/**
 * Every family of derived orderIds, the more specific first (a charge retry also ends like a refund).
 * The definitions live where their callers import them; `test/unit/gateway-ids.test.ts` checks that each
 * one derives ids of its family here.
 */
export const ORDER_ID_FAMILIES: readonly OrderIdFamily[] = [
  {
    name: 'subscription charge retry',
    shape: '-c<cycle>-r<attempt>',
    ending: /-c[0-9]+-r[0-9]+$/,
    base: 'subscription',
    sentTo: ['subscription.pay', 'payment.query'],
    longest: `-c${maxCycle}-r${maxRetry}`,
    derivedBy: 'chargeOrderId (contracts/subscriptions/subscriptions.ts)',
    why: "a subscription's retried charge of a cycle",
  },
  {
    name: 'subscription charge',
    shape: '-c<cycle>',
    ending: /-c[0-9]+$/,
    base: 'subscription',
    sentTo: ['subscription.pay', 'payment.query'],
    longest: `-c${maxCycle}`,
    derivedBy: 'chargeOrderId (contracts/subscriptions/subscriptions.ts)',
    why: "a subscription's charge of a cycle",
  },
  {
    name: 'subscription manage',
    shape: '-m<seq>',
    ending: /-m[0-9]+$/,
    base: 'subscription',
    sentTo: ['subscription.manage'],
    longest: `-m${maxManageSeq}`,
    derivedBy: 'manageOrderId (contracts/subscriptions/subscriptions.ts)',
    why: "a subscription's pause, cancel or reactivation",
  },
  {
    name: 'refund',
    shape: '-r<seq>',
    ending: /-r[0-9]+$/,
    base: 'payment',
    sentTo: ['refund.create', 'refund.query'],
    derivedBy: 'reserveRefund (db/payments/payments.ts)',
    why: "a payment's refund",
  },
  {
    name: 'payout batch',
    shape: '-b<nnn>',
    ending: /-b[0-9]+$/,
    base: 'payout_run',
    sentTo: ['batch.init', 'batch.create', 'batch.pay', 'batch.query'],
    derivedBy: 'payoutBatchId (contracts/payouts/runs.ts)',
    why: "a payout run's batch",
  },
  {
    name: 'remittance wallet check',
    shape: '-verify',
    ending: /-verify$/,
    base: 'remittance',
    sentTo: ['remittance.verify'],
    longest: '-verify',
    derivedBy: 'remittanceOrderIds (contracts/remittances/remittances.ts)',
    why: "a remittance's wallet check",
  },
  {
    name: 'remittance purchase',
    shape: '-buy',
    ending: /-buy$/,
    base: 'remittance',
    sentTo: ['remittance.buy'],
    longest: '-buy',
    derivedBy: 'remittanceOrderIds (contracts/remittances/remittances.ts)',
    why: "a remittance's currency purchase",
  },
  {
    name: 'saved-method deletion',
    shape: '-del',
    ending: /-del$/,
    base: 'saved_method_binding',
    sentTo: ['tokenization.delete'],
    longest: '-del',
    derivedBy: 'deleteSavedMethodAtGateway (activities/saved-methods/saved-methods.ts)',
    why: "a saved method's deletion",
  },
  {
    name: 'disbursement wallet check',
    shape: '-chk',
    ending: /-chk$/,
    base: 'disbursement',
    sentTo: ['disbursement.verify'],
    longest: '-chk',
    derivedBy: 'checkWallet (activities/payouts/disbursements.ts)',
    why: "a disbursement's wallet check",
  },
];

/** A lookup's suffix: `-q` and a 12-hex-digit nonce (lookupIdFor). Reserved like a family's. */
export const LOOKUP_ENDING = /-q[0-9a-f]{12}$/;

export interface ReservedEnding {
  /** The family whose ids end this way, or 'lookup'. */
  readonly name: string;
  readonly shape: string;
  /** The end of the id that matched, e.g. `-c1`. */
  readonly text: string;
  readonly why: string;
}

const LOOKUP: Omit<ReservedEnding, 'text'> = {
  name: 'lookup',
  shape: '-q<12 hex digits>',
  why: 'a lookup (a balance, a status query)',
};

/** Which derived shape an id ends with, or undefined: a user-supplied id must end with none. */
export function reservedEndingOf(id: string): ReservedEnding | undefined {
  for (const family of ORDER_ID_FAMILIES) {
    const match = family.ending.exec(id);
    if (match) return { name: family.name, shape: family.shape, text: match[0], why: family.why };
  }
  const lookup = LOOKUP_ENDING.exec(id);
  return lookup ? { ...LOOKUP, text: lookup[0] } : undefined;
}

/** Every reserved ending as one JSON-Schema pattern (unanchored at the start, as JSON Schema reads it). */
export const RESERVED_ENDINGS_PATTERN = `(${[
  ...ORDER_ID_FAMILIES.map((family) => family.ending),
  LOOKUP_ENDING,
]
  .map((ending) => ending.source.replace(/\$$/, ''))
  .join('|')})$`;

// ---- lengths ----------------------------------------------------------------------------------------------

/**
 * The longest base id of a kind whose own orderId and every derived orderId fit what the table states:
 * each operation's orderId limit less the longest suffix its family derives, and the kind's own limit
 * (`limitFrom`) less the longest suffix of any of its families. Infinity: the table states no limit.
 * Lookups never count: their ids are cut to fit (lookupIdFor).
 */
export function maxIdLength(kind: IdKind): number {
  const spec = KINDS[kind];
  const budgets: number[] = spec.sentTo.flatMap((operation) => maxLengthOf(operation, 'orderId') ?? []);
  const families = ORDER_ID_FAMILIES.filter((family) => family.base === kind);
  const kindLimit = spec.limitFrom && maxLengthOf(spec.limitFrom, 'orderId');
  if (kindLimit !== undefined) budgets.push(kindLimit);
  for (const family of families) {
    const limits = family.sentTo.flatMap((operation) => maxLengthOf(operation, 'orderId') ?? []);
    if (kindLimit !== undefined) limits.push(kindLimit);
    if (limits.length === 0) continue;
    if (family.longest === undefined)
      throw new Error(`The ${family.name} family has a length limit but no bound on its suffix`);
    budgets.push(...limits.map((limit) => limit - family.longest!.length));
  }
  return Math.min(Infinity, ...budgets);
}

/**
 * The longest id payrun takes from an API caller, whatever the gateway would allow: ids are keys people type
 * and read, and 50 is the longest the API took before (a disbursementId), which every id path parameter
 * takes. A product choice, not a gateway fact; the gateway's limit is applied below it.
 */
export const USER_ID_LENGTH_CAP = 50;

export function maxUserIdLength(kind: UserIdKind): number {
  return Math.min(USER_ID_LENGTH_CAP, maxIdLength(kind));
}

/** Why the API refuses `id` as a caller-supplied id of `kind`, or undefined when it takes it. */
export function userIdProblem(
  kind: UserIdKind,
  id: string,
):
  | { rule: 'min_length' | 'max_length' | 'order_id_pattern' | 'reserved_ending'; message: string }
  | undefined {
  const max = maxUserIdLength(kind);
  if (id.length === 0) return { rule: 'min_length', message: 'must not be empty' };
  if (id.length > max)
    return {
      rule: 'max_length',
      message: `at most ${max} characters, so that every gateway orderId derived from it fits the gateway's limits`,
    };
  if (!ORDER_ID_PATTERN.test(id))
    return { rule: 'order_id_pattern', message: 'letters and digits, joined by - _ or .' };
  const ending = reservedEndingOf(id);
  if (ending)
    return {
      rule: 'reserved_ending',
      message:
        `must not end with "${ending.text}": ids ending ${ending.shape} are the gateway orderIds payrun derives ` +
        `for ${ending.why}, and one orderId names one order`,
    };
  return undefined;
}

// ---- requestIds and lookups -------------------------------------------------------------------------------

/** A step names one request of one order: lower-case letters and digits, no separator, short. */
const STEP = /^[a-z0-9]{1,16}$/;
const NONCE = /^[0-9a-f]{12}$/;
const HASH_DIGITS = 16;

/** FNV-1a, 64 bits, over the code points, as 16 lower-case hex digits: deterministic and pure. */
export function hash16(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const char of text) {
    hash ^= BigInt(char.codePointAt(0)!);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(HASH_DIGITS, '0');
}

function assertOrderId(orderId: string): void {
  if (!ORDER_ID_PATTERN.test(orderId))
    throw new TypeError(`Not a gateway orderId: ${JSON.stringify(orderId)}`);
}

/**
 * The requestId of one step of one order: the same on every attempt, at most REQUEST_ID_MAX_LENGTH
 * characters of `[0-9A-Za-z._-]`.
 *
 * `<orderId>-<step>` when it fits: the step has no hyphen, so the last hyphen splits it back into its
 * (orderId, step), and two pairs never share a requestId. Otherwise the compressed form
 * `_<start of the orderId><16 hex digits of the whole orderId's hash>-<step>`: it starts with `_`, which no
 * orderId does, so it never equals an uncompressed one; two compressed ones are equal only when their
 * steps, starts and hashes are. A step of the lookup shape (`q` and 12 hex digits) is lookupIdFor's.
 */
export function requestIdFor(orderId: string, step: string): string {
  assertOrderId(orderId);
  if (!STEP.test(step) || /^q[0-9a-f]{12}$/.test(step))
    throw new TypeError(`Not a requestId step: ${JSON.stringify(step)} (1 to 16 of a-z 0-9, not q<12 hex>)`);
  const plain = `${orderId}-${step}`;
  if (plain.length <= REQUEST_ID_MAX_LENGTH) return plain;
  const keep = REQUEST_ID_MAX_LENGTH - 1 - HASH_DIGITS - 1 - step.length;
  return `_${orderId.slice(0, keep)}${hash16(orderId)}-${step}`;
}

/**
 * A lookup's id (a balance, a status query, a wallet check made only to read): fresh on every call through
 * its nonce (12 hex digits the activity draws with crypto), usable as the requestId and as the orderId of
 * the lookup at once. `<orderId>-q<nonce>`, the orderId cut short (and stripped of separators it would end
 * with) when that is longer than REQUEST_ID_MAX_LENGTH: never compressed, because a compressed id starts
 * with `_` and an orderId may not. It always matches ORDER_ID_PATTERN, ends with LOOKUP_ENDING (reserved:
 * no user id, derived orderId or requestIdFor step ends so), and two lookups differ by their nonces.
 */
export function lookupIdFor(orderId: string, nonce: string): string {
  assertOrderId(orderId);
  if (!NONCE.test(nonce)) throw new TypeError(`Not a lookup nonce (12 hex digits): ${JSON.stringify(nonce)}`);
  const suffix = `-q${nonce}`;
  return `${orderId.slice(0, REQUEST_ID_MAX_LENGTH - suffix.length).replace(/[-_.]+$/, '')}${suffix}`;
}
