/**
 * One notice another flow asked for (event subscription.notice_requested, e.g. a price change): sent by the
 * same activity as the subscription's own notices, so it goes out at most once per notice key. Started by
 * the API's relay with the notice key in its id, so a request is never sent by two workflows.
 */
import type { NoticeOutcome, NoticeRequest } from '../../contracts/subscriptions';
import { notices } from './notices';

export async function subscriptionNotice(request: NoticeRequest): Promise<NoticeOutcome> {
  return notices.sendSubscriptionNotice(request);
}
