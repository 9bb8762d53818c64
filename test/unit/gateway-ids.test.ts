/**
 * gateway/ids.ts over thousands of generated ids, the longest and oddest the API accepts (every run
 * of separators, digits only, the maximum length, ids that nearly end like a derived id): every requestId and
 * lookup id fits the gateway's limit and alphabet, distinct (orderId, step) pairs never share a requestId,
 * lookup ids are valid orderIds, and every orderId derived from an accepted id fits its operation's limit and
 * is itself never an accepted id. Seeded (PAYRUN_IDS_SEED), so a failure replays.
 */
import { describe, expect, it } from 'vitest';
import { operationNames, operationSpec, ORDER_ID_PATTERN, type OperationName } from '../../gateway';
import {
  hash16,
  LOOKUP_ENDING,
  lookupIdFor,
  maxIdLength,
  maxUserIdLength,
  ORDER_ID_FAMILIES,
  REQUEST_ID_MAX_LENGTH,
  requestIdFor,
  reservedEndingOf,
  USER_ID_KINDS,
  userIdProblem,
  DERIVATION_BOUNDS,
  type UserIdKind,
} from '../../gateway/ids';
import { chargeOrderId, manageOrderId } from '../../contracts/subscriptions';
import { remittanceOrderIds } from '../../contracts/remittances';
import { payoutBatchId } from '../../contracts/payouts';

const SEED = Number(process.env.PAYRUN_IDS_SEED ?? 31);
const IDS_PER_KIND = 1500;

/** mulberry32: the same ids on every run with one seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}

const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const HEX = '0123456789abcdef';
const SEPARATOR_RUNS = ['-', '_', '.', '--', '-_', '_.', '.-', '-.-', '_-_', '...', '-_.', '.-_-'];
/** Ends that come close to a derived id's without being one. */
const NEAR_ENDINGS = [
  '-c',
  '-c1a',
  '-cc1',
  '_c1',
  '.c1',
  '-C1',
  '-c1-r',
  '-c1_r1',
  '-m',
  '-M7',
  '-r',
  '-rr1',
  '-b',
  '-B001',
  '-b01x',
  '-verif',
  '-verifyy',
  '-Verify',
  '-buyer',
  '-bu',
  '-dele',
  '-del1',
  '_del',
  '-chk2',
  '-chK',
  '-q0123456789a',
  '-q0123456789abc',
  '-q0123456789AB',
  '-Q0123456789ab',
  '-q',
];

/** One id the API could take for `kind`, or not: the generator aims at the edges, the API's rules judge. */
function candidate(rng: ReturnType<typeof random>, max: number): string {
  const shape = rng.int(6);
  const length = rng.next() < 0.4 ? max : 1 + rng.int(max);
  const text = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[rng.int(alphabet.length)]).join('');
  let id: string;
  if (shape === 0) id = text(DIGITS, length);
  else if (shape === 1) id = text(ALNUM, length);
  else {
    // Segments joined by every kind of separator run.
    id = text(ALNUM, 1 + rng.int(3));
    while (id.length < length) id += rng.pick(SEPARATOR_RUNS) + text(ALNUM, 1 + rng.int(4));
  }
  if (shape === 5) id += rng.pick(NEAR_ENDINGS);
  // Keep it a gateway orderId of at most `max` characters: cut, then drop trailing separators.
  id = id.slice(0, max).replace(/[-_.]+$/, '');
  if (shape === 5) id = id.slice(0, Math.max(1, max - 16)) + rng.pick(NEAR_ENDINGS);
  return id.slice(0, max).replace(/[-_.]+$/, '') || 'x';
}

function acceptedIds(kind: UserIdKind, seed: number): string[] {
  const rng = random(seed);
  const max = maxUserIdLength(kind);
  const ids = new Set<string>([
    '1',
    '0',
    'a',
    'Z'.repeat(max),
    '9'.repeat(max),
    `a${'-_.'.repeat(20)}b`.slice(0, max),
  ]);
  for (const ending of NEAR_ENDINGS) ids.add(`x${ending}`.replace(/[-_.]+$/, ''));
  while (ids.size < IDS_PER_KIND) ids.add(candidate(rng, max));
  return [...ids].filter((id) => userIdProblem(kind, id) === undefined);
}

/** The orderId limit an operation's table entry states (undefined: none). */
function orderIdLimit(operation: OperationName): number | undefined {
  const field = operationSpec(operation).request.orderId;
  return field?.kind === 'string' ? field.maxLength : undefined;
}

/** The orderIds payrun derives from an accepted id of each kind, the longest of each family, with where they go. */
function derivedFrom(
  kind: UserIdKind,
  id: string,
): Array<{ orderId: string; sentTo: readonly OperationName[] }> {
  const { maxCycle, maxRetry, maxManageSeq } = DERIVATION_BOUNDS;
  const family = (name: string) => ORDER_ID_FAMILIES.find((entry) => entry.name === name)!.sentTo;
  switch (kind) {
    case 'subscription':
      return [
        { orderId: chargeOrderId(id, 1, 0), sentTo: family('subscription charge') },
        { orderId: chargeOrderId(id, maxCycle, 0), sentTo: family('subscription charge') },
        { orderId: chargeOrderId(id, maxCycle, maxRetry), sentTo: family('subscription charge retry') },
        { orderId: manageOrderId(id, maxManageSeq), sentTo: family('subscription manage') },
      ];
    case 'payment':
      // db/payments/payments.ts reserveRefund: `<payment orderId>-r<seq>`.
      return [{ orderId: `${id}-r${1 + (id.length % 997)}`, sentTo: family('refund') }];
    case 'disbursement':
      // activities/payouts/disbursements.ts checkWallet: `<orderId>-chk`.
      return [{ orderId: `${id}-chk`, sentTo: family('disbursement wallet check') }];
    case 'saved_method_payment':
      return [];
  }
}

/** Every step payrun's activities send today, and a few made up. */
const STEPS = [
  'c',
  'q1',
  'q12',
  'capture',
  'cancel',
  'pay',
  'pay2',
  'create',
  'create2',
  'init',
  'start',
  'cbq',
  'cbq3',
  'cbqx',
  'bind',
  'v1',
  'del',
  'chk',
  'rate1',
  'verify',
  'buy',
  'a',
  '0',
  'zzzzzzzzzzzzzzzz',
];

const REQUEST_ID_ALPHABET = /^[0-9A-Za-z._-]+$/;
const accepted = Object.fromEntries(
  USER_ID_KINDS.map((kind, index) => [kind, acceptedIds(kind, SEED + index)]),
) as Record<UserIdKind, string[]>;
const isAcceptedAnywhere = (id: string) =>
  USER_ID_KINDS.some((kind) => userIdProblem(kind, id) === undefined);

describe('gateway ids: limits read from the operation table', () => {
  it('the requestId limit is the table’s, and each kind’s maximum is the tightest fit of its derived orderIds', () => {
    expect(REQUEST_ID_MAX_LENGTH).toBe(
      Math.min(
        ...operationNames.flatMap((name) => {
          const field = operationSpec(name).request.requestId;
          return field?.kind === 'string' && field.maxLength !== undefined ? [field.maxLength] : [];
        }),
      ),
    );
    for (const kind of USER_ID_KINDS) {
      const max = maxUserIdLength(kind);
      expect(max, kind).toBeGreaterThan(0);
      expect(max, kind).toBeLessThanOrEqual(maxIdLength(kind));
    }
    // Where the gateway is what limits a kind, its maximum is tight: one more character breaks a limit.
    const subscriptionMax = maxIdLength('subscription');
    const fits = (id: string) =>
      derivedFrom('subscription', id).every(({ orderId, sentTo }) =>
        [...sentTo, 'subscription.start' as const].every(
          (op) => orderId.length <= (orderIdLimit(op) ?? Infinity),
        ),
      );
    expect(fits('s'.repeat(subscriptionMax))).toBe(true);
    expect(fits('s'.repeat(subscriptionMax + 1))).toBe(false);
  });
});

describe(`gateway ids over ${IDS_PER_KIND} generated ids a kind (seed ${SEED})`, () => {
  it('generates the oddest ids the API takes, and refuses the ones ending like a derived id', () => {
    for (const kind of USER_ID_KINDS) {
      const ids = accepted[kind];
      const max = maxUserIdLength(kind);
      expect(ids.length, kind).toBeGreaterThan(IDS_PER_KIND * 0.8);
      expect(ids.some((id) => id.length === max)).toBe(true);
      expect(ids.some((id) => /^[0-9]+$/.test(id) && id.length === max)).toBe(true);
      expect(ids.some((id) => /[-_.]{3}/.test(id))).toBe(true);
      expect(ids.filter((id) => NEAR_ENDINGS.some((ending) => id.endsWith(ending))).length).toBeGreaterThan(
        30,
      );
      expect(ids.filter((id) => !ORDER_ID_PATTERN.test(id))).toEqual([]);
    }
    for (const id of [
      'acme-c1',
      'acme-c1-r1',
      'acme-m2',
      'INV-7-r3',
      'x-b001',
      'r-verify',
      'r-buy',
      'b-del',
      'd-chk',
    ])
      expect(userIdProblem('payment', id)?.rule, id).toBe('reserved_ending');
    expect(userIdProblem('payment', 'x-q0123456789ab')?.rule).toBe('reserved_ending');
    expect(userIdProblem('subscription', 's'.repeat(maxUserIdLength('subscription') + 1))?.rule).toBe(
      'max_length',
    );
  });

  it('every requestIdFor and lookupIdFor answer fits the requestId limit and alphabet; lookups are orderIds', () => {
    const nonce = (n: number) => n.toString(16).padStart(12, '0');
    const problems: string[] = [];
    let count = 0;
    for (const kind of USER_ID_KINDS)
      for (const id of accepted[kind]) {
        const orderIds = [id, ...derivedFrom(kind, id).map((derived) => derived.orderId)];
        for (const orderId of orderIds) {
          for (const step of STEPS) {
            const requestId = requestIdFor(orderId, step);
            if (requestId.length > REQUEST_ID_MAX_LENGTH) problems.push(`too long: ${requestId}`);
            if (!REQUEST_ID_ALPHABET.test(requestId)) problems.push(`alphabet: ${requestId}`);
            if (!requestId.endsWith(`-${step}`)) problems.push(`step lost: ${requestId}`);
            count += 1;
          }
          const lookup = lookupIdFor(orderId, nonce(count));
          if (lookup.length > REQUEST_ID_MAX_LENGTH) problems.push(`lookup too long: ${lookup}`);
          if (!ORDER_ID_PATTERN.test(lookup)) problems.push(`lookup is no orderId: ${lookup}`);
          if (!LOOKUP_ENDING.test(lookup)) problems.push(`lookup ending: ${lookup}`);
          if (isAcceptedAnywhere(lookup)) problems.push(`lookup is a user id: ${lookup}`);
        }
      }
    expect(problems.slice(0, 20)).toEqual([]);
    expect(count).toBeGreaterThan(100_000);
  });

  it('distinct (orderId, step) pairs never share a requestId, compressed or not; lookups never equal one', () => {
    const seen = new Map<string, string>();
    const record = (requestId: string, what: string) => {
      const earlier = seen.get(requestId);
      if (earlier !== undefined && earlier !== what) expect.fail(`${requestId} names ${earlier} and ${what}`);
      seen.set(requestId, what);
    };
    const orderIds = new Set<string>();
    for (const kind of USER_ID_KINDS)
      for (const id of accepted[kind]) {
        orderIds.add(id);
        for (const derived of derivedFrom(kind, id)) orderIds.add(derived.orderId);
      }
    // Long ids that differ only past the part a compressed requestId keeps.
    const rng = random(SEED + 99);
    const start = 'L'.repeat(40);
    for (let i = 0; i < 2000; i += 1) orderIds.add(`${start}${i}${rng.pick(['', '-x', '.y', '_z'])}${i % 7}`);
    // Prefixes of one another, and ids that differ by a separator.
    for (const id of ['a', 'a-b', 'a-b-c', 'a_b', 'a.b', 'a--b', 'a-b-pay', 'a-pay']) orderIds.add(id);
    for (const orderId of orderIds)
      for (const step of STEPS) record(requestIdFor(orderId, step), JSON.stringify([orderId, step]));
    let compressed = 0;
    for (const requestId of seen.keys()) if (requestId.startsWith('_')) compressed += 1;
    expect(compressed).toBeGreaterThan(10_000);
    // A lookup id never equals a requestId of a step: its ending is reserved for lookups.
    const equal = [...orderIds]
      .map((orderId) => lookupIdFor(orderId, 'abcdef012345'))
      .filter((id) => seen.has(id));
    expect(equal).toEqual([]);
  });

  it('every orderId derived from an accepted id fits its operations’ limits and is no accepted id itself', () => {
    const problems: string[] = [];
    let count = 0;
    for (const kind of USER_ID_KINDS)
      for (const id of accepted[kind]) {
        for (const { orderId, sentTo } of derivedFrom(kind, id)) {
          count += 1;
          if (!ORDER_ID_PATTERN.test(orderId)) problems.push(`no orderId: ${orderId}`);
          for (const operation of sentTo)
            if (orderId.length > (orderIdLimit(operation) ?? Infinity))
              problems.push(`${orderId} too long for ${operation}`);
          // Document 2: every subscription orderId is String(50), charges too.
          if (kind === 'subscription' && orderId.length > orderIdLimit('subscription.start')!)
            problems.push(`${orderId} too long for a subscription orderId`);
          if (isAcceptedAnywhere(orderId)) problems.push(`derived ${orderId} is a user id too`);
          if (!reservedEndingOf(orderId)) problems.push(`derived ${orderId} ends like no family`);
        }
      }
    expect(problems.slice(0, 20)).toEqual([]);
    expect(count).toBeGreaterThan(IDS_PER_KIND * 4);
  });

  it('ids payrun draws itself, and what it derives from them, fit too and end like their families', () => {
    const rng = random(SEED + 7);
    const hex = (n: number) => Array.from({ length: n }, () => HEX[rng.int(16)]).join('');
    for (let i = 0; i < 200; i += 1) {
      const remittanceId = `rmt-2026${String(1 + rng.int(12)).padStart(2, '0')}28-${hex(8)}`;
      const ids = remittanceOrderIds(remittanceId);
      expect(remittanceId.length).toBeLessThanOrEqual(maxIdLength('remittance'));
      expect(reservedEndingOf(ids.verify)?.name).toBe('remittance wallet check');
      expect(reservedEndingOf(ids.buy)?.name).toBe('remittance purchase');
      expect(reservedEndingOf(ids.create)).toBeUndefined();
      const bindingId = `bnd-${hex(16)}`;
      expect(bindingId.length).toBeLessThanOrEqual(maxIdLength('saved_method_binding'));
      expect(reservedEndingOf(`${bindingId}-del`)?.name).toBe('saved-method deletion');
      const runId = `run-20261128-${hex(6)}`;
      for (const seq of [1, 99, 999, 1000])
        expect(reservedEndingOf(payoutBatchId(runId, seq))?.name).toBe('payout batch');
    }
    expect(reservedEndingOf(chargeOrderId('acme', 3, 0))?.name).toBe('subscription charge');
    expect(reservedEndingOf(chargeOrderId('acme', 3, 1))?.name).toBe('subscription charge retry');
    expect(reservedEndingOf(manageOrderId('acme', 2))?.name).toBe('subscription manage');
    expect(reservedEndingOf('INV-7-r1')?.name).toBe('refund');
    expect(reservedEndingOf('d-1-chk')?.name).toBe('disbursement wallet check');
    expect(reservedEndingOf(lookupIdFor('d-1', '0123456789ab'))?.name).toBe('lookup');
  });
});

describe('requestIdFor and lookupIdFor', () => {
  it('keep a short id readable and compress a long one deterministically, starting with _', () => {
    expect(requestIdFor('INV-7', 'pay')).toBe('INV-7-pay');
    const long = `${'x'.repeat(46)}-a1`;
    const compressed = requestIdFor(long, 'create');
    expect(compressed).toBe(requestIdFor(long, 'create'));
    expect(compressed).toMatch(/^_x+[0-9a-f]{16}-create$/);
    expect(compressed).toHaveLength(REQUEST_ID_MAX_LENGTH);
    expect(requestIdFor(`${'x'.repeat(46)}-a2`, 'create')).not.toBe(compressed);
  });

  it('hashes with FNV-1a 64 (its published vectors)', () => {
    expect(hash16('')).toBe('cbf29ce484222325');
    expect(hash16('a')).toBe('af63dc4c8601ec8c');
    expect(hash16('foobar')).toBe('85944171f73967e8');
  });

  it('cuts a lookup’s base, never compresses it, and drops separators the cut leaves at its end', () => {
    expect(lookupIdFor('INV-7', '0123456789ab')).toBe('INV-7-q0123456789ab');
    const lookup = lookupIdFor(`${'a'.repeat(35)}-._${'b'.repeat(10)}`, '0123456789ab');
    expect(lookup).toBe(`${'a'.repeat(35)}-q0123456789ab`);
    expect(ORDER_ID_PATTERN.test(lookup)).toBe(true);
  });

  it('refuses a step or a nonce of the wrong shape, and an orderId the gateway would refuse', () => {
    for (const step of ['', 'create-2', 'Pay', 'p_y', 'a'.repeat(17), 'q0123456789ab'])
      expect(() => requestIdFor('INV-7', step), step).toThrow(TypeError);
    for (const orderId of ['', '_x', 'x-', 'a b'])
      expect(() => requestIdFor(orderId, 'pay'), orderId).toThrow(TypeError);
    for (const nonce of ['', '0123456789a', '0123456789AB', '0123456789abc'])
      expect(() => lookupIdFor('INV-7', nonce), nonce).toThrow(TypeError);
  });
});
