/**
 * What a new workflow costs the worker's workflow thread before its code runs. The SDK gives every workflow
 * its own copy of the bundle's modules (their module state is the workflow's), so what `workflows/index.ts`
 * reaches is paid on every workflow start, except the modules `workers/worker.ts` preloads, which the thread
 * evaluates once and every workflow shares.
 *
 * - The gateway's operation table builds every operation's field specs when evaluated: a cluster profile of
 *   600 disbursements found it was 2.4 s of the workflow thread's 10.3 s busy (docs/performance.md).
 *   Workflows use the result codes and limits (`gateway/classify-result.ts` holds what needs the table).
 * - The contracts were two thirds of the modules left (1.3 ms per new workflow): they are preloaded, so they
 *   must hold no state one workflow could leave for the next.
 */
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { parseDependencyTree } from 'dpdm';
import ts from 'typescript';
import { describe, expect, inject, it } from 'vitest';
import { PRELOADED_WORKFLOW_MODULES } from '../../workers/worker';

const root = path.resolve(__dirname, '../..');

async function reachableFrom(entries: string[]): Promise<string[]> {
  // transform: types are erased as the bundler erases them, so a type-only import is no dependency.
  const tree = await parseDependencyTree(entries, {
    context: root,
    transform: true,
    skipDynamicImports: false,
  });
  return Object.keys(tree).map((file) => path.relative(root, path.resolve(root, file)));
}

/**
 * The bundle's modules that one new workflow evaluates: the bundle evaluated as the SDK's reusable V8 context
 * does (its module cache shared until a workflow exists, then the workflow's own), then the workflows
 * imported for a workflow. Answers webpack's module ids, which are paths from the project root.
 */
function modulesEvaluatedPerWorkflow(bundleCode: string): string[] {
  const context = vm.createContext({});
  const shared = new Map<PropertyKey, unknown>();
  // The workflow's own cache exists once a workflow does, as the SDK's activator holds it.
  const workflow: { modules?: Map<PropertyKey, unknown> } = {};
  Object.defineProperty(context, '__webpack_module_cache__', {
    value: new Proxy(
      {},
      {
        get: (_, id) => shared.get(id) ?? workflow.modules?.get(id),
        set: (_, id, value) => {
          (workflow.modules ?? shared).set(id, value);
          return true;
        },
      },
    ),
  });
  vm.runInContext(bundleCode, context);
  vm.runInContext('__TEMPORAL__.preloadModules?.()', context);
  workflow.modules = new Map();
  vm.runInContext('__TEMPORAL__.importWorkflows()', context);
  return [...workflow.modules.keys()].map((id) => String(id).replace(/^\.\//, ''));
}

const COLLECTION = /^(Map|Set|WeakMap|WeakSet)$/;
const MUTATORS = new Set(['set', 'add', 'delete', 'clear']);

/** The names a module mutates through a collection method (`name.set(…)`, `name.add(…)`, …). */
function mutatedIn(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      MUTATORS.has(node.expression.name.text)
    )
      names.add(node.expression.expression.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/**
 * Top-level declarations of a module that could carry state from one workflow to the next: a binding that can
 * be reassigned, and a collection that is exported (the SDK's freeze does not reach into a Map or a Set) or
 * changed after it is built. A lookup table built once and only read is no state.
 */
function moduleStateIn(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(path.join(root, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const mutated = mutatedIn(source);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const exported = statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      if (!(statement.declarationList.flags & ts.NodeFlags.Const))
        found.push(`${file}: ${name} is reassignable`);
      const init = declaration.initializer;
      if (!init || !ts.isNewExpression(init) || !COLLECTION.test(init.expression.getText(source))) continue;
      if (exported) found.push(`${file}: ${name} is an exported ${init.expression.getText(source)}`);
      if (mutated.has(name)) found.push(`${file}: ${name} is changed after it is built`);
    }
  }
  return found;
}

describe('the workflow bundle', () => {
  it('does not reach the gateway operation table, whose evaluation every new workflow would pay', async () => {
    const files = await reachableFrom(['workflows/index.ts']);
    expect(files).toContain('workflows/payouts/disbursement.ts');
    expect(files.filter((file) => file.startsWith('gateway/operations/'))).toEqual([]);
  });

  it("evaluates only the workflows' own modules for a new workflow: the contracts and the SDK once per thread", () => {
    const perWorkflow = modulesEvaluatedPerWorkflow(fs.readFileSync(inject('workflowBundlePath'), 'utf8'));
    expect(perWorkflow).toContain('workflows/payouts/disbursement.ts');
    expect(perWorkflow.filter((id) => !id.startsWith('workflows/'))).toEqual([]);
  });

  it('preloads only modules that hold no state a workflow could leave for the next', async () => {
    const preloaded = (
      await reachableFrom(PRELOADED_WORKFLOW_MODULES.map((file) => path.relative(root, file)))
    ).filter((file) => !file.startsWith('node_modules/'));
    expect(preloaded).toContain('contracts/payouts/disbursements.ts');
    expect(preloaded.flatMap(moduleStateIn)).toEqual([]);
  });
});
