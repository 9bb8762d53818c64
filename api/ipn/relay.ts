/**
 * The notification relay: nothing acknowledged is lost (DESIGN decision 4). The receiver stores a
 * notification already claimed and then signals; if its process dies in between, copies arriving within
 * the claim's lease are answered as duplicates and the gateway stops sending. Every API process runs a
 * relay that finds stored notifications nobody signalled whose claim lapsed (or was released, or never
 * taken), claims each atomically (several API processes may sweep at once), rebuilds the signal from the
 * stored row, finds the workflow through the channel that serves the row's kind, signals and marks the
 * row signalled. A finished workflow counts as delivered, as at the receiver. A row it cannot signal now
 * (Temporal unreachable, the order not found) keeps its claim and is tried again when the lease lapses.
 */
import type { Client } from '@temporalio/client';
import {
  classifyResult,
  notificationSpecs,
  withListedFieldsOnly,
  type NotificationKind,
  type VerifiedNotification,
} from '../../gateway';
import {
  claimUnsignalledNotifications,
  markNotificationSignalled,
  oldestUnsignalledAgeSeconds,
  type StoredNotification,
} from '../../db/shared/ipn-notifications';
import type { Db } from '../../db/shared/knex';
import { storableJson } from '../../db/shared/storable-text';
import type { Logger } from '../../platform/logger';
import { ipnsRelayed, oldestUnsignalledIpn } from '../../platform/metrics';
import { kindOf, type Located, type NotificationChannel } from './channel';
import { deliver } from './receiver';
import type { NotificationSettings } from './settings';

export interface RelayDependencies {
  db: Db;
  temporal: Client;
  logger: Logger;
  /** Every notification channel the API serves (`NOTIFICATION_CHANNELS`, the list the receivers are mounted from). */
  channels: readonly NotificationChannel[];
  settings: NotificationSettings;
}

export type RelayOutcome = 'signalled' | 'workflow_gone' | 'failed' | 'unlocated';

export interface NotificationRelay {
  /** One pass over what is due now; how many rows ended each way. */
  sweep(): Promise<Record<RelayOutcome, number>>;
  /** Sweeps every `relayIntervalMs` until stopped. */
  start(): void;
  /** Stops sweeping; resolves when a sweep under way has finished. */
  stop(): Promise<void>;
}

const isKind = (kind: string): kind is NotificationKind => Object.hasOwn(notificationSpecs, kind);

/**
 * The notification as the receiver signalled it: the fields it stored (signed, and the listed unsigned
 * ones beside them), as `withListedFieldsOnly` builds them. A row stored before migration 0012 kept its
 * raw body instead, verified when it came, and is reduced to the same fields.
 */
export function storedNotificationOf(
  row: StoredNotification,
  kind: NotificationKind,
): VerifiedNotification<NotificationKind> {
  const listed = row.signed_fields
    ? { ...(row.unverified_fields ?? {}), ...row.signed_fields }
    : (withListedFieldsOnly({ kind, fields: JSON.parse(row.raw_body ?? '{}') }).fields as Record<
        string,
        unknown
      >);
  const fields = storableJson(listed).value;
  return {
    kind,
    fields: fields as VerifiedNotification<NotificationKind>['fields'],
    ...(typeof fields.resultCode === 'number'
      ? { classification: classifyResult(kind, fields.resultCode) }
      : {}),
  };
}

export function createNotificationRelay(deps: RelayDependencies): NotificationRelay {
  const { db, temporal, channels, settings } = deps;
  const log = deps.logger.child({ component: 'ipn-relay' });

  /**
   * The channel that took the notification: one serving its kind (decided as the receiver decided it,
   * by the channel's `kindOf`) whose record of the order names the workflow the row was stored for.
   * Several channels serve list B; the stored workflow id tells them apart.
   */
  async function targetOf(
    row: StoredNotification,
    notification: VerifiedNotification<NotificationKind>,
  ): Promise<Located | undefined> {
    const fields = notification.fields as Record<string, unknown>;
    for (const channel of channels) {
      if (kindOf(channel, fields) !== notification.kind) continue;
      const target = await channel.locate(db, row.order_id);
      if (target && (row.workflow_id === null || target.workflowId === row.workflow_id)) return target;
    }
    return undefined;
  }

  async function relay(row: StoredNotification): Promise<RelayOutcome> {
    const about = { kind: row.kind, orderId: row.order_id, workflowId: row.workflow_id };
    if (!isKind(row.kind)) {
      log.error(about, 'A stored notification of a kind payrun does not know; left unsignalled');
      return 'unlocated';
    }
    const notification = storedNotificationOf(row, row.kind);
    const target = await targetOf(row, notification);
    if (!target) {
      log.error(about, 'No channel locates the order of a stored notification; tried again after the lease');
      return 'unlocated';
    }
    let outcome: 'signalled' | 'workflow_gone';
    try {
      outcome = await deliver(target, temporal, notification, log);
    } catch (error) {
      log.warn(
        { ...about, err: error },
        'Could not signal a stored notification; tried again after the lease',
      );
      return 'failed';
    }
    await markNotificationSignalled(db, row.dedupe_key);
    log.info(
      { ...about, waitedSeconds: Math.round((Date.now() - row.received_at.getTime()) / 1000), outcome },
      'Relayed a stored notification nobody had signalled',
    );
    return outcome;
  }

  async function sweep(): Promise<Record<RelayOutcome, number>> {
    const counts: Record<RelayOutcome, number> = { signalled: 0, workflow_gone: 0, failed: 0, unlocated: 0 };
    for (;;) {
      const rows = await claimUnsignalledNotifications(db, {
        leaseSeconds: settings.claimLeaseSeconds,
        limit: settings.relayBatchSize,
      });
      for (const row of rows) {
        const outcome = await relay(row);
        counts[outcome] += 1;
        ipnsRelayed.inc({ kind: row.kind, outcome });
      }
      // A row it could not signal keeps its claim, so the next round takes only rows not seen yet.
      if (rows.length < settings.relayBatchSize) break;
    }
    oldestUnsignalledIpn.set(await oldestUnsignalledAgeSeconds(db));
    return counts;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const schedule = () => {
    timer = setTimeout(() => {
      running = sweep()
        .catch((error: unknown) => log.error({ err: error }, 'A relay sweep failed; the next one retries'))
        .finally(() => {
          running = undefined;
          if (!stopped) schedule();
        });
    }, settings.relayIntervalMs);
    // The relay never keeps a process alive on its own: the server does, and stop() ends it.
    timer.unref();
  };

  return {
    sweep,
    start() {
      if (stopped || timer) return;
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
