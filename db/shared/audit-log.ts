/**
 * The audit log's rows: written once (a trigger refuses any change), read with the list filters.
 */
import type { Knex } from 'knex';
import type { Db } from './knex';
import { applyListFilter, pageOf, type ListFilter } from './list-filter';
import { storableJson, storableText } from './storable-text';

/**
 * `requested`: written before an action that is not one transaction of ours, completed once its outcome is
 * known; it stays `requested` only when the process died (or the database failed) between acting and
 * completing it, so its reader knows the outcome must be looked up on the record. `refused`: the API
 * said no and nothing changed. `failed`: an unexpected error (a 500) whose effect is not known.
 */
export type AuditOutcome = 'requested' | 'succeeded' | 'refused' | 'failed';
export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ['requested', 'succeeded', 'refused', 'failed'];

export interface AuditEntry {
  actorKeyId: string | null;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string | null;
  outcome: AuditOutcome;
  statusCode?: number;
  errorCode?: string;
  requestId?: string;
  method?: string;
  path?: string;
  details?: Record<string, unknown>;
}

/** What completing a `requested` entry sets. */
export type AuditCompletion = Pick<AuditEntry, 'targetId' | 'statusCode' | 'errorCode' | 'details'> & {
  outcome: Exclude<AuditOutcome, 'requested'>;
};

export interface AuditRow {
  id: string;
  at: Date;
  /** When a `requested` entry was completed (null while it waits; written with the entry otherwise). */
  completed_at?: Date | null;
  actor_key_id: string | null;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string | null;
  outcome: string;
  status_code: number | null;
  error_code: string | null;
  request_id: string | null;
  method: string | null;
  path: string | null;
  details: Record<string, unknown>;
}

// A NUL is marked, not removed: whoever reads the entry of a refused request sees that one was sent.
const storable = (value: string) => storableText(value, 'mark');
const text = (value: string | null | undefined) => (value == null ? null : storable(value));
const storableDetails = (details: Record<string, unknown> | undefined) =>
  JSON.stringify(storableJson(details ?? {}, '', 'mark').value);

const rowOf = (entry: AuditEntry) => ({
  actor_key_id: text(entry.actorKeyId),
  actor_name: storable(entry.actorName),
  action: storable(entry.action),
  target_type: storable(entry.targetType),
  target_id: text(entry.targetId),
  outcome: entry.outcome,
  status_code: entry.statusCode ?? null,
  error_code: text(entry.errorCode),
  request_id: text(entry.requestId),
  method: text(entry.method),
  path: text(entry.path),
  details: storableDetails(entry.details),
});

/**
 * Records one entry; pass the transaction of the change it records so both happen or neither. Its text
 * is made storable first (db/shared/storable-text.ts; NUL and lone surrogates become U+FFFD): the entry of
 * a refused request records what was sent, and an unstorable character in it must not cost the entry
 * (nor, inside a transaction, the change). Answers the entry's id.
 */
export async function recordAudit(db: Db | Knex.Transaction, entry: AuditEntry): Promise<string> {
  const [row] = await db('audit_log')
    .insert({ ...rowOf(entry), completed_at: entry.outcome === 'requested' ? null : db.fn.now() })
    .returning('id');
  return String((row as { id: string | number }).id);
}

/**
 * Completes a `requested` entry with its outcome, once (a trigger refuses any other change). Inside the
 * transaction of the change it records, the change and its outcome commit together. Answers false when
 * the entry was already completed.
 */
export async function completeAudit(
  db: Db | Knex.Transaction,
  id: string,
  completion: AuditCompletion,
): Promise<boolean> {
  const updated = await db('audit_log')
    .where({ id, outcome: 'requested' })
    .update({
      outcome: completion.outcome,
      target_id: text(completion.targetId),
      status_code: completion.statusCode ?? null,
      error_code: text(completion.errorCode),
      details: storableDetails(completion.details),
      completed_at: db.fn.now(),
    });
  return updated === 1;
}

export interface AuditFilter extends ListFilter {
  action?: string;
  actor?: string;
  outcome?: string;
}

export async function listAudit(db: Db, filter: AuditFilter) {
  const query = db<AuditRow>('audit_log');
  if (filter.action) query.where('action', filter.action);
  if (filter.outcome) query.where('outcome', filter.outcome);
  if (filter.actor) query.whereILike('actor_name', `%${filter.actor.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  applyListFilter(query, filter, {
    created: 'at',
    ids: ['target_id', 'request_id', 'actor_key_id'],
    tiebreak: 'id',
  });
  return pageOf((await query) as AuditRow[], filter);
}

/** The audit entries about one record, oldest first. */
export async function auditEntriesAbout(db: Db, target: { type: string; id: string }, limit: number) {
  return db('audit_log')
    .where({ target_type: target.type, target_id: target.id })
    .orderBy('at')
    .limit(limit)
    .select('at', 'actor_name', 'action', 'outcome', 'error_code', 'request_id', 'details');
}
