/**
 * The audit log's rows: written once (a trigger refuses any change), read with the list filters.
 */
import type { Knex } from 'knex';
import type { Db } from './knex';
import { applyListFilter, pageOf, type ListFilter } from './list-filter';
import { storableJson, storableText } from './storable-text';

export interface AuditEntry {
  actorKeyId: string | null;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string | null;
  outcome: 'succeeded' | 'refused';
  statusCode?: number;
  errorCode?: string;
  requestId?: string;
  method?: string;
  path?: string;
  details?: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  at: Date;
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

const text = (value: string | null | undefined) => (value == null ? null : storableText(value));

/**
 * Records one entry; pass the transaction of the change it records so both happen or neither. Its text
 * is made storable first (db/shared/storable-text.ts): the entry of a refused request records what was sent,
 * and a NUL or a lone surrogate in it must not cost the entry (nor, inside a transaction, the change).
 */
export async function recordAudit(db: Db | Knex.Transaction, entry: AuditEntry): Promise<void> {
  await db('audit_log').insert({
    actor_key_id: text(entry.actorKeyId),
    actor_name: storableText(entry.actorName),
    action: storableText(entry.action),
    target_type: storableText(entry.targetType),
    target_id: text(entry.targetId),
    outcome: entry.outcome,
    status_code: entry.statusCode ?? null,
    error_code: text(entry.errorCode),
    request_id: text(entry.requestId),
    method: text(entry.method),
    path: text(entry.path),
    details: JSON.stringify(storableJson(entry.details ?? {}).value),
  });
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
