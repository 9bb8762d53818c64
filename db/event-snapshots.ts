/**
 * Rows → event snapshots: the public fields of each record, as the catalogue declares them. Names,
 * personal ids, receiver details, tokens and links the customer pays through never appear.
 */
import type {
  DisbursementSnapshot,
  PaymentSnapshot,
  PayoutRunSnapshot,
  RefundSnapshot,
  RemittanceSnapshot,
  SavedMethodSnapshot,
  SubscriptionChargeSnapshot,
  SubscriptionSnapshot,
  TokenPaymentSnapshot,
} from '../platform/event-catalogue';
import type { DisbursementRow } from './disbursements';
import type { PaymentRow, RefundRow } from './payments';
import type { PayoutRunRow } from './payouts';
import type { RemittanceRow } from './remittances';
import type { SavedMethodRow, TokenPaymentRow } from './saved-methods';
import type { SubscriptionChargeRow, SubscriptionRow } from './subscriptions';

const iso = (value: Date | null) => (value ? value.toISOString() : null);
const numberOrNull = (value: string | null) => (value === null ? null : Number(value));

export const payoutRunSnapshot = (row: PayoutRunRow): PayoutRunSnapshot => ({
  runId: row.run_id,
  status: row.status,
  statusReason: row.status_reason,
  fileName: row.file_name,
  rowCount: Number(row.row_count),
  totalAmount: Number(row.total_amount),
  batchCount: Number(row.batch_count),
  uploadedAt: row.uploaded_at.toISOString(),
  completedAt: iso(row.completed_at),
});

export const disbursementSnapshot = (row: DisbursementRow): DisbursementSnapshot => ({
  disbursementId: row.disbursement_id,
  status: row.status,
  requestType: row.request_type,
  amount: Number(row.amount),
  receiverLabel: row.receiver_label,
  resultCode: row.result_code,
  message: row.message,
  transId: row.trans_id,
});

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
  completedAt: iso(row.completed_at),
});

export const subscriptionSnapshot = (row: SubscriptionRow): SubscriptionSnapshot => ({
  subscriptionId: row.subscription_id,
  status: row.status,
  statusReason: row.status_reason,
  type: row.type,
  frequency: row.frequency,
  recurringAmount: Number(row.recurring_amount),
  nextPaymentDate: row.next_payment_date,
  expiryDate: row.expiry_date,
  failures: Number(row.failures),
});

export const subscriptionChargeSnapshot = (row: SubscriptionChargeRow): SubscriptionChargeSnapshot => ({
  orderId: row.order_id,
  cycle: Number(row.cycle),
  attempt: Number(row.attempt),
  dueDate: row.due_date,
  amount: Number(row.amount),
  status: row.status,
  resultCode: row.result_code,
  message: row.message,
  transId: row.trans_id,
});

export const paymentSnapshot = (row: PaymentRow): PaymentSnapshot => ({
  paymentId: row.payment_id,
  orderId: row.order_id,
  requestType: row.request_type,
  amount: Number(row.amount),
  status: row.status,
  resultCode: row.result_code,
  message: row.result_message,
  transId: row.trans_id,
  payType: row.pay_type,
  refundedAmount: Number(row.refunded_amount),
  completedAt: iso(row.completed_at),
});

export const refundSnapshot = (row: RefundRow): RefundSnapshot => ({
  refundId: row.refund_id,
  paymentId: row.payment_id,
  orderId: row.order_id,
  amount: Number(row.amount),
  status: row.status,
  resultCode: row.result_code,
  message: row.result_message,
  transId: row.trans_id,
  items: row.items.map((item) => ({ itemId: item.itemId, amount: item.amount, status: item.status })),
  completedAt: iso(row.completed_at),
});

export const tokenPaymentSnapshot = (row: TokenPaymentRow): TokenPaymentSnapshot => ({
  paymentId: row.payment_id,
  methodId: row.method_id,
  kind: row.kind,
  amount: Number(row.amount),
  state: row.state,
  resultCode: row.result_code,
  message: row.message,
  transId: row.trans_id,
});

export const savedMethodSnapshot = (row: SavedMethodRow): SavedMethodSnapshot => ({
  methodId: row.method_id,
  kind: row.kind,
  status: row.status,
  last4: row.card_last4,
  cardType: row.card_type,
  bankCode: row.bank_code,
  revokedAt: iso(row.revoked_at),
});
