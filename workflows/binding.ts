import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { TokenActivities } from '../activities/tokens';
import { codeOf, isUndecided, outcomeOf } from '../gateway/result-codes';
import { durationMs } from './durations';

export type SavedMethodKind = 'card' | 'domestic' | 'wallet';
export type BindingStatus = 'creating' | 'awaiting_customer' | 'binding' | 'active' | 'failed' | 'expired';

export const bindingWorkflowId = (bindingId: string) => `binding/${bindingId}`;
export const deleteMethodWorkflowId = (methodId: string) => `saved-method-delete/${methodId}`;

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

/** The gateway's list-B notification for the binding order. The callbackToken stays out of history. */
export const bindingResultSignal = defineSignal<[{ resultCode: number; message: string }]>('bindingResult');
/** Answers once the gateway created the link: what the API hands the customer. */
export const bindingLinksUpdate = defineUpdate<BindingLinks, []>('bindingLinks');
export const bindingStatusQuery = defineQuery<BindingStatus>('bindingStatus');

const LINK_GRACE_MS = 60_000;

/**
 * Binding a card (payWithCC), a domestic card (payWithATM) or a wallet (linkWallet): create the link →
 * the customer approves → IPN with callbackToken (or tokenization/cbQuery) → tokenization/bind → the
 * token is stored encrypted by the activity; the workflow only ever sees the saved method's id.
 */
export async function binding(input: BindingInput): Promise<BindingResult> {
  const { bindingId, timing } = input;
  const records = proxyActivities<TokenActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  const gateway = proxyActivities<TokenActivities>({
    startToCloseTimeout: timing.gatewayAttemptTimeout,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  });

  let status: BindingStatus = 'creating';
  let links: BindingLinks | undefined = undefined;
  let refusal: { resultCode?: number; message?: string } | undefined;
  let notified: { resultCode: number; message: string } | undefined;
  setHandler(bindingStatusQuery, () => status);
  setHandler(bindingResultSignal, (result) => {
    // "Waiting" is not an outcome; the first final word wins.
    if (!isUndecided(outcomeOf(result.resultCode))) notified ??= result;
  });
  setHandler(bindingLinksUpdate, async () => {
    await condition(() => links !== undefined || refusal !== undefined);
    if (links) return links;
    throw ApplicationFailure.nonRetryable(
      refusal?.message ?? 'The gateway refused the binding.',
      'binding_refused',
      { resultCode: refusal?.resultCode },
    );
  });

  const finish = async (next: BindingStatus, extra: Omit<BindingResult, 'status'> = {}) => {
    status = next;
    await records.recordBinding({
      bindingId,
      status: next,
      resultCode: extra.resultCode,
      message: extra.message,
    });
    await condition(allHandlersFinished);
    return { status: next, ...extra };
  };

  const created = await gateway.createBinding({ bindingId });
  if (!created.ok) {
    refusal = created;
    return finish('failed', { resultCode: created.resultCode, message: created.message });
  }
  const startedAt = Date.now();
  const deadline = startedAt + durationMs(timing.linkValidity) + LINK_GRACE_MS;
  status = 'awaiting_customer';
  links = created.links;

  // IPN or poll: wait for the notification; on silence ask cbQuery, until the link is past its validity.
  let outcome: { resultCode: number; message: string } | undefined;
  for (let attempt = 1; !outcome; attempt++) {
    const wait = Math.max(1, Math.min(durationMs(timing.callbackWait), deadline - Date.now()));
    if (await condition(() => notified !== undefined, wait)) {
      outcome = notified;
      break;
    }
    const asked = await gateway.queryBindingCallback({ bindingId, attempt });
    if (!isUndecided(outcomeOf(asked.resultCode)))
      outcome = { resultCode: asked.resultCode, message: asked.message };
    else if (Date.now() >= deadline)
      outcome = { resultCode: codeOf('link_expired'), message: 'The customer did not use the link in time.' };
  }
  const final = outcome!;
  const decided = outcomeOf(final.resultCode);
  if (decided === 'link_expired') return finish('expired', final);
  if (decided !== 'succeeded') return finish('failed', final);

  status = 'binding';
  await records.recordBinding({ bindingId, status });
  const bound = await gateway.exchangeBindingToken({ bindingId });
  if (!bound.ok) return finish('failed', { resultCode: bound.resultCode, message: bound.message });
  return finish('active', { methodId: bound.methodId, resultCode: codeOf('succeeded'), message: 'Saved' });
}

/** Deleting a saved method: tokenization/delete, then the method is never used again. */
export async function deleteSavedMethod(input: {
  methodId: string;
  gatewayAttemptTimeout: Duration;
}): Promise<{ status: 'deleted'; resultCode: number; message: string }> {
  const gateway = proxyActivities<TokenActivities>({
    startToCloseTimeout: input.gatewayAttemptTimeout,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  return gateway.deleteSavedMethodAtGateway({ methodId: input.methodId });
}
