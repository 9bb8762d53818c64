/**
 * The workflow bundle's modules are evaluated again for every new workflow (the SDK isolates each one's
 * module state), so what `workflows/index.ts` reaches is paid on every workflow start. The gateway's
 * operation table builds every operation's field specs when evaluated: a cluster profile of 600
 * disbursements found it was 2.4 s of the workflow thread's 10.3 s busy (docs/performance.md). Workflows
 * use the result codes and limits (`gateway/classify-result.ts` holds what needs the table), never the table.
 */
import path from 'node:path';
import { parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

async function reachableFrom(entry: string): Promise<string[]> {
  // transform: types are erased as the bundler erases them, so a type-only import is no dependency.
  const tree = await parseDependencyTree(entry, {
    context: root,
    transform: true,
    skipDynamicImports: false,
  });
  return Object.keys(tree).map((file) => path.relative(root, path.resolve(root, file)));
}

describe('the workflow bundle', () => {
  it('does not reach the gateway operation table, whose evaluation every new workflow would pay', async () => {
    const files = await reachableFrom('workflows/index.ts');
    expect(files).toContain('workflows/payouts/disbursement.ts');
    expect(files.filter((file) => file.startsWith('gateway/operations/'))).toEqual([]);
  });
});
