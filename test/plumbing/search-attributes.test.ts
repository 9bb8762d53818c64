/** payrun's search attributes are registered once in a namespace that lacks them, and left alone after. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import Long from 'long';
import { Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { ensureSearchAttributes } from '../../scripts/search-attributes';
import { freshId } from '../support/ids';

let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: inject('devServerAddress') });
});
afterAll(async () => {
  await connection.close();
});

it('adds the missing search attributes to a namespace, then finds nothing to add', async () => {
  const namespace = freshId('sa-', 8);
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86_400) },
  });
  expect((await ensureSearchAttributes(connection, namespace)).sort()).toEqual([
    'PayrunCustomer',
    'PayrunKind',
    'PayrunOrderId',
    'PayrunRunId',
  ]);
  expect(await ensureSearchAttributes(connection, namespace)).toEqual([]);
});
