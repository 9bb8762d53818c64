/**
 * One notice another flow asked for (event subscription.notice_requested, e.g. a price change): sent by the
 * same activity as the subscription's own notices, so it goes out at most once per notice key. Started by
 * the API's relay with the notice key in its id, so a request is never sent by two workflows.
 */
import { proxyActivities } from '@temporalio/workflow';
import {
  NOTICE_ATTEMPTS,
  type NoticeOutcome,
  type NoticeRequest,
  type SubscriptionActivities,
} from '../../contracts/subscriptions';

const notices = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '30 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    maximumAttempts: NOTICE_ATTEMPTS,
  },
});

export async function subscriptionNotice(request: NoticeRequest): Promise<NoticeOutcome> {
  return notices.sendSubscriptionNotice(request);
}
