import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { startWorkflow } from '../../api/workflow-starts';
import { payrunKind, payrunOrderId } from '../../contracts/shared';

/** A client that records what it was asked to start. */
function recordingClient() {
  const started: { name: string; options: Record<string, unknown> }[] = [];
  const client = {
    workflow: {
      start: async (name: string, options: Record<string, unknown>) => {
        started.push({ name, options });
        return {};
      },
    },
  } as unknown as Client;
  return { client, started };
}

describe('startWorkflow', () => {
  it("sets PayrunKind from the type, before the caller's own search attributes", async () => {
    const { client, started } = recordingClient();
    await startWorkflow(client, 'savedMethodPayment', {
      taskQueue: 'q',
      workflowId: 'saved-method-payment/tp-1',
      args: [{} as never],
      typedSearchAttributes: [{ key: payrunOrderId, value: 'tp-1' }],
    });
    expect(started[0]!.options.typedSearchAttributes).toEqual([
      { key: payrunKind, value: 'saved-method-payment' },
      { key: payrunOrderId, value: 'tp-1' },
    ]);
  });

  it('refuses a workflow id whose prefix is not the type, and starts nothing', async () => {
    const { client, started } = recordingClient();
    await expect(() =>
      startWorkflow(client, 'savedMethodBinding', {
        taskQueue: 'q',
        workflowId: 'binding/bnd-1',
        args: [{} as never],
      }),
    ).toThrow('starts with "saved-method-binding/"');
    expect(started).toEqual([]);
  });
});
