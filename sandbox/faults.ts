import { z } from 'zod';
import { isOperationName, notificationSpecs, type NotificationKind, type OperationName } from '../gateway';

/**
 * Fault injection. A rule applies to every operation or to one (`operation`), optionally only to the
 * next `times` matching events. Request effects act on gateway calls of that operation; `ipn`
 * effects act on the notifications that operation leads to (narrowed by `notification`).
 */
export interface FaultRule {
  operation?: OperationName;
  notification?: NotificationKind;
  times?: number;
  /** Delay before the request is processed (the requestId counts as "in progress" meanwhile). */
  latencyMs?: number;
  /** Answer this HTTP status without processing anything (e.g. 503). */
  httpStatus?: number;
  /** Never answer and process nothing; the connection is released when the client gives up or at close. */
  hang?: boolean;
  /** Process the request fully, then destroy the socket without answering. */
  dropResponse?: boolean;
  ipn?: IpnFaultEffects;
}

export interface IpnFaultEffects {
  drop?: boolean;
  /** Deliver the same signed notification twice. */
  duplicate?: boolean;
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
}

export interface IpnFaults {
  drop: boolean;
  duplicate: boolean;
  reorder: boolean;
  delayMs: number;
}

const count = z.number().int().min(0);
const ipnEffectsSchema = z.strictObject({
  drop: z.boolean().optional(),
  duplicate: z.boolean().optional(),
  reorder: z.boolean().optional(),
  delayMs: count.optional(),
});

export const faultRuleSchema = z.strictObject({
  operation: z
    .string()
    .refine(isOperationName, { message: 'not an operation name of gateway/operations' })
    .optional(),
  notification: z
    .string()
    .refine((kind) => Object.hasOwn(notificationSpecs, kind), { message: 'not a notification kind' })
    .optional(),
  times: z.number().int().min(1).optional(),
  latencyMs: count.optional(),
  httpStatus: z.number().int().min(100).max(599).optional(),
  hang: z.boolean().optional(),
  dropResponse: z.boolean().optional(),
  ipn: ipnEffectsSchema.optional(),
});

export const faultRulesSchema = z.union([faultRuleSchema, z.array(faultRuleSchema)]);

export interface FaultLayer {
  set(rules: FaultRule | readonly FaultRule[]): void;
  clear(): void;
  list(): FaultRule[];
  forRequest(operation: OperationName): RequestFaults;
  forIpn(kind: NotificationKind, source: OperationName): IpnFaults;
}

const hasRequestEffect = (rule: FaultRule) =>
  rule.latencyMs !== undefined ||
  rule.httpStatus !== undefined ||
  rule.hang === true ||
  rule.dropResponse === true;

export function createFaultLayer(): FaultLayer {
  let rules: { rule: FaultRule; remaining: number }[] = [];

  /** Matching rules, each consuming one of its `times`. */
  function take(matches: (rule: FaultRule) => boolean): FaultRule[] {
    const taken = rules.filter((entry) => entry.remaining > 0 && matches(entry.rule));
    for (const entry of taken) entry.remaining -= 1;
    rules = rules.filter((entry) => entry.remaining > 0);
    return taken.map((entry) => entry.rule);
  }

  return {
    set(input) {
      const list = Array.isArray(input) ? input : [input as FaultRule];
      rules = list.map((rule) => ({ rule: { ...rule }, remaining: rule.times ?? Number.POSITIVE_INFINITY }));
    },
    clear: () => void (rules = []),
    list: () =>
      rules.map(({ rule, remaining }) =>
        Number.isFinite(remaining) ? { ...rule, times: remaining } : { ...rule },
      ),
    forRequest(operation) {
      const applied = take(
        (rule) => hasRequestEffect(rule) && (rule.operation === undefined || rule.operation === operation),
      );
      return {
        latencyMs: applied.reduce((max, rule) => Math.max(max, rule.latencyMs ?? 0), 0),
        httpStatus: applied.find((rule) => rule.httpStatus !== undefined)?.httpStatus,
        hang: applied.some((rule) => rule.hang === true),
        dropResponse: applied.some((rule) => rule.dropResponse === true),
      };
    },
    forIpn(kind, source) {
      const applied = take(
        (rule) =>
          rule.ipn !== undefined &&
          (rule.operation === undefined || rule.operation === source) &&
          (rule.notification === undefined || rule.notification === kind),
      );
      const effects = applied.map((rule) => rule.ipn ?? {});
      return {
        drop: effects.some((effect) => effect.drop === true),
        duplicate: effects.some((effect) => effect.duplicate === true),
        reorder: effects.some((effect) => effect.reorder === true),
        delayMs: effects.reduce((max, effect) => Math.max(max, effect.delayMs ?? 0), 0),
      };
    },
  };
}
