/**
 * Approvals of outgoing money and the decisions on them (migration 0019). A request is recorded in the
 * transaction that creates its item, after the daily caps are checked under a lock, so two requests at
 * once cannot both fit under a cap that holds only one of them.
 */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { personKey } from '../../contracts/shared';
import {
  type ApprovalDecisionRecord,
  type ApprovalKind,
  type ApprovalStatus,
  type ApproverRole,
  type KindPolicy,
  type Person,
} from '../../contracts/approvals';
import type { ApprovalSnapshot, EventType } from '../../platform/event-catalogue';
import { recordEvent } from '../events/events';

export interface ApprovalRow {
  approval_id: string;
  kind: ApprovalKind;
  object_id: string;
  amount: string;
  receiver_label: string;
  description: string;
  status: ApprovalStatus;
  status_reason: string | null;
  required_approvers: number;
  approver_roles: ApproverRole[];
  requested_by_key: string;
  requested_by: string;
  requested_by_person: string;
  requested_day: string;
  requested_at: Date;
  expires_at: Date;
  decided_at: string | null;
}

export interface ApprovalDecisionRow {
  approval_id: string;
  decision: 'approve' | 'reject';
  by_key: string;
  by_name: string;
  note: string | null;
  decided_at: Date;
}

/** Today in Vietnam, as the database reads it: what the daily caps count by. */
const TODAY = "(now() at time zone 'Asia/Ho_Chi_Minh')::date";

/** The cap a request would break, with what was requested today before it. */
export interface CapBreach {
  cap: 'perMakerDailyVnd' | 'perMerchantDailyVnd';
  limitVnd: number;
  requestedTodayVnd: number;
}

export interface NewApproval {
  approvalId: string;
  kind: ApprovalKind;
  objectId: string;
  amount: number;
  receiverLabel: string;
  description: string;
  requiredApprovers: number;
  roles: ApproverRole[];
  requestedBy: Person;
  expiresAt: Date;
}

/**
 * Records a request against the day's caps, in the caller's transaction (the one creating its item):
 * the cap it would break, and nothing written; or undefined, the request recorded (`approved` at once when
 * its band needs nobody, so that it still counts) and `approval.requested` emitted when it waits.
 */
export async function requestApproval(
  trx: Knex.Transaction,
  request: NewApproval,
  caps: Pick<KindPolicy, 'perMakerDailyVnd' | 'perMerchantDailyVnd'>,
): Promise<CapBreach | undefined> {
  const waits = request.requiredApprovers > 0;
  const [row] = (await trx('approvals')
    .insert({
      approval_id: request.approvalId,
      kind: request.kind,
      object_id: request.objectId,
      amount: request.amount,
      receiver_label: request.receiverLabel,
      description: request.description,
      status: waits ? 'requested' : 'approved',
      status_reason: waits ? null : 'Below the policy’s first band that needs approvers.',
      required_approvers: request.requiredApprovers,
      approver_roles: request.roles,
      requested_by_key: request.requestedBy.keyId,
      requested_by: request.requestedBy.name,
      requested_by_person: personKey(request.requestedBy.name),
      requested_day: trx.raw(TODAY),
      expires_at: request.expiresAt,
      decided_at: waits ? null : trx.fn.now(),
    })
    .returning('*')) as ApprovalRow[];
  // The check is the increment: it locks the day's two total rows until the caller's transaction ends, so
  // requests of one kind take turns from here to their commit, and no sooner (the item and this row are
  // written before). A request that does not fit takes its amount and its row back.
  const amount = Number(row!.amount);
  const after = await addToDayTotals(trx, row!.approval_id, amount);
  const breach = capBreachOf(after, amount, caps);
  if (breach) {
    await addToDayTotals(trx, row!.approval_id, -amount);
    await trx('approvals').where({ approval_id: row!.approval_id }).delete();
    return breach;
  }
  if (waits) await recordEvent(trx, 'approval.requested', row!.approval_id, approvalSnapshot(row!, []));
  return undefined;
}

/** The cap the day's totals, with `amount` already added, are over: the maker's checked first, as before. */
function capBreachOf(
  after: DayTotals,
  amount: number,
  caps: Pick<KindPolicy, 'perMakerDailyVnd' | 'perMerchantDailyVnd'>,
): CapBreach | undefined {
  if (after.maker > caps.perMakerDailyVnd)
    return {
      cap: 'perMakerDailyVnd',
      limitVnd: caps.perMakerDailyVnd,
      requestedTodayVnd: after.maker - amount,
    };
  if (after.merchant > caps.perMerchantDailyVnd)
    return {
      cap: 'perMerchantDailyVnd',
      limitVnd: caps.perMerchantDailyVnd,
      requestedTodayVnd: after.merchant - amount,
    };
  return undefined;
}

/** Statuses whose requests the daily caps do not count. */
const NOT_COUNTED: readonly ApprovalStatus[] = ['rejected', 'expired'];

interface DayTotals {
  merchant: number;
  maker: number;
}

/**
 * Moves the merchant's and the maker's totals of the approval's kind and day by `amount` (negative: a
 * request that no longer counts) and answers them as they are now. An atomic increment, so concurrent
 * writers never lose each other's change, and always merchant then maker, one statement, so two writers lock
 * the rows in the same order; the day is read from the approval's row, never through a JavaScript Date.
 */
async function addToDayTotals(trx: Knex.Transaction, approvalId: string, amount: number): Promise<DayTotals> {
  const { rows } = (await trx.raw(
    `insert into approval_day_totals (kind, requested_day, scope, person, amount)
     select a.kind, a.requested_day, s.scope, s.person, ?::bigint
       from approvals a
      cross join lateral (values ('merchant', ''), ('maker', a.requested_by_person)) as s(scope, person)
      where a.approval_id = ?
     on conflict (kind, requested_day, scope, person)
     do update set amount = approval_day_totals.amount + excluded.amount
     returning scope, amount`,
    [amount, approvalId],
  )) as { rows: Array<{ scope: 'merchant' | 'maker'; amount: string }> };
  const totalOf = (scope: 'merchant' | 'maker') =>
    Number(rows.find((row) => row.scope === scope)?.amount ?? 0);
  return { merchant: totalOf('merchant'), maker: totalOf('maker') };
}

export async function findApproval(db: Db, approvalId: string): Promise<ApprovalRow | undefined> {
  return db('approvals').where({ approval_id: approvalId }).first();
}

export async function decisionsOn(db: Db, approvalId: string): Promise<ApprovalDecisionRow[]> {
  return db('approval_decisions').where({ approval_id: approvalId }).orderBy('id');
}

const EVENTS: Partial<Record<ApprovalStatus, EventType & `approval.${string}`>> = {
  approved: 'approval.approved',
  rejected: 'approval.rejected',
  expired: 'approval.expired',
};

/**
 * One person's decision, and the approval's new status with its event, in one transaction. A decision the
 * same person already recorded (an activity retried after its answer was lost) changes nothing.
 */
export async function recordDecision(db: Db, input: ApprovalDecisionRecord): Promise<void> {
  await db.transaction(async (trx) => {
    const before = (await trx('approvals').where({ approval_id: input.approvalId }).forUpdate().first()) as
      ApprovalRow | undefined;
    if (!before) throw new Error(`No approval ${input.approvalId}`);
    const inserted = await trx('approval_decisions')
      .insert({
        approval_id: input.approvalId,
        decision: input.decision,
        by_key: input.by.keyId,
        by_name: input.by.name,
        by_person: personKey(input.by.name),
        note: input.note ?? null,
      })
      .onConflict(['approval_id', 'by_person'])
      .ignore()
      .returning('id');
    if (inserted.length === 0 || before.status !== 'requested') return;
    await settle(trx, before, input.status, null);
  });
}

/** A request nobody decided in time: expired, with its event; a decided one stays as it is. */
export async function expireApproval(db: Db, input: { approvalId: string; reason: string }): Promise<void> {
  await db.transaction(async (trx) => {
    const before = (await trx('approvals').where({ approval_id: input.approvalId }).forUpdate().first()) as
      ApprovalRow | undefined;
    if (!before || before.status !== 'requested') return;
    await settle(trx, before, 'expired', input.reason);
  });
}

async function settle(
  trx: Knex.Transaction,
  before: ApprovalRow,
  status: ApprovalStatus,
  reason: string | null,
): Promise<void> {
  if (status === before.status) return;
  const [after] = (await trx('approvals')
    .where({ approval_id: before.approval_id })
    .update({ status, status_reason: reason, decided_at: trx.fn.now() })
    .returning('*')) as ApprovalRow[];
  // A request that no longer counts against the day's caps gives its amount back.
  if (NOT_COUNTED.includes(status) && !NOT_COUNTED.includes(before.status))
    await addToDayTotals(trx, before.approval_id, -Number(before.amount));
  const type = EVENTS[status];
  if (!type) return;
  const approvedBy = (await decisionsOn(trx, before.approval_id))
    .filter((decision) => decision.decision === 'approve')
    .map((decision) => decision.by_name);
  await recordEvent(trx, type, after!.approval_id, approvalSnapshot(after!, approvedBy));
}

/** Requests waiting for approvers, oldest first. */
export async function listWaitingApprovals(
  db: Db,
  filter: { kind?: ApprovalKind; limit: number; offset: number },
): Promise<ApprovalRow[]> {
  const query = db('approvals').where({ status: 'requested' });
  if (filter.kind) query.where({ kind: filter.kind });
  return query
    .orderBy([{ column: 'requested_at' }, { column: 'approval_id' }])
    .limit(filter.limit)
    .offset(filter.offset);
}

export const approvalSnapshot = (row: ApprovalRow, approvedBy: string[]): ApprovalSnapshot => ({
  approvalId: row.approval_id,
  kind: row.kind,
  objectId: row.object_id,
  status: row.status,
  amount: Number(row.amount),
  receiverLabel: row.receiver_label,
  requiredApprovers: row.required_approvers,
  requestedBy: row.requested_by,
  approvedBy,
  requestedAt: new Date(row.requested_at).toISOString(),
  expiresAt: new Date(row.expires_at).toISOString(),
});
