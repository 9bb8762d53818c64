/**
 * The least a workflow per item can be: started, one workflow task, a timer, then waiting (as a subscription
 * waits for its billing run). Bundled only by the `workflow-floor` benchmark's own worker, never by payrun's.
 */
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

export const wakeSignal = defineSignal('wake');

export async function waitingWorkflow(): Promise<void> {
  let woken = false;
  setHandler(wakeSignal, () => void (woken = true));
  await condition(() => woken, '1 hour');
}
