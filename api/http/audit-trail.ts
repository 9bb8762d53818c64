/**
 * What a person did through the API, for the audit log. A route that changes something declares its
 * action; the mount records one entry per request — succeeded or refused, with the request id — after
 * the answer is known, unless the route already wrote it inside the transaction of its change
 * (`recordIn`), which is how an upload and its run are committed together or not at all.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/shared/knex';
import { recordAudit, type AuditEntry } from '../../db/shared/audit-log';
import type { Principal } from '../auth/roles';

export interface AuditSpec {
  /** e.g. `payout_run.approve`. */
  action: string;
  /** What kind of record the action is about: payout_run, payment, subscription… */
  target: string;
}

export interface AuditTrail {
  /** Adds what the action created or chose (a new run id, a refund amount) to the entry. */
  note(patch: { targetId?: string; details?: Record<string, unknown> }): void;
  /** Writes the entry now, in the transaction of the change it records. */
  recordIn(trx: Knex.Transaction, statusCode?: number): Promise<void>;
  /** A create whose id the server chose: the answer names the target (`remittanceId`…). */
  answered(body: unknown): void;
}

/** Fields a person chooses that are worth keeping; anything personal (wallets, names, tokens) is left out. */
const KEPT_FIELDS = [
  'note',
  'reason',
  'amount',
  'fileName',
  'sheet',
  'description',
  'name',
  'roles',
] as const;

export function keptDetails(...sources: unknown[]): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const source of sources) {
    if (!source || typeof source !== 'object' || Buffer.isBuffer(source)) continue;
    for (const field of KEPT_FIELDS) {
      const value = (source as Record<string, unknown>)[field];
      if (value !== undefined && value !== null && value !== '') details[field] = value;
    }
  }
  return details;
}

/** One request's entry, built as the request goes and written once. */
export class RequestAuditTrail implements AuditTrail {
  private targetId: string | null;
  private details: Record<string, unknown>;
  private recorded = false;

  constructor(
    private readonly spec: AuditSpec,
    private readonly request: {
      principal: Principal;
      requestId?: string;
      method: string;
      path: string;
      targetId: string | null;
      details: Record<string, unknown>;
    },
  ) {
    this.targetId = request.targetId;
    this.details = request.details;
  }

  note(patch: { targetId?: string; details?: Record<string, unknown> }): void {
    if (patch.targetId !== undefined) this.targetId = patch.targetId;
    if (patch.details) this.details = { ...this.details, ...patch.details };
  }

  answered(body: unknown): void {
    if (this.targetId !== null || !body || typeof body !== 'object') return;
    const field = `${this.spec.target.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())}Id`;
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === 'string') this.targetId = value;
  }

  private entry(outcome: AuditEntry['outcome'], statusCode: number, errorCode?: string): AuditEntry {
    return {
      actorKeyId: this.request.principal.keyId,
      actorName: this.request.principal.name,
      action: this.spec.action,
      targetType: this.spec.target,
      targetId: this.targetId,
      outcome,
      statusCode,
      ...(errorCode ? { errorCode } : {}),
      ...(this.request.requestId ? { requestId: this.request.requestId } : {}),
      method: this.request.method.toUpperCase(),
      path: this.request.path,
      details: this.details,
    };
  }

  async recordIn(trx: Knex.Transaction, statusCode = 201): Promise<void> {
    await recordAudit(trx, this.entry('succeeded', statusCode));
    this.recorded = true;
  }

  /** After the answer: the entry, unless the route wrote it with its change. */
  async finish(
    db: Db,
    outcome: AuditEntry['outcome'],
    statusCode: number,
    errorCode?: string,
  ): Promise<void> {
    if (this.recorded && outcome === 'succeeded') return;
    await recordAudit(db, this.entry(outcome, statusCode, errorCode));
    this.recorded = true;
  }
}
