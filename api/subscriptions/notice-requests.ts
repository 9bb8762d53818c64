/**
 * Notices other flows ask for (event subscription.notice_requested): each request with a known kind is
 * handed to a `subscriptionNotice` workflow whose id is the notice key, so however many API processes
 * sweep, and however often, a request is sent by one workflow, once. A kind with no template is recorded
 * skipped on the subscription's timeline.
 */
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { isNoticeKind, subscriptionNoticeWorkflowId } from '../../contracts/subscriptions';
import type { Db } from '../../db/shared/knex';
import { skipUnknownNoticeRequest, unansweredNoticeRequests } from '../../db/subscriptions/notices';
import type { Logger } from '../../platform/logger';
import { startWorkflow } from '../workflow-starts';

export interface NoticeRequestDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  logger?: Logger;
}

/** At most this many requests per sweep: a backlog drains over several sweeps. */
const SWEEP_LIMIT = 200;

export async function sweepNoticeRequests(deps: NoticeRequestDeps): Promise<number> {
  let started = 0;
  for (const { snapshot } of await unansweredNoticeRequests(deps.db, SWEEP_LIMIT)) {
    if (!isNoticeKind(snapshot.kind)) {
      await skipUnknownNoticeRequest(deps.db, snapshot);
      continue;
    }
    try {
      await startWorkflow(deps.temporal, 'subscriptionNotice', {
        taskQueue: deps.taskQueue,
        workflowId: subscriptionNoticeWorkflowId(snapshot.noticeKey),
        args: [{ ...snapshot, kind: snapshot.kind }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
      started += 1;
    } catch (error) {
      // Started by an earlier sweep or another process: its activity writes the notice's row soon.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return started;
}

export function createNoticeRequestRelay(deps: NoticeRequestDeps & { intervalMs: number }) {
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  return {
    start() {
      timer ??= setInterval(() => {
        running = sweepNoticeRequests(deps).catch((error: unknown) =>
          deps.logger?.warn({ err: error }, 'Sweeping notice requests failed; the next sweep tries again'),
        );
      }, deps.intervalMs);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
