import type { Db } from '../db/knex';
import { createStackCheckActivities } from './stack-check';

export interface ActivityDependencies {
  db: Db;
}

/** All activities, built from their dependencies so tests can hand in their own. */
export function createActivities(deps: ActivityDependencies) {
  return {
    ...createStackCheckActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
