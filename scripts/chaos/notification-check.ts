/**
 * What happened to the gateway's notifications, from the sandbox's IPN log and payrun's stored
 * notifications: every forged one refused, every duplicated one stored (and signalled) once.
 */
import type { IpnLogEntry } from '../../sandbox/ipn';
import type { Row } from './ledger-check';

export interface NotificationCheck {
  forged: {
    sent: number;
    refused: number;
    accepted: string[];
    unanswered: number;
    byKind: Record<string, number>;
  };
  duplicated: { notifications: number; deliveries: number; storedOnce: number; notStoredOnce: string[] };
  /** Forged bodies payrun stored (must be none). */
  forgedStored: string[];
  dropped: number;
  reordered: number;
  /** Deliveries that met a dead or failing receiver and were sent again. */
  redelivered: number;
  /** Notifications the sandbox gave up on (every attempt failed): the workflows had to ask. */
  neverDelivered: number;
}

export function checkNotifications(log: IpnLogEntry[], stored: Row[]): NotificationCheck {
  const storedBySignature = new Map<string, Row[]>();
  for (const row of stored) {
    const signature = String(row.dedupe_key).split(':').at(-1) ?? '';
    storedBySignature.set(signature, [...(storedBySignature.get(signature) ?? []), row]);
  }

  const forgedGroups = groupBy(
    log.filter((entry) => entry.forged),
    (entry) => `${entry.forged}:${entry.signature}:${entry.orderId}`,
  );
  const forged = {
    sent: forgedGroups.size,
    refused: 0,
    accepted: [] as string[],
    unanswered: 0,
    byKind: {} as Record<string, number>,
  };
  const forgedStored: string[] = [];
  for (const [key, attempts] of forgedGroups) {
    const kind = attempts[0]!.forged!;
    forged.byKind[kind] = (forged.byKind[kind] ?? 0) + 1;
    if (attempts.some((entry) => entry.outcome === 'delivered')) forged.accepted.push(key);
    else if (attempts.some((entry) => entry.outcome === 'rejected')) forged.refused += 1;
    else forged.unanswered += 1;
    const signature = attempts[0]!.signature;
    // A forgery that kept the genuine signature shares it with the genuine notification: only a
    // forged body stored under it would show; the foreign-key forgery has a signature of its own.
    if (kind === 'foreignKey' && signature && storedBySignature.has(signature)) forgedStored.push(key);
  }

  const genuine = log.filter((entry) => !entry.forged && entry.signature);
  const bySignature = groupBy(genuine, (entry) => entry.signature!);
  const duplicated = { notifications: 0, deliveries: 0, storedOnce: 0, notStoredOnce: [] as string[] };
  let neverDelivered = 0;
  for (const [signature, attempts] of bySignature) {
    const delivered = attempts.filter((entry) => entry.outcome === 'delivered');
    if (delivered.length === 0 && attempts.every((entry) => entry.outcome === 'failed')) neverDelivered += 1;
    // The unbind call is no money notification and is not stored like one.
    if (delivered.length < 2 || attempts[0]!.kind === 'token.unbind') continue;
    duplicated.notifications += 1;
    duplicated.deliveries += delivered.length;
    const rows = storedBySignature.get(signature) ?? [];
    if (rows.length === 1 && rows[0]!.signalled_at) duplicated.storedOnce += 1;
    else
      duplicated.notStoredOnce.push(
        `${attempts[0]!.kind} ${attempts[0]!.orderId}: ${delivered.length} deliveries, ${rows.length} stored${rows.length === 1 ? ', not signalled' : ''}`,
      );
  }
  return {
    forged,
    duplicated,
    forgedStored,
    dropped: log.filter((entry) => entry.outcome === 'dropped').length,
    reordered: new Set(log.filter((entry) => entry.reordered).map((entry) => entry.signature)).size,
    redelivered: log.filter((entry) => entry.attempt > 1).length,
    neverDelivered,
  };
}

function groupBy<T>(list: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of list) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
