/**
 * What a person did through the API, for the audit log. A route that changes something declares its
 * action, and no answer leaves before its entry is committed: the mount writes the entry `requested`
 * before the route acts, and completes it with the outcome before answering. A route whose change is one
 * transaction of ours completes it inside that transaction (`recordIn`), so the change and its entry
 * commit together or not at all; a route that starts a workflow or calls the gateway leaves an entry that
 * says so even when the process dies before answering.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/shared/knex';
import { completeAudit, recordAudit, type AuditEntry, type AuditOutcome } from '../../db/shared/audit-log';
import type { Principal } from '../auth/roles';

export interface AuditSpec {
  /** e.g. `payout_run.approve`. */
  action: string;
  /** What kind of record the action is about: payout_run, payment, subscription… */
  target: string;
  /**
   * The record's id from the path, when it is not the first path parameter as is: the entry is written
   * before the route acts, and its target never changes after that.
   */
  targetOf?: (params: Record<string, string>) => string;
}

export interface AuditTrail {
  /** Adds what the action created or chose (a new run id, a refund amount) to the entry. */
  note(patch: { targetId?: string; details?: Record<string, unknown> }): void;
  /** Completes the entry now, in the transaction of the change it records. */
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
  /** The `requested` row written before the route acted, when it was. */
  private entryId: string | null = null;
  /** The route recorded the outcome in its transaction (which may yet roll back: then it is completed here). */
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

  private entry(outcome: AuditOutcome, statusCode?: number, errorCode?: string): AuditEntry {
    return {
      actorKeyId: this.request.principal.keyId,
      actorName: this.request.principal.name,
      action: this.spec.action,
      targetType: this.spec.target,
      targetId: this.targetId,
      outcome,
      ...(statusCode === undefined ? {} : { statusCode }),
      ...(errorCode ? { errorCode } : {}),
      ...(this.request.requestId ? { requestId: this.request.requestId } : {}),
      method: this.request.method.toUpperCase(),
      path: this.request.path,
      details: this.details,
    };
  }

  /** Before the route acts: the entry, `requested`, committed on its own. */
  async begin(db: Db): Promise<void> {
    this.entryId = await recordAudit(db, this.entry('requested'));
  }

  private async write(
    db: Db | Knex.Transaction,
    outcome: Exclude<AuditOutcome, 'requested'>,
    statusCode: number,
    errorCode?: string,
  ): Promise<void> {
    const completed =
      this.entryId !== null &&
      (await completeAudit(db, this.entryId, {
        outcome,
        targetId: this.targetId,
        statusCode,
        ...(errorCode ? { errorCode } : {}),
        details: this.details,
      }));
    // Not begun, or already completed by a committed `recordIn` that the request then failed after: an
    // entry of its own, so neither the change nor what came after it goes unrecorded.
    if (!completed) await recordAudit(db, this.entry(outcome, statusCode, errorCode));
  }

  async recordIn(trx: Knex.Transaction, statusCode = 201): Promise<void> {
    await this.write(trx, 'succeeded', statusCode);
    this.recorded = true;
  }

  /**
   * Before the answer: the entry's outcome, unless the route recorded it with its change. A refusal after
   * `recordIn` either finds the entry `requested` (its transaction rolled back) and completes it, or finds it
   * `succeeded` (committed, then something after it failed) and records the failure as an entry of its own.
   */
  async finish(
    db: Db,
    outcome: Exclude<AuditOutcome, 'requested'>,
    statusCode: number,
    errorCode?: string,
  ): Promise<void> {
    if (this.recorded && outcome === 'succeeded') return;
    await this.write(db, outcome, statusCode, errorCode);
  }
}
