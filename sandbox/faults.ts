import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isOperationName, notificationSpecs, type NotificationKind, type OperationName } from '../gateway';

/**
 * Fault injection. A rule applies to every operation or to one (`operation`), optionally only to the
 * next `times` matching events, optionally to a seeded share of them (`probability`). Request effects
 * act on gateway calls of that operation; `ipn` effects act on the notifications that operation leads
 * to (narrowed by `notification`).
 */
export interface FaultRule {
  /** A name for the rule, shown by `faults()` (tests find their own rules by it). */
  label?: string;
  operation?: OperationName;
  notification?: NotificationKind;
  /**
   * Only requests and notifications whose orderId starts with this: one business object's traffic (its
   * own orderId and the ids derived from it), so tests can fault many objects at once, each its own way.
   */
  orderIdPrefix?: string;
  /**
   * Only requests whose plaintext (after decryption) has these values, by dotted path (`rateInfo.amount`,
   * `receiver.walletId`): one object's traffic where its ids are not known beforehand. Never a notification.
   */
  fields?: Readonly<Record<string, string | number>>;
  times?: number;
  /** Let this many matching events pass first (a fault that comes later: after a first answer, say). */
  skip?: number;
  /**
   * Apply to this share (0..1) of the matching events only. Each decision is a hash of `seed`, the
   * rule's place in the list, the event's identity (operation and orderId of a request; kind, orderId,
   * requestId and resultCode of a notification) and how many times that identity was seen, so the
   * same traffic meets the same faults again whatever order it arrives in (a chaos run is repeatable).
   */
  probability?: number;
  /** Seeds `probability`'s decisions; default 0. */
  seed?: number;
  /** Delay before the request is processed (the requestId counts as "in progress" meanwhile). */
  latencyMs?: number;
  /** Answer this HTTP status without processing anything (e.g. 503). */
  httpStatus?: number;
  /** Process the request fully, then never answer: the client gives up (its timeout) and hears nothing. */
  hang?: boolean;
  /** Process the request fully, then destroy the socket without answering. */
  dropResponse?: boolean;
  /** Process the request fully, then answer a body without a resultCode, which no merchant client can use. */
  garble?: boolean;
  /** Answer this resultCode (e.g. 10, "retry later") without processing anything; the requestId stays free. */
  resultCode?: number;
  ipn?: IpnFaultEffects;
}

/**
 * What a forger sends to the merchant's ipnUrl just before the genuine notification: the genuine body
 * with the amount or the resultCode altered (signature kept), the genuine fields signed with another
 * secret key, or the genuine body replayed under another order's orderId (signature kept). A merchant
 * must refuse every one of them.
 */
export const FORGERY_KINDS = ['amount', 'resultCode', 'foreignKey', 'otherOrder'] as const;
export type ForgeryKind = (typeof FORGERY_KINDS)[number];

export interface IpnFaultEffects {
  drop?: boolean;
  /** Deliver the same signed notification twice. */
  duplicate?: boolean;
  /** Deliver this many identical copies (2..10) at the same moment, as concurrent requests. */
  copies?: number;
  /** Send a forged variant of the notification first (see FORGERY_KINDS). */
  forge?: ForgeryKind;
  /** Hold it and deliver it right after the next notification. */
  reorder?: boolean;
  /** Extra delay on top of `ipnDelayMs`. */
  delayMs?: number;
}

export interface RequestFaults {
  latencyMs: number;
  httpStatus?: number;
  hang: boolean;
  dropResponse: boolean;
  garble: boolean;
  resultCode?: number;
}

export interface IpnFaults {
  drop: boolean;
  /** A second delivery after the first. */
  duplicate: boolean;
  /** Concurrent deliveries of the genuine notification (1: no copies). */
  copies: number;
  reorder: boolean;
  delayMs: number;
  /** One forged variant per forge rule that applied, each sent whatever becomes of the genuine one. */
  forgeries: ForgeryKind[];
}

const count = z.number().int().min(0);
const ipnEffectsSchema = z.strictObject({
  drop: z.boolean().optional(),
  duplicate: z.boolean().optional(),
  copies: z.number().int().min(2).max(10).optional(),
  forge: z.enum(FORGERY_KINDS).optional(),
  reorder: z.boolean().optional(),
  delayMs: count.optional(),
});

export const faultRuleSchema = z.strictObject({
  label: z.string().max(200).optional(),
  operation: z
    .string()
    .refine(isOperationName, { message: 'not an operation name of gateway/operations' })
    .optional(),
  notification: z
    .string()
    .refine((kind) => Object.hasOwn(notificationSpecs, kind), { message: 'not a notification kind' })
    .optional(),
  orderIdPrefix: z.string().min(1).optional(),
  fields: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  times: z.number().int().min(1).optional(),
  skip: z.number().int().min(1).optional(),
  probability: z.number().min(0).max(1).optional(),
  seed: z.number().int().optional(),
  latencyMs: count.optional(),
  httpStatus: z.number().int().min(100).max(599).optional(),
  hang: z.boolean().optional(),
  dropResponse: z.boolean().optional(),
  garble: z.boolean().optional(),
  resultCode: z.number().int().min(1).optional(),
  ipn: ipnEffectsSchema.optional(),
});

export const faultRulesSchema = z.union([faultRuleSchema, z.array(faultRuleSchema)]);

/**
 * A rule as listed: `times` is what is left; `applied` counts the events it changed so far, `matched`
 * the events it was weighed for (with `probability`, applied ÷ matched is the share it hit).
 */
export type ListedFaultRule = FaultRule & { applied: number; matched: number };

export interface FaultLayer {
  set(rules: FaultRule | readonly FaultRule[]): void;
  /** Adds rules after the ones in force (each keeps its own `times`). */
  add(rules: FaultRule | readonly FaultRule[]): void;
  clear(): void;
  list(): ListedFaultRule[];
  /** `identity` names the event for `probability` rules: see FaultRule.probability. */
  forRequest(
    operation: OperationName,
    identity?: string,
    orderId?: string,
    plain?: Readonly<Record<string, unknown>>,
  ): RequestFaults;
  forIpn(kind: NotificationKind, source: OperationName, identity?: string, orderId?: string): IpnFaults;
}

const hasRequestEffect = (rule: FaultRule) =>
  rule.latencyMs !== undefined ||
  rule.httpStatus !== undefined ||
  rule.hang === true ||
  rule.dropResponse === true ||
  rule.garble === true ||
  rule.resultCode !== undefined;

/** A uniform number in [0, 1) from the text: the same text, the same number, on every run. */
function uniformOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 4_294_967_296;
}

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
  /** Matching events still to let pass before the rule applies. */
  skipping: number;
  /** Its place in the list set, part of every decision (two rules with one seed decide apart). */
  index: number;
  /** How many times each event identity met this rule. */
  seen: Map<string, number>;
  applied: number;
  matched: number;
}

const ofOrder = (rule: FaultRule, orderId: string | undefined) =>
  rule.orderIdPrefix === undefined || (orderId !== undefined && orderId.startsWith(rule.orderIdPrefix));

const valueAt = (plain: Readonly<Record<string, unknown>>, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (value, key) =>
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined,
      plain,
    );
/** Whether a request's plaintext has every value the rule names (a rule without `fields` matches all). */
const ofFields = (rule: FaultRule, plain: Readonly<Record<string, unknown>> | undefined) =>
  rule.fields === undefined ||
  (plain !== undefined &&
    Object.entries(rule.fields).every(([path, value]) => String(valueAt(plain, path)) === String(value)));

export function createFaultLayer(): FaultLayer {
  let rules: ActiveRule[] = [];
  let placed = 0;
  const activate = (rule: FaultRule): ActiveRule => ({
    rule: { ...rule },
    remaining: rule.times ?? Number.POSITIVE_INFINITY,
    skipping: rule.skip ?? 0,
    index: placed++,
    seen: new Map(),
    applied: 0,
    matched: 0,
  });
  const listOf = (input: FaultRule | readonly FaultRule[]) =>
    Array.isArray(input) ? (input as readonly FaultRule[]) : [input as FaultRule];

  /** Whether a `probability` rule applies to this event; rules without one always do. */
  function chosen(entry: ActiveRule, identity: string): boolean {
    const { probability } = entry.rule;
    if (probability === undefined) return true;
    const nth = (entry.seen.get(identity) ?? 0) + 1;
    entry.seen.set(identity, nth);
    return uniformOf(`${entry.rule.seed ?? 0}|${entry.index}|${identity}|${nth}`) < probability;
  }

  /** Matching rules, each consuming one of its `times`. */
  function take(matches: (rule: FaultRule) => boolean, identity: string): FaultRule[] {
    const taken = rules.filter((entry) => {
      if (entry.remaining <= 0 || !matches(entry.rule)) return false;
      entry.matched += 1;
      if (entry.skipping > 0) {
        entry.skipping -= 1;
        return false;
      }
      return chosen(entry, identity);
    });
    for (const entry of taken) {
      entry.remaining -= 1;
      entry.applied += 1;
    }
    rules = rules.filter((entry) => entry.remaining > 0);
    return taken.map((entry) => entry.rule);
  }

  return {
    set(input) {
      placed = 0;
      rules = listOf(input).map(activate);
    },
    add(input) {
      rules = [...rules, ...listOf(input).map(activate)];
    },
    clear: () => void (rules = []),
    list: () =>
      rules.map(({ rule, remaining, applied, matched }) =>
        Number.isFinite(remaining)
          ? { ...rule, times: remaining, applied, matched }
          : { ...rule, applied, matched },
      ),
    forRequest(operation, identity = '', orderId, plain) {
      const applied = take(
        (rule) =>
          hasRequestEffect(rule) &&
          (rule.operation === undefined || rule.operation === operation) &&
          ofOrder(rule, orderId) &&
          ofFields(rule, plain),
        `${operation}:${identity}`,
      );
      return {
        latencyMs: applied.reduce((max, rule) => Math.max(max, rule.latencyMs ?? 0), 0),
        httpStatus: applied.find((rule) => rule.httpStatus !== undefined)?.httpStatus,
        hang: applied.some((rule) => rule.hang === true),
        dropResponse: applied.some((rule) => rule.dropResponse === true),
        garble: applied.some((rule) => rule.garble === true),
        resultCode: applied.find((rule) => rule.resultCode !== undefined)?.resultCode,
      };
    },
    forIpn(kind, source, identity = '', orderId) {
      const applied = take(
        (rule) =>
          rule.ipn !== undefined &&
          rule.fields === undefined &&
          ofOrder(rule, orderId) &&
          (rule.operation === undefined || rule.operation === source) &&
          (rule.notification === undefined || rule.notification === kind),
        `${kind}:${identity}`,
      );
      const effects = applied.map((rule) => rule.ipn ?? {});
      return {
        drop: effects.some((effect) => effect.drop === true),
        duplicate: effects.some((effect) => effect.duplicate === true),
        copies: effects.reduce((most, effect) => Math.max(most, effect.copies ?? 1), 1),
        reorder: effects.some((effect) => effect.reorder === true),
        delayMs: effects.reduce((max, effect) => Math.max(max, effect.delayMs ?? 0), 0),
        forgeries: effects.flatMap((effect) => (effect.forge === undefined ? [] : [effect.forge])),
      };
    },
  };
}
