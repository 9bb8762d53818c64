/**
 * A local activity leaves no ActivityTaskScheduled event: the SDK records its result as a marker in the
 * completion of the workflow task that ran it. Benchmarks counting a history's activities and tests naming
 * a workflow's steps read its type here.
 */
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The marker name the SDK's core gives a local activity's result. */
export const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export const isLocalActivity = (event: HistoryEvent): boolean =>
  event.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER;

/**
 * The activity type of a local activity's marker (from its `data`, JSON the SDK's core writes, outside the
 * payload codec); undefined for any other event or a marker that does not say.
 */
export function localActivityName(event: HistoryEvent): string | undefined {
  if (!isLocalActivity(event)) return undefined;
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  try {
    const type = (JSON.parse(Buffer.from(data ?? []).toString('utf8')) as { activity_type?: unknown })
      .activity_type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The activity type an event started, queued (ActivityTaskScheduled) or local (its marker); undefined for any
 * other event. A step that moved into a workflow task is found the same way in older and newer histories.
 */
export const activityTypeOf = (event: HistoryEvent): string | undefined =>
  event.activityTaskScheduledEventAttributes?.activityType?.name ?? localActivityName(event);

/**
 * The result a local activity's marker carries (its `result` payloads, still encoded by the payload codec, as
 * an ActivityTaskCompleted event's are); undefined for any other event.
 */
export function localActivityResult(event: HistoryEvent): temporal.api.common.v1.IPayload[] | undefined {
  if (!isLocalActivity(event)) return undefined;
  return event.markerRecordedEventAttributes?.details?.result?.payloads ?? undefined;
}
