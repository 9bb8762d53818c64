/**
 * The notification relay: the only code that signals a stored notification (DESIGN decision 4). The
 * receiver stores a notification and answers without calling Temporal; the relay of every API process
 * takes it from there. It sweeps when woken (at once, in process, by the receiver's commit; by
 * PostgreSQL's NOTIFY when another API process stored it) and every `relayIntervalMs` as a safety net.
 * A sweep claims rows atomically (several API processes relay at once, each row goes to one), of each
 * workflow only its oldest unsignalled notification, so one workflow's notifications are signalled in the
 * order they were stored and different workflows in parallel (`relayConcurrency` at once). It rebuilds the
 * signal from the stored row, finds the workflow through the channel that serves the row's kind, signals,
 * and marks the batch signalled. A finished workflow counts as delivered. A row it cannot signal now
 * (Temporal unreachable) is tried again after the interval; one whose order is not found, after the lease.
 *
 * The relay gives way to a burst. A signal costs the machine far more than storing a notification (the
 * Temporal server's writes and the worker's workflow task, about 15 ms of CPU against the receiver's 1.2),
 * so while notifications arrive faster than `relayYieldAbove` a second beyond what the relays signal, the
 * relays signal only rows older than `relayYieldMaxSeconds` and leave the rest to the burst's end: the
 * gateway's answers stay quick, and no notification waits longer than that bound plus the drain. While it
 * gives way, a relay checks again once a second and ignores wake-ups meanwhile; woken from idle, it waits
 * `WAKE_SETTLE_MS` before its first claim, so a burst is seen before any of its rows is signalled.
 *
 * Nothing acknowledged is lost: the 2xx the gateway got means the row is committed, and a committed row
 * is unsignalled until a relay marks it, which it does only after the signal returned. A relay that dies
 * between the two leaves a claim that lapses, and another relay signals the row again: a workflow may hear
 * a notification twice (decision 3 makes that harmless), never zero times. Money moves only in workflows,
 * which take a result once whatever number of copies arrives, so no copy pays twice.
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
  claimOldestPerObject,
  INBOX_CHANNEL,
  markNotificationsSignalled,
  oldestUnsignalledAgeSeconds,
  retryNotificationsAfter,
  unsignalledArrivalsPerSecond,
  type StoredNotification,
} from '../../db/shared/ipn-notifications';
import type { Db } from '../../db/shared/knex';
import { storableJson } from '../../db/shared/storable-text';
import { listenOn, type ChannelListener } from '../../db/shared/listen';
import type { Logger } from '../../platform/logger';
import { ipnRelayGivingWay, ipnsRelayed, oldestUnsignalledIpn } from '../../platform/metrics';
import { kindOf, type Located, type NotificationChannel } from './channel';
import { onInboxRing } from './doorbell';
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

/**
 * `waiting`: no workflow takes the order's notices yet (a disbursement the desk holds, `Located.notYet`): tried
 * again after the interval, like `failed`, but nothing is wrong.
 */
export type RelayOutcome = 'signalled' | 'workflow_gone' | 'failed' | 'unlocated' | 'waiting';

export interface NotificationRelay {
  /** One pass over what is due now, until nothing claimable is left; how many rows ended each way. */
  sweep(): Promise<Record<RelayOutcome, number>>;
  /**
   * Sweeps when woken (a commit in this process, a NOTIFY from another) and every `relayIntervalMs`,
   * until stopped.
   */
  start(): void;
  /** Stops sweeping; resolves when a sweep under way has finished. */
  stop(): Promise<void>;
}

/** How long a relay woken from idle waits before its first claim. */
const WAKE_SETTLE_MS = 50;

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

  /**
   * A signal that has not returned within the claim's lease is given up (a hung connection, a process
   * half gone): the claim lapses then anyway and another relay may take the row, so waiting longer would
   * only stall this relay's lane. Should the abandoned call land after all, the workflow hears the
   * notification twice, which it takes as once (decision 3).
   */
  async function withinLease<T>(call: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`No answer from Temporal within the ${settings.claimLeaseSeconds} s lease`)),
        settings.claimLeaseSeconds * 1000,
      );
    });
    try {
      return await Promise.race([call, limit]);
    } finally {
      clearTimeout(timer);
    }
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
    if (target.notYet && !target.finished) {
      log.debug({ ...about, why: target.notYet }, 'A stored notification waits: no workflow takes it yet');
      return 'waiting';
    }
    let outcome: 'signalled' | 'workflow_gone';
    try {
      outcome = await withinLease(deliver(target, temporal, notification, log));
    } catch (error) {
      log.warn({ ...about, err: error }, 'Could not signal a stored notification; tried again shortly');
      return 'failed';
    }
    const waitedMs = Date.now() - row.received_at.getTime();
    // Every notification passes here: only the unusual is worth an info line (a finished workflow has
    // deliver's own).
    (waitedMs > settings.claimLeaseSeconds * 1000 ? log.info : log.debug).call(
      log,
      { ...about, waitedSeconds: Math.round(waitedMs / 1000), outcome },
      'Relayed a stored notification',
    );
    return outcome;
  }

  /**
   * Signals a claimed batch, `relayConcurrency` workflows at once and each workflow's rows one after
   * another in the order they were stored. A row that cannot be signalled stops its workflow's lane: the
   * rows behind it are not tried, so none overtakes it.
   */
  async function relayBatch(
    rows: readonly StoredNotification[],
  ): Promise<{ ended: Map<RelayOutcome, string[]>; untried: string[] }> {
    const ended = new Map<RelayOutcome, string[]>();
    const untried: string[] = [];
    const note = (outcome: RelayOutcome, ids: string[]) =>
      ended.set(outcome, [...(ended.get(outcome) ?? []), ...ids]);
    const byObject = new Map<string, StoredNotification[]>();
    for (const row of rows) {
      const object = row.workflow_id ?? row.order_id;
      byObject.set(object, [...(byObject.get(object) ?? []), row]);
    }
    const queues = [...byObject.values()];
    let next = 0;
    const lane = async () => {
      while (next < queues.length) {
        const queue = queues[next++]!;
        for (const [index, row] of queue.entries()) {
          const outcome = await relay(row);
          note(outcome, [row.id]);
          ipnsRelayed.inc({ kind: row.kind, outcome });
          if (outcome === 'failed' || outcome === 'unlocated' || outcome === 'waiting') {
            untried.push(...queue.slice(index + 1).map((later) => later.id));
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(settings.relayConcurrency, queues.length) }, lane));
    return { ended, untried };
  }

  let metricUpdatedAt = 0;
  /**
   * The backlog's age for `payrun_ipn_oldest_unsignalled_seconds`. It costs a query: at most once per
   * interval however often the relay is woken, and also between rounds, since under steady arrivals a
   * sweep may never end.
   */
  async function reportBacklogAge(): Promise<void> {
    if (Date.now() - metricUpdatedAt < settings.relayIntervalMs) return;
    metricUpdatedAt = Date.now();
    oldestUnsignalledIpn.set(await oldestUnsignalledAgeSeconds(db));
  }
  let givingWay = false;
  /** Whether a burst is on now (one query per round; none when giving way is turned off). */
  async function burstIsOn(): Promise<boolean> {
    if (settings.relayYieldAbove <= 0) return false;
    const perSecond = await unsignalledArrivalsPerSecond(db, {
      windowSeconds: settings.relayYieldWindowSeconds,
      ...(settings.relayScope !== undefined && { scope: settings.relayScope }),
    });
    const now = perSecond > settings.relayYieldAbove;
    if (now !== givingWay) {
      log.info(
        { unsignalledPerSecond: Math.round(perSecond), above: settings.relayYieldAbove },
        now
          ? `A burst of notifications: the relay gives way to the receiver, signalling only those older than ${settings.relayYieldMaxSeconds} s`
          : 'The burst of notifications has passed: the relay signals everything stored',
      );
      givingWay = now;
    }
    ipnRelayGivingWay.set(now ? 1 : 0);
    return now;
  }

  async function sweep(): Promise<Record<RelayOutcome, number>> {
    const counts: Record<RelayOutcome, number> = {
      signalled: 0,
      workflow_gone: 0,
      failed: 0,
      unlocated: 0,
      waiting: 0,
    };
    for (;;) {
      const burst = await burstIsOn();
      const rows = await claimOldestPerObject(db, {
        leaseSeconds: settings.claimLeaseSeconds,
        objects: settings.relayBatchSize,
        perObject: settings.relayBatchSize,
        ...(settings.relayScope !== undefined && { scope: settings.relayScope }),
        ...(burst && { storedSecondsAgo: settings.relayYieldMaxSeconds }),
      });
      const { ended, untried } = await relayBatch(rows);
      for (const [outcome, ids] of ended) counts[outcome] += ids.length;
      // Marked only after every signal of the batch returned: a relay that dies before this line leaves
      // claims that lapse, and the rows are signalled again, never lost.
      await markNotificationsSignalled(db, [
        ...(ended.get('signalled') ?? []),
        ...(ended.get('workflow_gone') ?? []),
      ]);
      // A failed signal (Temporal unreachable), one no workflow takes yet, and the rows queued behind them:
      // again after the interval.
      await retryNotificationsAfter(
        db,
        [...(ended.get('failed') ?? []), ...(ended.get('waiting') ?? []), ...untried],
        settings.relayIntervalMs / 1000,
      );
      // Rows stored meanwhile, and more objects than one batch holds, are for the next round; a round that
      // signalled nothing would only find the same rows again.
      const progressed = (ended.get('signalled')?.length ?? 0) + (ended.get('workflow_gone')?.length ?? 0);
      if (rows.length === 0 || progressed === 0) break;
      await reportBacklogAge();
    }
    await reportBacklogAge();
    return counts;
  }

  let stopped = false;
  let sweeping: Promise<void> | undefined;
  let wokenWhileSweeping = false;
  /** While giving way: wake-ups before this time are dropped, and a timer wakes the relay then. */
  let quietUntil = 0;
  let recheck: NodeJS.Timeout | undefined;
  const recheckMs = Math.min(1000, settings.relayIntervalMs);
  /** Sweeps now, or once more after the sweep under way: wake-ups arriving meanwhile are one more sweep. */
  const wake = () => {
    if (stopped || Date.now() < quietUntil) return;
    if (sweeping) {
      wokenWhileSweeping = true;
      return;
    }
    sweeping = (async () => {
      // Woken from idle: what arrives in the next moment is claimed with it, and a burst's first rows are
      // counted before any of them is signalled (signals at a burst's start slowed its first answers).
      if (settings.relayYieldAbove > 0)
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(WAKE_SETTLE_MS, settings.relayIntervalMs)),
        );
      while (!stopped) {
        wokenWhileSweeping = false;
        await sweep().catch((error: unknown) =>
          log.error({ err: error }, 'A relay sweep failed; the next one retries'),
        );
        if (!wokenWhileSweeping || givingWay) break;
      }
    })().finally(() => {
      sweeping = undefined;
      // Every commit of the burst rings: a relay giving way looks again only once a second.
      if (givingWay && !stopped) {
        quietUntil = Date.now() + recheckMs;
        clearTimeout(recheck);
        recheck = setTimeout(wake, recheckMs).unref();
      }
    });
  };

  /** Other API processes' commits, heard through LISTEN; while it is lost the interval's sweeps find what was missed. */
  let listener: ChannelListener | undefined;
  const listen = () =>
    listenOn(
      db,
      INBOX_CHANNEL,
      {
        notified: wake,
        // What was committed while nobody listened.
        opened: wake,
        lost: (error, when) => {
          if (when === 'opening')
            log.warn(
              { err: error },
              'The relay could not LISTEN; sweeping on its interval, listening again shortly',
            );
          else if (error)
            log.warn({ err: error }, 'The relay lost its LISTEN connection; listening again shortly');
        },
      },
      settings.relayIntervalMs,
    );

  let timer: NodeJS.Timeout | undefined;
  let unring: (() => void) | undefined;
  return {
    sweep,
    start() {
      if (stopped || timer) return;
      unring = onInboxRing(db, wake);
      // The relay never keeps a process alive on its own: the server does, and stop() ends it.
      timer = setInterval(wake, settings.relayIntervalMs).unref();
      listener = listen();
      wake();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(recheck);
      unring?.();
      await listener?.stop();
      await sweeping;
    },
  };
}
