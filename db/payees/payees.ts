/**
 * The payee directory's records (migration 0024). A payee's details change only in `decideChange`, in one
 * transaction that locks the payee, checks the proposal is still open and still on the version it was made
 * against, and writes the new version beside the payee: two approvals at once cannot both apply.
 */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { isSamePerson } from '../../contracts/shared';
import type {
  NameCheck,
  PayeeChangeAction,
  PayeeChangeStatus,
  PayeeDetails,
  PayeeFlag,
  PayeeKind,
  PayeeStatus,
  WalletCheckOutcome,
} from '../../contracts/payees';

export interface PayeeRow {
  payee_id: string;
  kind: PayeeKind;
  name: string;
  wallet_id: string | null;
  personal_id: string | null;
  bank_code: string | null;
  bank_account_no: string | null;
  bank_card_no: string | null;
  reference: string | null;
  status: PayeeStatus;
  version: number;
  name_check: NameCheck;
  registered_name: string | null;
  check_result_code: number | null;
  check_message: string | null;
  created_by_key: string;
  created_by: string;
  created_at: Date;
  details_changed_at: Date | null;
}

export interface PayeeChangeRow {
  change_id: string;
  payee_id: string;
  action: PayeeChangeAction;
  status: PayeeChangeStatus;
  details: PayeeDetails | null;
  reason: string | null;
  name_check: NameCheck | null;
  registered_name: string | null;
  check_result_code: number | null;
  check_message: string | null;
  base_version: number;
  proposed_by_key: string;
  proposed_by: string;
  proposed_at: Date;
  decided_by_key: string | null;
  decided_by: string | null;
  decided_at: Date | null;
}

export interface PayeeVersionRow {
  payee_id: string;
  version: number;
  details: PayeeDetails;
  name_check: NameCheck;
  status: PayeeStatus;
  change_id: string | null;
  proposed_by: string;
  approved_by: string | null;
  at: Date;
}

export interface Person {
  keyId: string;
  name: string;
}

/** The columns of a payee that its details and its check fill. */
function detailColumns(details: PayeeDetails, check: WalletCheckOutcome) {
  return {
    kind: details.wallet ? 'wallet' : 'bank',
    name: details.name,
    wallet_id: details.wallet?.walletId ?? null,
    personal_id: details.wallet?.personalId ?? null,
    bank_code: details.bank?.bankCode ?? null,
    bank_account_no: details.bank?.bankAccountNo ?? null,
    bank_card_no: details.bank?.bankCardNo ?? null,
    reference: details.reference,
    name_check: check.nameCheck,
    registered_name: check.registeredName,
    check_result_code: check.resultCode,
    check_message: check.message,
  };
}

/** The details a payee row holds now (what a version records). */
export function detailsOf(row: PayeeRow): PayeeDetails {
  return {
    name: row.name,
    ...(row.wallet_id !== null && { wallet: { walletId: row.wallet_id, personalId: row.personal_id } }),
    ...(row.bank_code !== null && {
      bank: {
        bankCode: row.bank_code,
        ...(row.bank_account_no !== null && { bankAccountNo: row.bank_account_no }),
        ...(row.bank_card_no !== null && { bankCardNo: row.bank_card_no }),
      },
    }),
    reference: row.reference,
  };
}

export async function insertPayee(
  db: Db,
  input: { payeeId: string; details: PayeeDetails; check: WalletCheckOutcome; by: Person },
): Promise<PayeeRow> {
  return db.transaction(async (trx) => {
    const [row] = (await trx('payees')
      .insert({
        payee_id: input.payeeId,
        ...detailColumns(input.details, input.check),
        created_by_key: input.by.keyId,
        created_by: input.by.name,
      })
      .returning('*')) as PayeeRow[];
    await trx('payee_versions').insert({
      payee_id: input.payeeId,
      version: 1,
      details: JSON.stringify(input.details),
      name_check: input.check.nameCheck,
      status: 'active',
      proposed_by: input.by.name,
    });
    return row!;
  });
}

export const findPayee = (db: Db | Knex.Transaction, payeeId: string) =>
  db('payees').where({ payee_id: payeeId }).first() as Promise<PayeeRow | undefined>;

export async function listPayees(
  db: Db,
  filter: { search?: string; status?: PayeeStatus; limit: number; offset: number },
): Promise<{ rows: PayeeRow[]; nextOffset: number | null }> {
  const query = db('payees');
  if (filter.status) query.where({ status: filter.status });
  if (filter.search) {
    const like = `%${filter.search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    query.where((where) => {
      void where
        .whereILike('name', like)
        .orWhereILike('payee_id', like)
        .orWhereILike('wallet_id', like)
        .orWhereILike('bank_account_no', like)
        .orWhereILike('reference', like);
    });
  }
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'payee_id', order: 'desc' },
    ])
    .limit(filter.limit + 1)
    .offset(filter.offset)) as PayeeRow[];
  const more = rows.length > filter.limit;
  return { rows: rows.slice(0, filter.limit), nextOffset: more ? filter.offset + filter.limit : null };
}

export async function payeeHistory(db: Db, payeeId: string) {
  const [versions, changes] = await Promise.all([
    db('payee_versions').where({ payee_id: payeeId }).orderBy('version', 'desc') as Promise<
      PayeeVersionRow[]
    >,
    db('payee_changes').where({ payee_id: payeeId }).orderBy('proposed_at', 'desc') as Promise<
      PayeeChangeRow[]
    >,
  ]);
  return { versions, changes };
}

export type ChangeRefusal =
  | { refused: 'not_found' }
  | { refused: 'archived' }
  | { refused: 'open_proposal'; changeId: string }
  | { refused: 'not_proposed'; status: PayeeChangeStatus }
  | { refused: 'same_person'; proposedBy: string }
  | { refused: 'stale'; baseVersion: number; version: number };

/** Records a proposed change (or archive) of an active payee with no other open proposal. */
export async function proposeChange(
  db: Db,
  input: {
    changeId: string;
    payeeId: string;
    action: PayeeChangeAction;
    details: PayeeDetails | null;
    reason: string | null;
    check: WalletCheckOutcome | null;
    by: Person;
  },
): Promise<{ change: PayeeChangeRow } | ChangeRefusal> {
  return db.transaction(async (trx) => {
    const payee = (await trx('payees').where({ payee_id: input.payeeId }).forUpdate().first()) as
      PayeeRow | undefined;
    if (!payee) return { refused: 'not_found' };
    if (payee.status === 'archived') return { refused: 'archived' };
    const open = (await trx('payee_changes')
      .where({ payee_id: input.payeeId, status: 'proposed' })
      .first('change_id')) as { change_id: string } | undefined;
    if (open) return { refused: 'open_proposal', changeId: open.change_id };
    const [change] = (await trx('payee_changes')
      .insert({
        change_id: input.changeId,
        payee_id: input.payeeId,
        action: input.action,
        status: 'proposed',
        details: input.details === null ? null : JSON.stringify(input.details),
        reason: input.reason,
        name_check: input.check?.nameCheck ?? null,
        registered_name: input.check?.registeredName ?? null,
        check_result_code: input.check?.resultCode ?? null,
        check_message: input.check?.message ?? null,
        base_version: payee.version,
        proposed_by_key: input.by.keyId,
        proposed_by: input.by.name,
      })
      .returning('*')) as PayeeChangeRow[];
    return { change: change! };
  });
}

/**
 * A second person's decision on an open proposal. Approval applies it: the details (or the archive) and
 * a new version, in the transaction that marks it approved. The proposer, under any of their keys or
 * spellings of their name, cannot approve; they may reject (withdraw) their own proposal.
 */
export async function decideChange(
  db: Db,
  input: { payeeId: string; changeId: string; decision: 'approve' | 'reject'; by: Person },
): Promise<{ change: PayeeChangeRow; payee: PayeeRow } | ChangeRefusal> {
  return db.transaction(async (trx) => {
    const payee = (await trx('payees').where({ payee_id: input.payeeId }).forUpdate().first()) as
      PayeeRow | undefined;
    const change = (await trx('payee_changes')
      .where({ payee_id: input.payeeId, change_id: input.changeId })
      .forUpdate()
      .first()) as PayeeChangeRow | undefined;
    if (!payee || !change) return { refused: 'not_found' };
    if (change.status !== 'proposed') return { refused: 'not_proposed', status: change.status };
    const proposer = { keyId: change.proposed_by_key, name: change.proposed_by };
    if (input.decision === 'approve' && isSamePerson(input.by, proposer))
      return { refused: 'same_person', proposedBy: change.proposed_by };
    if (input.decision === 'approve' && change.base_version !== payee.version)
      return { refused: 'stale', baseVersion: change.base_version, version: payee.version };
    const decided = {
      status: input.decision === 'approve' ? 'approved' : 'rejected',
      decided_by_key: input.by.keyId,
      decided_by: input.by.name,
      decided_at: trx.fn.now(),
    };
    const [after] = (await trx('payee_changes')
      .where({ change_id: change.change_id })
      .update(decided)
      .returning('*')) as PayeeChangeRow[];
    if (input.decision === 'reject') return { change: after!, payee };
    const version = payee.version + 1;
    const update =
      change.action === 'archive'
        ? { status: 'archived', version }
        : {
            ...detailColumns(change.details!, {
              nameCheck: change.name_check ?? 'unchecked',
              registeredName: change.registered_name,
              resultCode: change.check_result_code,
              message: change.check_message,
            }),
            version,
            details_changed_at: trx.fn.now(),
          };
    const [updated] = (await trx('payees')
      .where({ payee_id: payee.payee_id })
      .update(update)
      .returning('*')) as PayeeRow[];
    await trx('payee_versions').insert({
      payee_id: payee.payee_id,
      version,
      details: JSON.stringify(detailsOf(updated!)),
      name_check: updated!.name_check,
      status: updated!.status,
      change_id: change.change_id,
      proposed_by: change.proposed_by,
      approved_by: input.by.name,
    });
    return { change: after!, payee: updated! };
  });
}

/** The payees a file names, by id (archived ones too: the file's row error says which). */
export async function payeesByIds(db: Db, payeeIds: readonly string[]): Promise<Map<string, PayeeRow>> {
  if (payeeIds.length === 0) return new Map();
  const rows = (await db('payees').whereIn('payee_id', [...new Set(payeeIds)])) as PayeeRow[];
  return new Map(rows.map((row) => [row.payee_id, row]));
}

/**
 * Each item's standing in the directory: its payee (named by the file, else the active wallet payee with
 * the item's wallet) `changed` when an approved change altered it within the window, `known` otherwise;
 * `new` when no active payee has the item's wallet. `nameCheck` is that payee's wallet check (null for a row
 * with no payee), so the approver sees a row whose wallet is registered under another name. The check was of
 * the payee's own wallet and name; it speaks for the row only while the row carries exactly those (the item
 * keeps what was copied in at upload, or what the file typed): otherwise the row's name was never checked,
 * and it says `unchecked` rather than lend the row a `match` it does not have.
 */
export async function payeeFlagsOfRun(
  db: Db,
  runId: string,
  windowDays: number,
): Promise<Map<string, { flag: PayeeFlag; payeeId: string | null; nameCheck: NameCheck | null }>> {
  const rows = (await db.raw(
    `select i.payout_id,
            coalesce(named.payee_id, by_wallet.payee_id) as payee_id,
            coalesce(named.details_changed_at, by_wallet.details_changed_at) as changed_at,
            coalesce(named.name_check, by_wallet.name_check) as name_check,
            i.wallet_id = coalesce(named.wallet_id, by_wallet.wallet_id)
              and i.wallet_name in (coalesce(named.name, by_wallet.name),
                                    coalesce(named.registered_name, by_wallet.registered_name, ''))
              as carries_payee
       from payout_items i
       left join payees named on named.payee_id = i.payee_id and named.status = 'active'
       left join lateral (
         select p.payee_id, p.details_changed_at, p.name_check, p.wallet_id, p.name, p.registered_name
           from payees p
          where i.payee_id is null and p.wallet_id = i.wallet_id and p.status = 'active'
          order by p.details_changed_at desc nulls last limit 1
       ) by_wallet on true
      where i.run_id = ?`,
    [runId],
  )) as {
    rows: Array<{
      payout_id: string;
      payee_id: string | null;
      changed_at: Date | null;
      name_check: NameCheck | null;
      carries_payee: boolean | null;
    }>;
  };
  const since = Date.now() - windowDays * 86_400_000;
  return new Map(
    rows.rows.map((row) => [
      row.payout_id,
      {
        payeeId: row.payee_id,
        nameCheck: row.payee_id === null ? null : row.carries_payee ? row.name_check : 'unchecked',
        flag:
          row.payee_id === null
            ? 'new'
            : row.changed_at !== null && new Date(row.changed_at).getTime() >= since
              ? 'changed'
              : 'known',
      },
    ]),
  );
}
