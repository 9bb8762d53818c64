/**
 * The remittance stories: quote a rate, create a remittance (record it, start its workflow), and read
 * its state, rate, amounts and result. Routes stay thin and call these.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Db } from '../../db/shared/knex';
import type { ListFilter } from '../../db/shared/list-filter';
import {
  findRemittanceByRequestKey,
  getRemittance,
  insertRemittance,
  listRemittances,
  quotesOf,
  updateRemittance,
  type RemittanceRow,
} from '../../db/remittances/remittances';
import { durationMs, payrunOrderId } from '../../contracts/shared';
import {
  canMoveRemittance,
  exchangeAmountOf,
  remittanceOrderIds,
  remittanceQuoteWorkflowId,
  remittanceWorkflowId,
  type BaseCurrency,
  type RemittanceInput,
  type RemittanceReason,
  type RemittanceRequestType,
  type RemittanceStatus,
} from '../../contracts/remittances';
import type { Principal } from '../auth/roles';
import type { CachedQuote } from './quote-cache';
import { ApiError, notFound } from '../http/errors';
import type { CreateRequest } from '../http/idempotency';
import { certainlyNotStarted, startOnce, workflowNotStarted } from '../http/resumable';
import { maskNumber } from '../http/masking';
import type { RemittanceSettings } from './settings';
import { executeWorkflow, startWorkflow } from '../workflow-starts';
import { reservingOrderIds, withFreshId } from '../order-ids';
import { approvalIdOf, requirementFor } from '../../contracts/approvals';
import { expireApproval, findApproval } from '../../db/approvals/approvals';
import { approvalRequestOf, requestApprovalIn } from '../approvals/approvals';
import type { ApprovalPolicyReader } from '../approvals/policy-reader';

export interface RemittanceDeps {
  db: Db;
  temporal: Client;
  settings: RemittanceSettings;
  /** The approval policy in effect when an item is created (api/approvals/policy-reader.ts). */
  approvalPolicies: ApprovalPolicyReader;
}

/** Where each base currency's rate comes from: the quote cache GET /v1/remittance-quotes reads. */
export type QuoteSource = (baseCurrency: BaseCurrency) => Promise<CachedQuote>;

/**
 * A remittance without a VND `amount` sends whatever its foreign amount buys at the rate of the buy,
 * which comes later than the quote it is weighed at: the policy weighs it 5% above the quoted rate's
 * VND, and the workflow buys nothing if the rate moved further than that (it never sends more than was
 * weighed).
 */
export const REMITTANCE_VALUATION_MARGIN = 0.05;

/**
 * The VND the approval policy and the daily caps weigh: the amount to send when given, otherwise the
 * foreign amount at the cached quote plus the margin. No rate to be had refuses (quote_unavailable)
 * rather than guessing low.
 */
export async function remittanceValueInVnd(
  request: Pick<NewRemittanceRequest, 'amount' | 'foreignAmount' | 'baseCurrency'>,
  quotes: QuoteSource,
): Promise<number> {
  if (request.amount !== undefined) return request.amount;
  const { rate } = await quotes(request.baseCurrency);
  return Math.ceil(exchangeAmountOf(request.foreignAmount, rate) * (1 + REMITTANCE_VALUATION_MARGIN));
}

/** A retried create finishes what its first attempt recorded while the workflow may not have started. */
const BEFORE_START: readonly RemittanceStatus[] = ['accepted', 'awaiting_approval'];

export interface WalletReceiver {
  walletId: string;
  walletName: string;
  personalId: string;
}

export interface BankReceiver {
  bankAccountNo?: string;
  bankCardNo?: string;
  bankAccountHolderName: string;
  bankCode: string;
  nationality: string;
  dob: string;
  gender: string;
  phoneNumber?: string;
  personalId: string;
}

export interface RemittanceInfoInput {
  name: string;
  partnerName: string;
  orderingCountry: string;
  sourceCurrency?: string;
  sourceAmount?: number;
  reason: RemittanceReason;
  senderNationality?: string;
  senderDob?: string;
  senderGender?: string;
  senderPersonalId?: string;
}

export interface NewRemittanceRequest {
  requestType: RemittanceRequestType;
  baseCurrency: BaseCurrency;
  foreignAmount: number;
  amount?: number;
  autoCapture: boolean;
  receiver: WalletReceiver | BankReceiver;
  remittanceInfo: RemittanceInfoInput;
  orderInfo?: string;
}

export function newRemittanceId(now = new Date()): string {
  return `rmt-${now.toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(4).toString('hex')}`;
}

const lastFour = maskNumber;

/** What lists, logs and exports may show of a receiver: its kind and the last four digits. */
export function receiverLabel(
  requestType: RemittanceRequestType,
  receiver: WalletReceiver | BankReceiver,
): string {
  if (requestType === 'remitToWallet') return `wallet ${lastFour((receiver as WalletReceiver).walletId)}`;
  const bank = receiver as BankReceiver;
  return bank.bankAccountNo
    ? `bank ${bank.bankCode} account ${lastFour(bank.bankAccountNo)}`
    : `bank ${bank.bankCode} card ${lastFour(bank.bankCardNo ?? '')}`;
}

/** A live rate through a one-activity workflow (the API holds no gateway credentials). */
export async function fetchLiveRate(
  deps: Pick<RemittanceDeps, 'temporal' | 'settings'>,
  baseCurrency: BaseCurrency,
): Promise<number> {
  if (!(await workersPolling(deps.temporal, deps.settings.taskQueue))) {
    throw new ApiError('quote_unavailable', 'No worker is running to ask the gateway for a rate.');
  }
  try {
    const { rate } = await executeWorkflow(deps.temporal, 'remittanceQuote', {
      taskQueue: deps.settings.taskQueue,
      workflowId: remittanceQuoteWorkflowId(randomUUID()),
      args: [{ baseCurrency }],
      workflowExecutionTimeout: '30 seconds',
    });
    return rate;
  } catch {
    throw new ApiError('quote_unavailable', 'The gateway did not quote a rate; try again shortly.', {
      status: 502,
    });
  }
}

/** A quote for reading, from `quotes` (the short-lived cache in front of `fetchLiveRate`). */
export async function quoteRate(
  deps: Pick<RemittanceDeps, 'settings'>,
  input: { baseCurrency: BaseCurrency; foreignAmount?: number },
  quotes: (baseCurrency: BaseCurrency) => Promise<CachedQuote>,
) {
  const { rate, quotedAt } = await quotes(input.baseCurrency);
  const lifetimeMs = durationMs(deps.settings.timing.quoteTtl);
  const expiresAt = new Date(quotedAt.getTime() + lifetimeMs);
  return {
    baseCurrency: input.baseCurrency,
    exchangeCurrency: 'VND',
    rate,
    quotedAt: quotedAt.toISOString(),
    validForSeconds: Math.max(0, Math.round((expiresAt.getTime() - Date.now()) / 1000)),
    expiresAt: expiresAt.toISOString(),
    ...(input.foreignAmount === undefined
      ? {}
      : { foreignAmount: input.foreignAmount, exchangeAmount: exchangeAmountOf(input.foreignAmount, rate) }),
    note: 'A quote is a moment: a remittance quotes again when it buys, and records the rate it used.',
  };
}

/**
 * A quote is answered synchronously, so it is refused at once when no worker polls the task queue
 * (instead of hanging until the timeout). A server that cannot describe task queues is trusted.
 */
async function workersPolling(temporal: Client, taskQueue: string): Promise<boolean> {
  try {
    const described = await temporal.workflowService.describeTaskQueue({
      namespace: temporal.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    return (described.pollers ?? []).length > 0;
  } catch {
    return true;
  }
}

/** Records the remittance (receiver and sender details stay in PostgreSQL) and starts its workflow. */
export async function createRemittance(
  deps: RemittanceDeps,
  input: { request: NewRemittanceRequest; principal: Principal; create?: CreateRequest },
  quotes: QuoteSource,
) {
  const { db, temporal, settings } = deps;
  const { request } = input;
  // A retry of an interrupted request finds the remittance its first attempt recorded and finishes it.
  const earlier = input.create ? await findRemittanceByRequestKey(db, input.create.requestKey) : undefined;
  const info = request.remittanceInfo;
  if (earlier && !BEFORE_START.includes(earlier.status)) return remittanceView(db, earlier.remittance_id);
  const valuedVnd = earlier ? 0 : await remittanceValueInVnd(request, quotes);
  // Read once: the state the record starts in and the requirement recorded with it follow one policy.
  const approvalPolicy = await deps.approvalPolicies.policyAt(new Date());
  const waitsForApprovers = requirementFor(approvalPolicy, 'remittance', valuedVnd).approvers > 0;
  const label = receiverLabel(request.requestType, request.receiver);
  // The record, every gateway orderId it will send and its approval (within the day's caps), in one
  // transaction; an id drawn whose orderIds another object holds is drawn again.
  const remittanceId = earlier
    ? earlier.remittance_id
    : await reservingOrderIds(() =>
        withFreshId(newRemittanceId, async (id) => {
          const orderIds = remittanceOrderIds(id);
          await insertRemittance(
            db,
            {
              remittance_id: id,
              order_id: orderIds.create,
              workflow_id: remittanceWorkflowId(id),
              // Held before its first step when the policy asks for approvers.
              status: waitsForApprovers ? 'awaiting_approval' : 'accepted',
              request_type: request.requestType,
              auto_capture: request.autoCapture,
              base_currency: request.baseCurrency,
              foreign_amount: request.foreignAmount,
              requested_amount: request.amount ?? null,
              receiver_label: label,
              receiver_details: { ...request.receiver },
              remittance_info: {
                ...info,
                sourceCurrency: info.sourceCurrency ?? request.baseCurrency,
                sourceAmount: info.sourceAmount ?? request.foreignAmount,
              },
              reason: info.reason,
              order_info: request.orderInfo ?? `Remittance ${id}`,
              created_by_key: input.principal.keyId,
              created_by: input.principal.name,
              request_key: input.create?.requestKey ?? null,
            },
            [orderIds.create, orderIds.verify, orderIds.buy],
            (trx) =>
              requestApprovalIn(trx, approvalPolicy, {
                kind: 'remittance',
                objectId: id,
                amount: valuedVnd,
                receiverLabel: label,
                description:
                  `${request.foreignAmount} ${request.baseCurrency} (${info.reason}` +
                  `${request.amount === undefined ? '' : `, ${request.amount} VND to send`}): ` +
                  (request.orderInfo ?? `Remittance ${id}`),
                principal: input.principal,
                field: request.amount === undefined ? 'body.foreignAmount' : 'body.amount',
              }),
          );
        }),
      );
  // The workflow's approval and ceiling are read back from the records, so a resumed create starts what
  // the first attempt recorded.
  const approval = await findApproval(db, approvalIdOf('remittance', remittanceId));

  const workflowInput: RemittanceInput = {
    remittanceId,
    requestType: request.requestType,
    baseCurrency: request.baseCurrency,
    foreignAmount: request.foreignAmount,
    ...(request.amount === undefined ? {} : { amount: request.amount }),
    autoCapture: request.autoCapture,
    timing: settings.timing,
    ...(approval ? { valuedVnd: Number(approval.amount) } : {}),
    ...(approval?.required_approvers
      ? { approval: await approvalRequestOf(db, 'remittance', remittanceId) }
      : {}),
  };
  try {
    await startOnce(() =>
      startWorkflow(temporal, 'remittance', {
        taskQueue: settings.taskQueue,
        workflowId: remittanceWorkflowId(remittanceId),
        args: [workflowInput],
        // A remittance id is used once: no second workflow can ever buy or send for it.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `Remittance ${remittanceId}: ${request.foreignAmount} ${request.baseCurrency} by ${request.requestType}`,
        typedSearchAttributes: [{ key: payrunOrderId, value: remittanceOrderIds(remittanceId).create }],
      }),
    );
  } catch (error) {
    // With an Idempotency-Key the retry starts it. Without one, it is marked failed (nothing was bought)
    // only when Temporal is sure nothing started: a start it persisted before failing to answer runs on.
    if (input.create) throw workflowNotStarted(`Remittance ${remittanceId}`);
    if (await certainlyNotStarted(temporal, remittanceWorkflowId(remittanceId))) {
      // Its approval no longer waits nor counts against the day's caps.
      await expireApproval(db, {
        approvalId: approvalIdOf('remittance', remittanceId),
        reason: 'The workflow could not be started; nothing was bought.',
      });
      await updateRemittance(
        db,
        remittanceId,
        {
          status: 'failed',
          status_reason: 'The workflow could not be started; nothing was bought.',
          completed_at: new Date(),
        },
        canMoveRemittance,
      );
    }
    throw error;
  }
  return remittanceView(db, remittanceId);
}

const num = (value: string | null) => (value === null ? null : Number(value));

function summary(row: RemittanceRow) {
  return {
    remittanceId: row.remittance_id,
    status: row.status,
    statusReason: row.status_reason,
    requestType: row.request_type,
    autoCapture: row.auto_capture,
    receiver: row.receiver_label,
    reason: row.reason,
    baseCurrency: row.base_currency,
    foreignAmount: Number(row.foreign_amount),
    rate: num(row.rate_used),
    exchangeAmount: num(row.exchange_amount),
    amountSent: num(row.amount_sent),
    needsAttention: row.attention_reason,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    workflowId: row.workflow_id,
  };
}

/** One remittance: state, the rate used and every quote, the amounts, and the gateway's result. */
export async function remittanceView(db: Db, remittanceId: string) {
  const row = await getRemittance(db, remittanceId);
  if (!row) throw notFound(`Remittance ${remittanceId}`);
  const quotes = await quotesOf(db, remittanceId);
  return {
    ...summary(row),
    orderId: row.order_id,
    requestedAmount: num(row.requested_amount),
    rateUsed:
      row.rate_used === null
        ? null
        : {
            rate: Number(row.rate_used),
            quoteSeq: row.quote_seq,
            quotedAt: row.quoted_at,
            boughtAt: row.bought_at,
          },
    quotes: quotes.map((quote) => ({
      seq: quote.seq,
      rate: Number(quote.rate),
      quotedAt: quote.quoted_at,
      used: quote.seq === row.quote_seq,
    })),
    result:
      row.result_code === null
        ? null
        : {
            resultCode: row.result_code,
            message: row.result_message,
            transId: row.trans_id,
            source: row.result_source,
          },
  };
}

export async function listRemittanceSummaries(db: Db, filter: ListFilter) {
  const page = await listRemittances(db, filter);
  return { rows: page.rows.map(summary), nextOffset: page.nextOffset };
}
