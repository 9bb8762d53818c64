/**
 * The fast layer's global setup (`npm run test:workflows`): only what workflows with fake activities
 * need, the time-skipping server's binary and the workflow bundle built once. No database and no dev
 * server, which `global-setup.ts` starts for the whole suite.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { resolveTestServer } from '../../scripts/temporal-binaries';
import { workflowBundleOptions } from '../../workers/worker';

export default async function setup(project: TestProject) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-workflows-'));
  const [testServer, { code }] = await Promise.all([
    resolveTestServer({ build: true, log: (line) => console.log(`[setup] ${line}`) }),
    bundleWorkflowCode({ ...workflowBundleOptions, logger: new DefaultLogger('WARN') }),
  ]);
  const workflowBundlePath = path.join(scratch, 'workflow-bundle.js');
  fs.writeFileSync(workflowBundlePath, code);
  project.provide('testServerExecutable', testServer);
  project.provide('workflowBundlePath', workflowBundlePath);
  return async () => fs.rmSync(scratch, { recursive: true, force: true });
}
