/**
 * Notices from the subscription workflow. A notice never holds up billing and never fails it: the
 * activity retries the mail server NOTICE_ATTEMPTS times, then records the notice failed (an operator is
 * paged by subscription.notice_failed), and anything else it throws is swallowed here.
 */
import { proxyActivities } from '@temporalio/workflow';
import {
  NOTICE_ATTEMPTS,
  noticeKey,
  type NoticeData,
  type NoticeKind,
  type SubscriptionActivities,
} from '../../contracts/subscriptions';

/** The notice activity's proxy, shared with the workflow that sends notices other flows ask for. */
export const notices = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '30 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    maximumAttempts: NOTICE_ATTEMPTS,
  },
});

/** Sends one notice; `occasion` makes its key, so a replay or a retried activity never sends it twice. */
export async function tellSubscriber(
  subscriptionId: string,
  kind: NoticeKind,
  occasion: string,
  data: NoticeData,
): Promise<void> {
  try {
    await notices.sendSubscriptionNotice({
      subscriptionId,
      kind,
      noticeKey: noticeKey(subscriptionId, kind, occasion),
      data,
    });
  } catch {
    // Recorded by the activity where it could be; billing goes on either way.
  }
}
