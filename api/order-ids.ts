/**
 * The API's side of one gateway orderId namespace (gateway/ids.ts, db/shared/gateway-order-ids.ts): the
 * rules a caller-supplied id keeps (length, pattern, no ending payrun derives ids with), and the answer when
 * an id already names another object's order.
 */
import { z } from 'zod';
import { ORDER_ID_PATTERN } from '../gateway/operations/shared';
import { OrderIdTaken, type OrderIdOwnerKind } from '../db/shared/gateway-order-ids';
import { maxUserIdLength, RESERVED_ENDINGS_PATTERN, userIdProblem, type UserIdKind } from '../gateway/ids';
import { conflict } from './http/errors';

/**
 * A caller-supplied id that is also the gateway orderId of what it creates: 400 naming the field and the
 * rule when it is longer than the kind's maximum (`too_big`), breaks the gateway's pattern
 * (`invalid_format`), or ends like an id payrun derives (`reserved_ending`, also stated in the OpenAPI
 * document as a `not` pattern).
 */
export function userIdField(kind: UserIdKind) {
  const max = maxUserIdLength(kind);
  return z
    .string()
    .min(1)
    .max(
      max,
      `at most ${max} characters, so that every gateway orderId derived from it fits the gateway's limits`,
    )
    .regex(ORDER_ID_PATTERN, 'letters and digits, joined by - _ or .')
    .superRefine((id, context) => {
      const problem = userIdProblem(kind, id);
      if (problem?.rule === 'reserved_ending')
        context.addIssue({ code: 'custom', message: problem.message, params: { rule: problem.rule } });
    })
    .meta({ not: { pattern: RESERVED_ENDINGS_PATTERN } });
}

const KIND_WORDS: Readonly<Record<OrderIdOwnerKind, string>> = {
  payment: 'payment',
  refund: 'refund',
  disbursement: 'disbursement',
  remittance: 'remittance',
  subscription: 'subscription',
  payout_batch: 'payout batch',
  saved_method_binding: 'saved-method binding',
  saved_method_payment: 'saved-method payment',
};

/** 409 `order_id_taken`: the id is already the gateway orderId of another object, of any kind. */
export const orderIdTaken = (error: OrderIdTaken) =>
  conflict(
    'order_id_taken',
    `${error.orderId} is already the gateway orderId of a ${KIND_WORDS[error.ownerKind]}; ` +
      'one orderId names one order, whatever its kind. Choose another id.',
  );

/** Runs a create; an orderId another object owns answers 409 `order_id_taken` (nothing was written). */
export async function reservingOrderIds<T>(create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (error instanceof OrderIdTaken) throw orderIdTaken(error);
    throw error;
  }
}

/**
 * Creates an object whose id payrun draws (`rmt-…`, `bnd-…`): while an orderId it would own belongs to
 * another object (a caller may have chosen `rmt-20261125-0a1b2c3d` as a payment id), it draws again, a few
 * times, before giving up with OrderIdTaken. Answers the id it created.
 */
export async function withFreshId(
  draw: () => string,
  create: (id: string) => Promise<void>,
): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const id = draw();
    try {
      await create(id);
      return id;
    } catch (error) {
      if (!(error instanceof OrderIdTaken) || attempt >= FRESH_ID_ATTEMPTS) throw error;
    }
  }
}

const FRESH_ID_ATTEMPTS = 5;
