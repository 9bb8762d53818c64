/** The stack check's one activity: the row that shows the whole stack ran a workflow end to end. */
export interface StackCheckRecord {
  checkId: string;
  workflowId: string;
  startedAt: string;
  finishedAt?: string;
}

export interface StackCheckActivities {
  recordStackCheck(record: StackCheckRecord): Promise<void>;
}
