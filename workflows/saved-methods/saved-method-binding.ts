import { allHandlersFinished, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { gatewayOf, recordsOf } from '../shared/activity-profiles';
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
  type SavedMethodActivities,
  type SavedMethodDeletionInput,
} from '../../contracts/saved-methods';
import { durationMs } from '../../contracts/shared';
import { waitForNotificationOrAsk } from '../shared/wait-or-ask';

const LINK_GRACE_MS = 60_000;

const records = recordsOf<SavedMethodActivities>();

/**
 * Binding a card (payWithCC), a domestic card (payWithATM) or a wallet (linkWallet): create the link →
 * the customer approves → IPN with callbackToken (or tokenization/cbQuery) → tokenization/bind → the
 * token is stored encrypted by the activity; the workflow only ever sees the saved method's id.
 */
export async function savedMethodBinding(input: BindingInput): Promise<BindingResult> {
  const run = openRun(input);
  answerQueriesAndNotices(run);
  const created = await run.gateway.createBinding({ bindingId: run.bindingId });
  if (!created.ok) {
    run.refusal = created;
    return finish(run, 'failed', { resultCode: created.resultCode, message: created.message });
  }
  const deadline = Date.now() + durationMs(input.timing.linkValidity) + LINK_GRACE_MS;
  run.status = bindingTransition(run.status, 'awaiting_customer');
  run.links = created.links;
  const answer = await customersAnswer(run, deadline);
  const decided = outcomeOf(answer.resultCode);
  if (decided === 'link_expired') return finish(run, 'expired', answer);
  if (decided !== 'succeeded') return finish(run, 'failed', answer);
  return bind(run);
}

// ---- one run and what its steps share

type Gateway = ReturnType<typeof gatewayOf<SavedMethodActivities>>;

interface Run {
  readonly bindingId: string;
  readonly timing: BindingInput['timing'];
  readonly gateway: Gateway;
  status: BindingStatus;
  links?: BindingLinks;
  refusal?: { resultCode?: number; message?: string };
  notified?: BindingNotice;
}

const openRun = ({ bindingId, timing }: BindingInput): Run => ({
  bindingId,
  timing,
  gateway: gatewayOf<SavedMethodActivities>(timing.gatewayAttemptTimeout),
  status: 'creating',
});

/** The last status, recorded, once every update in flight has answered its caller. */
async function finish(run: Run, next: BindingStatus, extra: Omit<BindingResult, 'status'> = {}) {
  run.status = bindingTransition(run.status, next);
  await records.recordBinding({
    bindingId: run.bindingId,
    status: next,
    resultCode: extra.resultCode,
    message: extra.message,
  });
  await condition(allHandlersFinished);
  return { status: next, ...extra };
}

// ---- what callers ask and tell

function answerQueriesAndNotices(run: Run) {
  setHandler(bindingStatusQuery, () => run.status);
  setHandler(bindingResultSignal, (result) => {
    // "Waiting" is not an outcome; the first final word wins.
    if (!isUndecided(outcomeOf(result.resultCode))) run.notified ??= result;
  });
  setHandler(bindingLinksUpdate, async () => {
    await condition(() => run.links !== undefined || run.refusal !== undefined);
    if (run.links) return run.links;
    throw ApplicationFailure.nonRetryable(
      run.refusal?.message ?? 'The gateway refused the binding.',
      BINDING_REFUSED,
      { resultCode: run.refusal?.resultCode },
    );
  });
}

// ---- the customer's answer, and the token

/** IPN or poll: wait for the notification; on silence ask cbQuery, until the link is past its validity. */
async function customersAnswer(run: Run, deadline: number) {
  const heard = await waitForNotificationOrAsk(
    () => run.notified,
    (attempt) => queryCallback(run, attempt),
    { firstWait: run.timing.callbackWait, giveUpAt: deadline },
  );
  return (
    heard.decided ?? {
      resultCode: codeOf('link_expired'),
      message: 'The customer did not use the link in time.',
    }
  );
}

/** One tokenization/cbQuery; an answer that proves nothing about this binding (a refused query) is no outcome. */
async function queryCallback(run: Run, attempt: number) {
  const asked = await run.gateway.queryBindingCallback({ bindingId: run.bindingId, attempt });
  return ('known' in asked && asked.known === false) || isUndecided(outcomeOf(asked.resultCode))
    ? undefined
    : { resultCode: asked.resultCode, message: asked.message };
}

/** The customer approved: tokenization/bind stores the token, and the method is saved. */
async function bind(run: Run): Promise<BindingResult> {
  run.status = bindingTransition(run.status, 'binding');
  await records.recordBinding({ bindingId: run.bindingId, status: run.status });
  const bound = await run.gateway.exchangeBindingToken({ bindingId: run.bindingId });
  if (!bound.ok) return finish(run, 'failed', { resultCode: bound.resultCode, message: bound.message });
  return finish(run, 'active', {
    methodId: bound.methodId,
    resultCode: codeOf('succeeded'),
    message: 'Saved',
  });
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
