/**
 * Activities are plain functions that take their dependencies first (`disburse(deps, input)`), so each can be
 * read, tested and called on its own. The worker registers them bound to one set of dependencies, under
 * their own names: a name is the activity type recorded in every workflow history, so it never changes.
 */
type Activity<D> = (deps: D, ...args: never[]) => Promise<unknown>;

type Bound<D, F extends Record<string, Activity<D>>> = {
  [K in keyof F]: F[K] extends (deps: D, ...args: infer A) => infer R ? (...args: A) => R : never;
};

export function bindActivities<D, F extends Record<string, Activity<D>>>(
  deps: D,
  activities: F,
): Bound<D, F> {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      (...args: never[]) => activity(deps, ...args),
    ]),
  ) as Bound<D, F>;
}
