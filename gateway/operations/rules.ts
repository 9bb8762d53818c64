import {
  rangeText,
  REFUND_AMOUNT_RANGES,
  TOKEN_PAY_AMOUNT_RANGE,
  TOKEN_PAY_AMOUNT_RANGES,
  type AmountRange as Range,
} from '../limits';
import type { Fields, Rule, Violation } from './types';

/**
 * Cross-field rules of the spec. Each rule is a value in the table; validation runs them after the
 * per-field checks, so they may assume every present field already has the right type.
 */

const violation = (field: string, rule: string, message: string): Violation => ({ field, rule, message });

function outside(value: unknown, [min, max]: Range): value is number {
  return typeof value === 'number' && (value < min || value > max);
}

function at(fields: Fields, path: string): unknown {
  let current: unknown = fields;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const isMissing = (value: unknown) => value === undefined || value === null || value === '';

/** `amount` within `range`. */
export function amountRange(range: Range, label = 'amount'): Rule {
  return {
    name: `amount ${rangeText(range)}`,
    check: (fields) =>
      outside(fields.amount, range)
        ? [violation('amount', `range ${rangeText(range)}`, `${label} must be ${rangeText(range)} VND`)]
        : [],
  };
}

/** `amount` range chosen by the value of `requestType`. */
export function amountRangeByRequestType(ranges: Readonly<Record<string, Range>>): Rule {
  return {
    name: 'amount range per requestType',
    check(fields) {
      const type = String(fields.requestType);
      const range = ranges[type];
      if (!range || !outside(fields.amount, range)) return [];
      return [
        violation(
          'amount',
          `range ${rangeText(range)} for requestType ${type}`,
          `amount must be ${rangeText(range)} VND for requestType ${type}`,
        ),
      ];
    },
  };
}

/** Binding-style creates: 0 binds only; a payment needs at least `min`. */
export function zeroOrAtLeast(min: number): Rule {
  return {
    name: `amount 0 or ≥${min}`,
    check: (fields) =>
      typeof fields.amount === 'number' && fields.amount !== 0 && fields.amount < min
        ? [violation('amount', `0 or at least ${min}`, `amount must be 0 (bind only) or at least ${min} VND`)]
        : [],
  };
}

export function requires(path: string, reason: string): Rule {
  return {
    name: `${path} required`,
    check: (fields) =>
      isMissing(at(fields, path)) ? [violation(path, 'required', `${path} is required ${reason}`)] : [],
  };
}

/** Total `amount` must equal the sum of the item amounts (batch create). */
export function amountIsSumOf(listField: string): Rule {
  return {
    name: `amount equals sum of ${listField}`,
    check(fields) {
      const entries = fields[listField];
      if (!Array.isArray(entries) || typeof fields.amount !== 'number') return [];
      const sum = entries.reduce<number>(
        (total, entry: unknown) => total + Number((entry as { amount?: unknown }).amount ?? 0),
        0,
      );
      return sum === fields.amount
        ? []
        : [
            violation(
              'amount',
              `sum of ${listField}`,
              `amount ${fields.amount} must equal the sum of ${listField} amounts (${sum})`,
            ),
          ];
    },
  };
}

export function uniqueIds(listField: string, key: string): Rule {
  return {
    name: `${listField} ${key} unique`,
    check(fields) {
      const entries = fields[listField];
      if (!Array.isArray(entries)) return [];
      const seen = new Set<unknown>();
      const problems: Violation[] = [];
      entries.forEach((entry: unknown, index) => {
        const id = (entry as Record<string, unknown>)[key];
        if (seen.has(id))
          problems.push(
            violation(`${listField}[${index}].${key}`, 'unique', `${key} ${String(id)} appears twice`),
          );
        seen.add(id);
      });
      return problems;
    },
  };
}

/** A field only accepted together with a given value of another field. */
export function onlyWhen(path: string, other: string, values: readonly unknown[], why: string): Rule {
  return {
    name: `${path} only when ${other} is ${values.join('/')}`,
    check: (fields) =>
      at(fields, path) !== undefined && !values.includes(at(fields, other))
        ? [violation(path, `only with ${other} ${values.join('/')}`, `${path} ${why}`)]
        : [],
  };
}

/** Receiver payloads differ between wallet and bank request types (document 3). */
export function receiverMatchesRequestType(field: string, bankTypes: readonly string[]): Rule {
  return {
    name: `${field} matches requestType`,
    check(fields) {
      const receiver = fields[field];
      if (receiver === null || typeof receiver !== 'object') return [];
      const r = receiver as Record<string, unknown>;
      const problems: Violation[] = [];
      if (!bankTypes.includes(String(fields.requestType))) {
        if (isMissing(r.walletId))
          problems.push(
            violation(`${field}.walletId`, 'required', `${field}.walletId is required for a wallet receiver`),
          );
        return problems;
      }
      const byAccount = !isMissing(r.bankAccountNo);
      const byCard = !isMissing(r.bankCardNo);
      if (byAccount === byCard)
        problems.push(
          violation(
            `${field}.bankAccountNo`,
            'exactly one of bankAccountNo, bankCardNo',
            `${field} needs exactly one of bankAccountNo or bankCardNo`,
          ),
        );
      for (const name of ['bankAccountHolderName', 'bankCode'])
        if (isMissing(r[name]))
          problems.push(
            violation(`${field}.${name}`, 'required', `${field}.${name} is required for a bank receiver`),
          );
      if (!isMissing(r.walletId))
        problems.push(
          violation(
            `${field}.walletId`,
            'not for bank receivers',
            `${field}.walletId is not accepted for a bank receiver`,
          ),
        );
      return problems;
    },
  };
}

/** Remittance `remittanceInfo` fields the spec marks as remitToBank only / required for both. */
export function remittanceInfoRules(): Rule {
  const forBoth = ['name', 'partnerName', 'orderingCountry', 'sourceCurrency', 'sourceAmount', 'reason'];
  const bankOnly = ['senderNationality', 'senderDob', 'senderGender', 'senderPersonalId'];
  return {
    name: 'remittanceInfo per requestType',
    check(fields) {
      const info = fields.remittanceInfo as Record<string, unknown> | undefined;
      if (!info) return [violation('remittanceInfo', 'required', 'remittanceInfo is required')];
      const problems = forBoth
        .filter((name) => isMissing(info[name]))
        .map((name) =>
          violation(
            `remittanceInfo.${name}`,
            'required',
            `remittanceInfo.${name} is required for both request types`,
          ),
        );
      if (fields.requestType !== 'remitToBank')
        for (const name of bankOnly)
          if (info[name] !== undefined)
            problems.push(
              violation(
                `remittanceInfo.${name}`,
                'remitToBank only',
                `remittanceInfo.${name} is accepted for remitToBank only`,
              ),
            );
      return problems;
    },
  };
}

/** tokenization/pay: the range depends on the flow of the saved token, which only the caller knows. */
export function tokenPayAmount(): Rule {
  return {
    name: 'token pay amount per token flow',
    check(fields, context) {
      const range = context.tokenKind ? TOKEN_PAY_AMOUNT_RANGES[context.tokenKind] : TOKEN_PAY_AMOUNT_RANGE;
      const label = context.tokenKind ? `token flow ${context.tokenKind}` : 'any token flow';
      return outside(fields.amount, range)
        ? [
            violation(
              'amount',
              `range ${rangeText(range)} for ${label}`,
              `amount must be ${rangeText(range)} VND for ${label}`,
            ),
          ]
        : [];
    },
  };
}

export function refundAmount(): Rule {
  return {
    name: 'refund amount per purchase method',
    check(fields, context) {
      const range = REFUND_AMOUNT_RANGES[context.refundOf ?? 'other'];
      const label = context.refundOf ? `refund of ${context.refundOf}` : 'refund';
      return outside(fields.amount, range)
        ? [
            violation(
              'amount',
              `range ${rangeText(range)} for ${label}`,
              `amount must be ${rangeText(range)} VND for ${label}`,
            ),
          ]
        : [];
    },
  };
}

/** subscription/pay: upper bound is the recurringAmount stored at creation, passed in the context. */
export function withinRecurringAmount(): Rule {
  return {
    name: 'amount ≤ recurringAmount',
    check(fields, context) {
      const max = context.recurringAmount;
      return max !== undefined && typeof fields.amount === 'number' && fields.amount > max
        ? [
            violation(
              'amount',
              `at most recurringAmount ${max}`,
              `amount must not exceed the subscription's recurringAmount ${max}`,
            ),
          ]
        : [];
    },
  };
}

/** subscriptionInfo: nextPaymentDate is needed when the subscription starts later or with a free trial. */
export function subscriptionInfoRules(): Rule {
  return {
    name: 'subscriptionInfo rules',
    check(fields) {
      const info = fields.subscriptionInfo as Record<string, unknown> | undefined;
      if (!info)
        return [
          violation(
            'subscriptionInfo',
            'required',
            'subscriptionInfo is required for requestType subscription',
          ),
        ];
      const problems: Violation[] = [];
      for (const name of ['name', 'type', 'recurringAmount', 'frequency'])
        if (isMissing(info[name]))
          problems.push(
            violation(`subscriptionInfo.${name}`, 'required', `subscriptionInfo.${name} is required`),
          );
      if (fields.amount === 0 && isMissing(info.nextPaymentDate))
        problems.push(
          violation(
            'subscriptionInfo.nextPaymentDate',
            'required when amount is 0',
            'subscriptionInfo.nextPaymentDate is required for a free trial or a later start (amount 0)',
          ),
        );
      const next = info.nextPaymentDate;
      const expiry = info.expiryDate;
      if (typeof next === 'string' && typeof expiry === 'string' && expiry <= next)
        problems.push(
          violation(
            'subscriptionInfo.expiryDate',
            'after nextPaymentDate',
            'subscriptionInfo.expiryDate must be after nextPaymentDate',
          ),
        );
      return problems;
    },
  };
}
