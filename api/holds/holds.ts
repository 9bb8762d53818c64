/**
 * The hold switch's stories: two admins hold one kind of outgoing money, two release it at a rate (the
 * release workflow carries the API's signed proof to every held item), and anyone may see what is held.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Db } from '../../db/shared/knex';
import {
  HOLD_RELEASE_ACTION,
  holdProofSubject,
  holdReleaseWorkflowId,
  type HoldKind,
} from '../../contracts/holds';
import {
  holdsOverview,
  proposeOrConfirmHold,
  proposeOrConfirmRelease,
  withdrawProposal,
  type HoldChange,
  type HoldRow,
} from '../../db/holds/holds';
import type { Principal } from '../auth/roles';
import type { SignDecision } from '../http/decision-signer';
import { ApiError } from '../http/errors';
import { startWorkflow } from '../workflow-starts';

export interface HoldDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  /** Signs each release: a held workflow resumes on no signal without the API's proof. */
  signDecision: SignDecision;
}

const personOf = (principal: Principal) => ({ keyId: principal.keyId, name: principal.name });

/** Every kind, always, with what is held under it. */
export async function holdsView(db: Db) {
  return { holds: await holdsOverview(db) };
}

async function viewOf(db: Db, kind: HoldKind) {
  return (await holdsOverview(db)).find((entry) => entry.kind === kind)!;
}

export async function hold(deps: HoldDeps, input: { kind: HoldKind; reason: string; principal: Principal }) {
  const change = await proposeOrConfirmHold(deps.db, {
    kind: input.kind,
    reason: input.reason,
    by: personOf(input.principal),
  });
  settledOrThrow(change, input.kind, 'hold');
  return viewOf(deps.db, input.kind);
}

export async function release(
  deps: HoldDeps,
  input: { kind: HoldKind; ratePerMinute?: number; principal: Principal },
) {
  const by = personOf(input.principal);
  const change = await proposeOrConfirmRelease(
    deps.db,
    { kind: input.kind, ratePerMinute: input.ratePerMinute, by },
    (row) => startRelease(deps, row, by),
  );
  settledOrThrow(change, input.kind, 'release');
  return viewOf(deps.db, input.kind);
}

export async function withdraw(deps: HoldDeps, input: { kind: HoldKind; principal: Principal }) {
  settledOrThrow(
    await withdrawProposal(deps.db, { kind: input.kind, by: personOf(input.principal) }),
    input.kind,
    'withdraw',
  );
  return viewOf(deps.db, input.kind);
}

/**
 * Started inside the transaction that records `releasing`: a hold is releasing only with its workflow.
 * A start that already happened (the transaction retried after its commit was lost) is the same release.
 */
async function startRelease(deps: HoldDeps, row: HoldRow, by: { keyId: string; name: string }) {
  const proof = deps.signDecision({
    subject: holdProofSubject(row.hold_id),
    action: HOLD_RELEASE_ACTION,
    by,
  });
  try {
    await startWorkflow(deps.temporal, 'holdRelease', {
      taskQueue: deps.taskQueue,
      workflowId: holdReleaseWorkflowId(row.hold_id),
      args: [{ holdId: row.hold_id, kind: row.kind, ratePerMinute: row.release_rate_per_minute!, by, proof }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `Release of ${row.kind} hold ${row.hold_id} at ${row.release_rate_per_minute} a minute`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

const ACTION_WORDS = {
  hold: 'hold (proposed, then confirmed by another admin) when it is off or proposed',
  release: 'release (proposed, then confirmed by another admin) when it is held or release_proposed',
  withdraw: 'withdraw a proposal when it is proposed or release_proposed',
} as const;

function settledOrThrow(change: HoldChange, kind: HoldKind, action: keyof typeof ACTION_WORDS) {
  if ('row' in change) return;
  switch (change.refused) {
    case 'same_person':
      throw new ApiError(
        'self_approval',
        `${change.proposedBy} proposed this and cannot confirm it, with any of their keys; another admin must.`,
      );
    case 'rate_mismatch':
      throw new ApiError(
        'hold_release_mismatch',
        `The release was proposed at ${change.proposedRate} a minute; confirm that rate (or omit it), or withdraw and propose another.`,
        {
          problems: [
            {
              field: 'body.ratePerMinute',
              rule: 'equals the proposed rate',
              message: `must be ${change.proposedRate} (or absent)`,
            },
          ],
        },
      );
    case 'state':
      throw new ApiError(
        'hold_state',
        `The ${kind} hold is ${change.status}; one may ${ACTION_WORDS[action]}.`,
      );
  }
}
