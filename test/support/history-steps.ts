/**
 * Where a workflow's steps ran: each activity its history started, in order, as a local activity (a marker
 * in the workflow task that decided it) or a queued one.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { activityTypeOf, isLocalActivity } from '../../platform/local-activity-markers';

export interface Step {
  type: string;
  where: 'local' | 'queued';
}

export async function stepsOf(handle: Pick<WorkflowHandle, 'fetchHistory'>): Promise<Step[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((event): Step[] => {
    const type = activityTypeOf(event);
    return type ? [{ type, where: isLocalActivity(event) ? 'local' : 'queued' }] : [];
  });
}

/** Where each run of one activity type ran, in order. */
export const placesOf = async (handle: Pick<WorkflowHandle, 'fetchHistory'>, type: string) =>
  (await stepsOf(handle)).filter((step) => step.type === type).map((step) => step.where);
