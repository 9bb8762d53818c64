/** The subscription desk's queue (migration 0040): starts claimed by chunks, subscriptions handed to their workflow. */
import type { Db } from '../shared/knex';
import { announceIds, claimQueued } from '../shared/desk-queue';
import { freeNotificationsOf } from '../shared/ipn-notifications';
import type { SubscriptionDeskStart } from '../../contracts/subscriptions';
import type { SubscriptionRow } from './subscriptions';

export interface DeskSubscriptionRow extends SubscriptionRow {
  desk_id: string;
}

/**
 * The desk holds it: no workflow yet, unless the customer's answer has just started one that has not activated the
 * subscription (that start and every later one find the same workflow).
 */
export const heldBySubscriptionDesk = (
  row: SubscriptionRow,
): row is SubscriptionRow & { desk_id: string; desk_start: SubscriptionDeskStart } =>
  row.desk_id !== null && row.desk_start !== null && row.status === 'authorizing';

/** Up to `limit` of this desk's queued starts no chunk holds, oldest first, now held by `chunkId`. */
export const claimDeskSubscriptions = (
  db: Db,
  desk: { deskWorkflowId: string; chunkId: string },
  limit: number,
): Promise<DeskSubscriptionRow[]> =>
  claimQueued<DeskSubscriptionRow>(
    db,
    { table: 'subscriptions', idColumn: 'subscription_id', queuedStatus: 'authorizing' },
    desk,
    limit,
  );

/**
 * What an earlier attempt of the chunk claimed and did not answer: a retried chunk makes these starts again first;
 * the gateway answers a start it already has 40, which `startSubscriptionAuthorization` records (links lost).
 */
export const unansweredOfChunk = (db: Db, chunkId: string): Promise<DeskSubscriptionRow[]> =>
  db('subscriptions')
    .where({ desk_chunk: chunkId, status: 'authorizing' })
    .whereNull('start_result_code')
    .whereNotNull('desk_id')
    .orderBy('created_at');

/**
 * Subscriptions the desk holds whose customer has not answered since before `since`, and starts a chunk claimed
 * before then and never answered (its desk was terminated, say): their workflow takes over (it asks the gateway
 * with growing waits, or makes the start, answered 40 if the gateway has it).
 */
export const overdueDeskSubscriptions = (
  db: Db,
  deskWorkflowId: string,
  since: Date,
  limit: number,
): Promise<DeskSubscriptionRow[]> =>
  db('subscriptions')
    .where({ desk_id: deskWorkflowId, status: 'authorizing' })
    .where((overdue) => {
      void overdue
        .where((waiting) => {
          void waiting.whereNotNull('start_result_code').where('created_at', '<', since);
        })
        // Claimed (the claim sets updated_at) that long ago: a start in flight is never taken from its chunk.
        .orWhere((stale) => {
          void stale
            .whereNull('start_result_code')
            .whereNotNull('desk_chunk')
            .where('updated_at', '<', since);
        });
    })
    .orderBy('created_at')
    .limit(limit);

/**
 * The desk lets go: its workflow (started before this write) takes everything from now on, and a notification
 * that waited in the inbox while the start was under way is freed for the relay at once.
 */
export async function handOverDeskSubscription(db: Db, subscriptionId: string): Promise<void> {
  await db('subscriptions').where({ subscription_id: subscriptionId }).update({ desk_id: null });
  await freeNotificationsOf(db, subscriptionId);
}

/** The channel a chunk announces answered starts on; the API process whose create call waits hears it. */
export const SUBSCRIPTION_ANSWERED_CHANNEL = 'payrun_subscription_answered';

export const announceSubscriptionsAnswered = (db: Db, subscriptionIds: readonly string[]): Promise<void> =>
  announceIds(db, SUBSCRIPTION_ANSWERED_CHANNEL, subscriptionIds);
