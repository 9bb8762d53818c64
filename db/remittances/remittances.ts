import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { reserveOrderIds } from '../shared/gateway-order-ids';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import type { EventType, RemittanceSnapshot } from '../../platform/event-catalogue';
import { recordEvent, updateRecordingEvents, type MayMove } from '../events/events';
import { isoOrNull, numberOrNull } from '../shared/values';
import type {
  BaseCurrency,
  RemittanceReason,
  RemittanceRequestType,
  RemittanceStatus,
  ResultSource,
} from '../../contracts/remittances';

export interface RemittanceRow {
  remittance_id: string;
  order_id: string;
  workflow_id: string;
  status: RemittanceStatus;
  status_reason: string | null;
  request_type: RemittanceRequestType;
  auto_capture: boolean;
  base_currency: BaseCurrency;
  foreign_amount: string;
  requested_amount: string | null;
  rate_used: string | null;
  quote_seq: number | null;
  quoted_at: Date | null;
  exchange_amount: string | null;
  bought_at: Date | null;
  amount_sent: string | null;
  receiver_label: string;
  receiver_details: Record<string, unknown>;
  remittance_info: Record<string, unknown>;
  reason: RemittanceReason;
  order_info: string;
  result_code: number | null;
  result_message: string | null;
  trans_id: string | null;
  result_source: ResultSource | null;
  attention_reason: string | null;
  created_by_key: string;
  created_by: string;
  /** The create request (API key + Idempotency-Key) that recorded it, when it came with a key. */
  request_key: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export interface RemittanceQuoteRow {
  remittance_id: string;
  seq: number;
  base_currency: BaseCurrency;
  rate: string;
  request_id: string;
  quoted_at: Date;
}

export type NewRemittance = Pick<
  RemittanceRow,
  | 'remittance_id'
  | 'order_id'
  | 'workflow_id'
  | 'status'
  | 'request_type'
  | 'auto_capture'
  | 'base_currency'
  | 'receiver_label'
  | 'receiver_details'
  | 'remittance_info'
  | 'reason'
  | 'order_info'
  | 'created_by_key'
  | 'created_by'
  | 'request_key'
> & { foreign_amount: number; requested_amount: number | null };

/**
 * Records a remittance with the gateway orderIds it will send (its own, `-verify`, `-buy`) reserved in the
 * same transaction: OrderIdTaken when another object holds one, and nothing is written.
 */
export async function insertRemittance(
  db: Db,
  row: NewRemittance,
  orderIds: readonly string[],
  /** What else must be written with the remittance or not at all (its approval request). */
  alongside?: (trx: Knex.Transaction) => Promise<void>,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('remittances').insert({
      ...row,
      receiver_details: JSON.stringify(row.receiver_details),
      remittance_info: JSON.stringify(row.remittance_info),
    });
    await reserveOrderIds(
      trx,
      orderIds.map((orderId) => ({ orderId, kind: 'remittance', objectId: row.remittance_id })),
    );
    await alongside?.(trx);
  });
}

export async function getRemittance(db: Db, remittanceId: string): Promise<RemittanceRow | undefined> {
  return db('remittances').where({ remittance_id: remittanceId }).first();
}

/** The remittance an earlier attempt of the same create request (API key + Idempotency-Key) recorded. */
export async function findRemittanceByRequestKey(
  db: Db,
  requestKey: string,
): Promise<Pick<RemittanceRow, 'remittance_id' | 'status'> | undefined> {
  return db('remittances').where({ request_key: requestKey }).first('remittance_id', 'status');
}

export async function getRemittanceByOrderId(db: Db, orderId: string): Promise<RemittanceRow | undefined> {
  return db('remittances').where({ order_id: orderId }).first();
}

export async function listRemittances(
  db: Db,
  filter: ListFilter,
): Promise<{ rows: RemittanceRow[]; nextOffset: number | null }> {
  const query = applyListFilter(db('remittances'), filter, {
    created: 'created_at',
    status: 'status',
    ids: ['remittance_id', 'order_id'],
    tiebreak: 'remittance_id',
  });
  return pageOf((await query) as RemittanceRow[], filter);
}

export type RemittanceUpdate = Partial<
  Pick<
    RemittanceRow,
    | 'status'
    | 'status_reason'
    | 'rate_used'
    | 'quote_seq'
    | 'quoted_at'
    | 'exchange_amount'
    | 'bought_at'
    | 'amount_sent'
    | 'result_code'
    | 'result_message'
    | 'trans_id'
    | 'result_source'
    | 'attention_reason'
    | 'completed_at'
  >
>;

const EVENTS: Partial<Record<RemittanceStatus, EventType & `remittance.${string}`>> = {
  succeeded: 'remittance.succeeded',
  needs_attention: 'remittance.needs_attention',
};

/**
 * The remittance's one transition: every status change goes through here, forward only, and emits the
 * event a status calls for in the same transaction.
 */
export async function updateRemittance(
  db: Db,
  remittanceId: string,
  update: RemittanceUpdate,
  /** The remittance's transition table (contracts/remittances): records move forward only. */
  mayMove: MayMove,
): Promise<void> {
  await updateRecordingEvents<RemittanceRow>(
    db,
    'remittances',
    { remittance_id: remittanceId },
    { ...update, updated_at: db.fn.now() },
    async (trx, before, after) => {
      const type = EVENTS[after.status];
      if (type && before.status !== after.status)
        await recordEvent(trx, type, after.remittance_id, remittanceSnapshot(after));
    },
    { column: 'status', mayMove },
  );
}

/** Records a quote once: a retried activity (same seq) finds the row it wrote before. */
export async function recordQuote(
  db: Db,
  quote: Pick<RemittanceQuoteRow, 'remittance_id' | 'seq' | 'base_currency' | 'request_id'> & {
    rate: number;
  },
): Promise<RemittanceQuoteRow> {
  await db('remittance_quotes').insert(quote).onConflict(['remittance_id', 'seq']).ignore();
  return db('remittance_quotes').where({ remittance_id: quote.remittance_id, seq: quote.seq }).first();
}

export async function getQuote(
  db: Db,
  remittanceId: string,
  seq: number,
): Promise<RemittanceQuoteRow | undefined> {
  return db('remittance_quotes').where({ remittance_id: remittanceId, seq }).first();
}

export async function quotesOf(db: Db, remittanceId: string): Promise<RemittanceQuoteRow[]> {
  return db('remittance_quotes').where({ remittance_id: remittanceId }).orderBy('seq');
}

/** The public fields of the record that its events carry (platform/event-catalogue.ts). */
export const remittanceSnapshot = (row: RemittanceRow): RemittanceSnapshot => ({
  remittanceId: row.remittance_id,
  status: row.status,
  statusReason: row.status_reason,
  requestType: row.request_type,
  baseCurrency: row.base_currency,
  foreignAmount: Number(row.foreign_amount),
  rateUsed: numberOrNull(row.rate_used),
  exchangeAmount: numberOrNull(row.exchange_amount),
  amountSent: numberOrNull(row.amount_sent),
  receiverLabel: row.receiver_label,
  resultCode: row.result_code,
  transId: row.trans_id,
  attentionReason: row.attention_reason,
  completedAt: isoOrNull(row.completed_at),
});
