import type { StackCheckActivities } from '../../contracts/shared';
import type { Db } from '../../db/shared/knex';
import { recordStackCheck } from '../../db/shared/stack-checks';

export function createStackCheckActivities({ db }: { db: Db }): StackCheckActivities {
  return { recordStackCheck: (record) => recordStackCheck(db, record) };
}
