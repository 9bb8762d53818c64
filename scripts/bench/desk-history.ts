/**
 * What a desk (the disbursement desk, the payment desk) and the items it handed over wrote to Temporal: the desk's
 * history for the whole run, and one handed-over item's own, so a run's cost per item reads apart from the machine.
 */
import type { BenchStack } from './harness';

export interface DeskItems {
  table: 'disbursements' | 'payments';
  idColumn: 'disbursement_id' | 'payment_id';
  /** One item, as the lines name it. */
  noun: string;
}

const activityList = (history: { activities: Record<string, number> }) =>
  Object.entries(history.activities)
    .map(([name, times]) => `${name} ×${times}`)
    .join(', ');

export async function deskHistoryLines(
  stack: BenchStack,
  items: DeskItems,
  ids: string[],
): Promise<string[]> {
  const rows = (await stack
    .db(items.table)
    .whereIn(items.idColumn, ids)
    .select('desk_id', 'workflow_id')) as Array<{
    desk_id: string | null;
    workflow_id: string;
  }>;
  const atDesk = rows.filter((row) => row.desk_id);
  const lines: string[] = [];
  for (const desk of new Set(atDesk.map((row) => row.desk_id!))) {
    const history = await stack.history(desk);
    lines.push(
      `  the desk's history (${desk}, its current run): ${history.events} events, ${history.workflowTasks} workflow tasks, activities: ${activityList(history)}; ${atDesk.length} of the ${ids.length} ${items.noun}s held there`,
    );
  }
  const own = rows.find((row) => !row.desk_id);
  if (own) {
    const history = await stack.history(own.workflow_id);
    lines.push(
      `  one ${items.noun}'s own history (${rows.length - atDesk.length} had one): ${history.events} events, ${history.workflowTasks} workflow tasks, activities: ${activityList(history)}`,
    );
  }
  return lines;
}
