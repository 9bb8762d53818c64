/**
 * The one shape of a notification channel. A channel says which kind of notification arrives at its path,
 * how it finds payrun's record of the order (a `db/` lookup), and which signal it sends; the receiver
 * (`receiver.ts`) and the relay (`relay.ts`) do everything else: verification, the amount check, storage,
 * reading the result once into a `Notice`, signalling, and the acknowledgement.
 */
import type { SignalDefinition, WorkflowStartOptions } from '@temporalio/client';
import type { StartableWorkflowName } from '../../contracts/shared';
import { notificationSpecs, type OperationName, type VerifiedNotification } from '../../gateway';
import type { NotificationKind } from '../../gateway/operations/types';
import type { Db } from '../../db/shared/knex';

/** What every notification tells, read once by the receiver from the signed fields. */
export interface Notice {
  kind: NotificationKind;
  orderId: string;
  resultCode: number;
  /** The gateway's message; empty when it sent none. */
  message: string;
  /** The gateway's transaction, when it names one (0 and null name none). */
  transId?: string;
  /**
   * The fields the gateway signed (and the signature), the only ones a channel may act on or record as
   * the gateway's word.
   */
  fields: Readonly<Record<string, unknown>>;
  /**
   * The fields the spec lists but the gateway does not sign (`paymentOption`, `promotionInfo`,
   * `cardPaymentInfo`, batch counts…): anyone on the path could have set them beside a valid signature.
   * Kept apart so no channel takes them for facts; they are stored apart too (`unverified_fields`).
   */
  unverified: Readonly<Record<string, unknown>>;
}

/** What reaching a record means for a notification: a signal to its workflow, or a write when none waits. */
export type Delivery =
  | {
      signal: SignalDefinition<[never]>;
      /** The signal's argument, built from the notice. */
      args(notice: Notice): unknown;
    }
  | {
      /** Why no workflow waits (the record is the state), and the write that records the news. */
      noWorkflow: string;
      record(notice: Notice): Promise<void>;
    };

/** payrun's record of a notified order, as a channel located it. */
export interface Located {
  workflowId: string;
  /** The amount payrun recorded for this order; a notification with another amount is refused. */
  expectedAmount: number;
  delivery: Delivery;
  /**
   * The workflow has finished: what the notice still tells the record (a customer who paid after payrun
   * stopped waiting). Records move forward only, so news that changes nothing is a no-op.
   */
  afterFinish?(notice: Notice): Promise<void>;
  /**
   * payrun's record says the workflow is done with the order: it returns as soon as it records this, so a
   * signal would find it gone (or, landing before its last task completes, only cost it another task).
   * The notice goes where a finished workflow's goes (`afterFinish`), without a call to Temporal. Set only
   * where the workflow's code bears this out for every status it covers.
   */
  finished?: boolean;
  /**
   * No workflow takes this order's notices yet, but one may (a disbursement the desk is paying, which it hands
   * to a workflow of its own when the gateway does not settle it at once): the notice stays in the inbox and
   * is tried again after the relay's interval, by which time the record is final or names that workflow.
   */
  notYet?: string;
  /**
   * Its workflow may not exist yet (a subscription the subscription desk holds): the signal is sent with these
   * options (signal-with-start), so it starts the workflow, or reaches it if it runs. A workflow that has
   * finished under this id is never started again (REJECT_DUPLICATE): the notice goes to `afterFinish`.
   */
  startsWith?: { workflowType: StartableWorkflowName; options: Omit<WorkflowStartOptions, 'workflowId'> };
  /**
   * With `finished`: how the notice contradicts the final record about the money (paid against not paid),
   * or undefined when it does not. The record stands; the contradiction is a warning for an operator.
   */
  disagreement?(notice: Notice): string | undefined;
}

export interface NotificationChannel {
  path: string;
  /** The path before a rename: notifications for orders created by the previous release still come there. */
  formerPath?: string;
  summary: string;
  /** The kind arriving here, or how to tell it from a raw body's unsigned hints (before verification). */
  kind: NotificationKind | ((body: Readonly<Record<string, unknown>>) => NotificationKind);
  /** The operation that led to these notifications, when its acknowledgement differs (card: signed JSON). */
  operation?: OperationName;
  /** payrun's record of the order, or undefined when the orderId is not ours. */
  locate(db: Db, orderId: string): Promise<Located | undefined>;
}

/** A signal and how its argument is built from the notice, checked against the signal's own type. */
export function sends<Args>(signal: SignalDefinition<[Args]>, args: (notice: Notice) => Args): Delivery {
  return { signal: signal as unknown as SignalDefinition<[never]>, args };
}

/** The result as most workflows take it: code, message and the transaction when there is one. */
export const resultOf = ({ resultCode, message, transId }: Notice) => ({
  resultCode,
  message,
  ...(transId === undefined ? {} : { transId }),
});

export function kindOf(
  channel: NotificationChannel,
  body: Readonly<Record<string, unknown>>,
): NotificationKind {
  return typeof channel.kind === 'function' ? channel.kind(body) : channel.kind;
}

/**
 * The notification's signed fields (and its signature) apart from the rest. The fields arrive already
 * reduced to those the spec lists, card numbers masked (`withListedFieldsOnly`, or the stored row).
 */
function splitBySignature(notification: VerifiedNotification<NotificationKind>) {
  const signedNames = new Set<string>([...notificationSpecs[notification.kind].signed, 'signature']);
  const fields: Record<string, unknown> = {};
  const unverified: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(notification.fields as Record<string, unknown>)) {
    if (signedNames.has(name)) fields[name] = value;
    else if (value !== undefined) unverified[name] = value;
  }
  return { fields, unverified };
}

export function readNotice(notification: VerifiedNotification<NotificationKind>): Notice {
  const { fields, unverified } = splitBySignature(notification);
  const transId = fields.transId;
  return {
    kind: notification.kind,
    orderId: String(fields.orderId),
    resultCode: Number(fields.resultCode),
    message: fields.message === undefined || fields.message === null ? '' : String(fields.message),
    ...(transId === undefined || transId === null || transId === 0 || transId === ''
      ? {}
      : { transId: String(transId) }),
    fields,
    unverified,
  };
}
