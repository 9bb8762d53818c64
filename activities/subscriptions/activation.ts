/**
 * The activation in one local activity (patch `activation-in-one-step`, workflows/subscriptions/subscription.ts):
 * subscription/create, then the writes the workflow made after it in local activities of their own. Each write
 * is the one those activities made, so an attempt run again (its workflow task lost with the worker) writes the
 * same thing again, which changes nothing.
 */
import type { SubscriptionActivities } from '../../contracts/subscriptions';
import { outcomeOf } from '../../gateway/result-codes';
import { bindActivities } from '../shared/bind';
import { handOverCycle } from './billing-runs';
import {
  activateSubscription,
  recordSubscription,
  recordSubscriptionCharge,
  type SubscriptionActivityDependencies,
} from './subscriptions';

type Deps = SubscriptionActivityDependencies;

export const createActivationActivities = (deps: Deps): Pick<SubscriptionActivities, 'activateAndRecord'> =>
  bindActivities(deps, { activateAndRecord });

export async function activateAndRecord(
  deps: Deps,
  input: Parameters<SubscriptionActivities['activateAndRecord']>[0],
): ReturnType<SubscriptionActivities['activateAndRecord']> {
  const answer = await activateSubscription(deps, {
    subscriptionId: input.subscriptionId,
    ...(input.callbackToken !== undefined && { callbackToken: input.callbackToken }),
  });
  if (outcomeOf(answer.resultCode) !== 'succeeded') return answer;
  if (input.authorizationCharge) await recordSubscriptionCharge(deps, input.authorizationCharge);
  await recordSubscription(deps, input.activation);
  if (input.handOver) await handOverCycle(deps, input.handOver);
  return answer;
}
