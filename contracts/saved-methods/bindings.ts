/**
 * What the binding workflow (saving a card, a domestic card or a wallet) shares with its callers:
 * identities, statuses and their transitions, inputs and results, the signal, update and query.
 * Pure code: the API, activities and db/ import it.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { SavedMethodFlow } from '../../gateway/limits';

export type SavedMethodKind = SavedMethodFlow;

export const savedMethodBindingWorkflowId = (bindingId: string) => `saved-method-binding/${bindingId}`;
export const savedMethodDeletionWorkflowId = (methodId: string) => `saved-method-deletion/${methodId}`;

/** The failure type of bindingLinks when the gateway refused the binding (its message and resultCode say why). */
export const BINDING_REFUSED = 'binding_refused';

/** creating → awaiting_customer → binding → active; failed or expired on the way. */
export type BindingStatus = 'creating' | 'awaiting_customer' | 'binding' | 'active' | 'failed' | 'expired';

const TRANSITIONS: Readonly<Record<BindingStatus, readonly BindingStatus[]>> = {
  creating: ['awaiting_customer', 'failed'],
  awaiting_customer: ['binding', 'failed', 'expired'],
  binding: ['active', 'failed'],
  active: [],
  failed: [],
  expired: [],
};

/** Whether a binding's record may go from `from` to `to` (records move forward only: db/ reads it). */
export const canMoveBinding = (from: string, to: string) =>
  from === to || (TRANSITIONS[from as BindingStatus]?.includes(to as BindingStatus) ?? false);

/** The next status, or an error naming the forbidden move. */
export function bindingTransition(from: BindingStatus, to: BindingStatus): BindingStatus {
  if (from !== to && !TRANSITIONS[from].includes(to))
    throw new Error(`A binding cannot go from ${from} to ${to}`);
  return to;
}

export interface BindingTiming {
  gatewayAttemptTimeout: Duration;
  /** How long to wait for the IPN before asking tokenization/cbQuery (and between queries). */
  callbackWait: Duration;
  /** The link's validity (document 2: 15 minutes by default, per merchant). */
  linkValidity: Duration;
}

export interface BindingInput {
  bindingId: string;
  timing: BindingTiming;
}

export interface BindingLinks {
  payUrl?: string;
  deeplink?: string;
  qrCodeUrl?: string;
  deeplinkMiniApp?: string;
}

export interface BindingResult {
  status: BindingStatus;
  methodId?: string;
  resultCode?: number;
  message?: string;
}

export interface SavedMethodDeletionInput {
  methodId: string;
  gatewayAttemptTimeout: Duration;
}

export interface BindingNotice {
  resultCode: number;
  message: string;
}

/** The gateway's list-B notification for the binding order. The callbackToken stays out of history. */
export const bindingResultSignal = defineSignal<[BindingNotice]>('bindingResult');
/** Answers once the gateway created the link: what the API hands the customer. */
export const bindingLinksUpdate = defineUpdate<BindingLinks, []>('bindingLinks');
export const bindingStatusQuery = defineQuery<BindingStatus>('bindingStatus');
