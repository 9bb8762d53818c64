import { allHandlersFinished, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { gatewayOf, recordsOf } from '../shared/activity-profiles';
import type { SavedMethodActivities } from '../../contracts/saved-methods';
import { codeOf, isUndecided, outcomeOf } from '../../gateway/result-codes';
import {
  BINDING_REFUSED,
  bindingLinksUpdate,
  bindingResultSignal,
  bindingStatusQuery,
  bindingTransition,
  type BindingInput,
  type BindingLinks,
  type BindingNotice,
  type BindingResult,
  type BindingStatus,
  type SavedMethodDeletionInput,
} from '../../contracts/saved-methods';
import { durationMs } from '../../contracts/shared';
import { waitForNotificationOrAsk } from '../shared/wait-or-ask';

const LINK_GRACE_MS = 60_000;

/**
 * Binding a card (payWithCC), a domestic card (payWithATM) or a wallet (linkWallet): create the link →
 * the customer approves → IPN with callbackToken (or tokenization/cbQuery) → tokenization/bind → the
 * token is stored encrypted by the activity; the workflow only ever sees the saved method's id.
 */
export async function savedMethodBinding(input: BindingInput): Promise<BindingResult> {
  const { bindingId, timing } = input;
  const records = recordsOf<SavedMethodActivities>();
  const gateway = gatewayOf<SavedMethodActivities>(timing.gatewayAttemptTimeout);

  let status: BindingStatus = 'creating';
  let links: BindingLinks | undefined = undefined;
  let refusal: { resultCode?: number; message?: string } | undefined;
  let notified: BindingNotice | undefined;
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
      BINDING_REFUSED,
      { resultCode: refusal?.resultCode },
    );
  });

  const finish = async (next: BindingStatus, extra: Omit<BindingResult, 'status'> = {}) => {
    status = bindingTransition(status, next);
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
  status = bindingTransition(status, 'awaiting_customer');
  links = created.links;

  // IPN or poll: wait for the notification; on silence ask cbQuery, until the link is past its validity.
  const heard = await waitForNotificationOrAsk(
    () => notified,
    async (attempt) => {
      const asked = await gateway.queryBindingCallback({ bindingId, attempt });
      // An answer that proves nothing about this binding (a refused query) is no outcome.
      return ('known' in asked && asked.known === false) || isUndecided(outcomeOf(asked.resultCode))
        ? undefined
        : { resultCode: asked.resultCode, message: asked.message };
    },
    { firstWait: timing.callbackWait, giveUpAt: deadline },
  );
  const final = heard.decided ?? {
    resultCode: codeOf('link_expired'),
    message: 'The customer did not use the link in time.',
  };
  const decided = outcomeOf(final.resultCode);
  if (decided === 'link_expired') return finish('expired', final);
  if (decided !== 'succeeded') return finish('failed', final);

  status = bindingTransition(status, 'binding');
  await records.recordBinding({ bindingId, status });
  const bound = await gateway.exchangeBindingToken({ bindingId });
  if (!bound.ok) return finish('failed', { resultCode: bound.resultCode, message: bound.message });
  return finish('active', { methodId: bound.methodId, resultCode: codeOf('succeeded'), message: 'Saved' });
}

/** Deleting a saved method: tokenization/delete, then the method is never used again. */
export async function savedMethodDeletion(
  input: SavedMethodDeletionInput,
): Promise<{ status: 'deleted'; resultCode: number; message: string }> {
  const gateway = gatewayOf<SavedMethodActivities>(input.gatewayAttemptTimeout, {
    maxRetryInterval: '1 minute',
  });
  return gateway.deleteSavedMethodAtGateway({ methodId: input.methodId });
}
