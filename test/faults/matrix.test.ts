/**
 * The fault matrix (issue 31): every gateway operation of the table × every flow that calls it × every fault
 * that applies to that kind of call, plus each flow's notification faults — generated from the flows'
 * declarations (cells.ts, flows.ts), run end to end on the dev server against the strict sandbox, each cell
 * asserting the gateway's ledger and payrun's record of its own object:
 *
 * - money moved at most once per business item (a foreign order that took the orderId is not counted);
 * - payrun's record says what the gateway says: succeeded only where the money moved, failed or nothing
 *   only where it did not; where payrun cannot know (a foreign order holds the orderId, a buy's answer is
 *   lost and the spec has no query for it) the record says needs_attention and nothing of its moved;
 * - where payrun can know, the record ends as the flow ends without a fault;
 * - the cell's fault really happened (its rule was used), so no cell passes by silence.
 *
 * All cells run at once (a flow whose fault cannot be scoped to its own object runs its cells in turn),
 * each on objects of its own. A receiver that dies after claiming a notification is, from outside, an API
 * whose signal never returns: the API's Temporal client hangs the signals of those cells' workflows, and
 * another API process's relay (the one production runs) delivers them once the claim's lease lapses.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { notificationRelay } from '../../api/app';
import type { NotificationRelay } from '../../api/ipn/relay';
import { apiSettingsFrom } from '../../api/settings';
import { createGatewayClient, operationNames, type OperationName } from '../../gateway';
import { generateSandboxKeyPair, type FaultRule } from '../../sandbox';
import { loadConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import * as workflows from '../../workflows';
import { authHeaders, callApi } from '../support/api';
import { useScratchDatabase } from '../support/database';
import {
  TEST_CUSTOMER_KEY_SECRET,
  TEST_DECISION_SIGNING_KEY,
  testApiSettings,
  testMerchant,
} from '../support/settings';
import { startStack, type Stack } from '../support/stack';
import { signalsNeverSettle } from '../support/notifications';
import { connectDevServer } from '../support/temporal';
import { cellsOf, type Cell } from './cells';
import { FLOWS, NOT_MONEY_FLOWS, type CellContext, type Key, type Observation } from './flows';

const CELLS = cellsOf(FLOWS);
/** `PAYRUN_MATRIX_FLOW=<name>`: run the cells of that flow only (the coverage tests still read them all). */
const ONLY = process.env.PAYRUN_MATRIX_FLOW;
const RUN = ONLY ? CELLS.filter((cell) => cell.flow === ONLY) : CELLS;
if (ONLY && !FLOWS.some((flow) => flow.name === ONLY))
  throw new Error(
    `PAYRUN_MATRIX_FLOW names no flow: "${ONLY}"; the flows are ${FLOWS.map((flow) => `"${flow.name}"`).join(', ')}`,
  );
/** Cells at once: the two cores, the dev server and the sandbox stay responsive (measured: docs/testing.md). */
const AT_ONCE = 24;
/** A cell that has not settled by then failed (the slowest path: a hang, then needs_attention). */
const CELL_DEADLINE_MS = 150_000;

describe('the matrix covers every operation and every flow', () => {
  it('every operation of the gateway table is called by a flow of the matrix', () => {
    const called = new Set(FLOWS.flatMap((flow) => Object.keys(flow.operations)));
    expect(operationNames.filter((operation) => !called.has(operation))).toEqual([]);
  });

  it('every workflow the worker registers runs in a flow of the matrix, or moves no money', () => {
    const registered = new Map<unknown, string>();
    for (const [name, fn] of Object.entries(workflows)) if (!registered.has(fn)) registered.set(fn, name);
    const covered = new Set(FLOWS.flatMap((flow) => flow.workflows));
    const missing = [...registered.values()].filter(
      (name) => !covered.has(name) && !(name in NOT_MONEY_FLOWS),
    );
    expect(missing).toEqual([]);
  });

  it('generates a cell for every declared operation and fault, each once', () => {
    expect(new Set(CELLS.map((cell) => cell.id)).size).toBe(CELLS.length);
    for (const flow of FLOWS)
      for (const operation of Object.keys(flow.operations))
        expect(CELLS.some((cell) => cell.flow === flow.name && cell.operation === operation)).toBe(true);
  });
});

// ---- the run ----------------------------------------------------------------------------------------------

const scratch = useScratchDatabase('matrix');
let env: TestWorkflowEnvironment;
let stack: Stack<Key>;
let relay: NotificationRelay;
/** Workflows whose notifications a dead receiver claimed: the API's signals to them never return. */
const dying = new Set<string>();
const verdicts = new Map<string, { observation?: Observation; problems: string[] }>();

const seconds = (value: number) => `${value} seconds`;

beforeAll(async () => {
  env = await connectDevServer();
  const taskQueue = `matrix-${randomUUID()}`;
  const notifications = apiSettingsFrom(
    loadConfig({
      CUSTOMER_KEY_SECRET: TEST_CUSTOMER_KEY_SECRET,
      DECISION_SIGNING_KEY: TEST_DECISION_SIGNING_KEY,
      IPN_CLAIM_LEASE_SECONDS: '4',
      IPN_RELAY_INTERVAL_SECONDS: '0.5',
    }),
  ).notifications;
  const base = testApiSettings(taskQueue);
  const attempt = seconds(3);
  stack = await startStack(env, scratch.db, {
    taskQueue,
    keys: {
      maker: { name: 'maker', roles: ['payouts-maker'] },
      approver: { name: 'approver', roles: ['payouts-approver'] },
      payments: { name: 'payments', roles: ['payments'] },
      billing: { name: 'billing', roles: ['billing'] },
      remittance: { name: 'remittance', roles: ['remittance'] },
    },
    sandbox: {
      timing: {
        ipnDelayMs: 5,
        pendingSettleMs: 300,
        batchValidationMs: 20,
        batchPaymentMs: 20,
        ipnRetryDelayMs: 200,
        ipnMaxAttempts: 4,
        ipnTimeoutMs: 1_000,
      },
    },
    app: {
      notifications,
      payouts: {
        ...base.payouts,
        // Every payout cell uploads at about the same moment.
        uploadConcurrency: 16,
        timing: {
          gatewayAttemptTimeout: attempt,
          ipnTimeout: seconds(1),
          pendingFirstCheck: seconds(1),
          pendingMaxInterval: seconds(2),
          pendingGiveUpAfter: seconds(20),
        },
        // Single disbursements take the production default, the desk: every fault meets its chunk and its hand-over.
        disbursement: { ipnTimeout: seconds(1), resultWait: seconds(15), inWorkflowTask: true, desk: true },
      },
      remittance: {
        ...base.remittance,
        quoteCacheSeconds: 0,
        timing: {
          ...base.remittance.timing,
          gatewayAttemptTimeout: attempt,
          gatewayRetryInterval: seconds(1),
          ipnTimeout: seconds(1),
          resultGiveUpAfter: seconds(15),
        },
      },
      payments: {
        ...base.payments,
        payment: {
          ...base.payments.payment,
          gatewayAttemptTimeout: attempt,
          ipnTimeout: seconds(1),
          maxQueryInterval: seconds(2),
          resultWait: seconds(15),
        },
        refund: {
          gatewayAttemptTimeout: attempt,
          firstCheck: seconds(1),
          maxInterval: seconds(2),
          giveUpAfter: seconds(15),
        },
        answerWaitMs: 15_000,
        // One-time payments take the production default, the desk: every fault meets its chunk, the relay's
        // write and, where the result does not come, the hand-over to the payment's own workflow.
        desk: true,
      },
      subscriptions: {
        ...base.subscriptions,
        // New subscriptions take the production default, the desk: every fault on the start meets its chunk, and
        // the customer's answer starts the workflow (or the hand-over does, after the 1 s wait).
        desk: true,
        linksWaitMs: 15_000,
        timing: {
          ...base.subscriptions.timing,
          billingHourGmt7: 0,
          gatewayAttemptTimeout: attempt,
          authorizationIpnWait: seconds(1),
          authorizationGiveUpAfter: seconds(15),
          pendingCheckInterval: seconds(1),
          pendingMaxChecks: 10,
        },
      },
      savedMethods: {
        ...base.savedMethods,
        binding: { gatewayAttemptTimeout: attempt, callbackWait: seconds(1), linkValidity: '15 minutes' },
        payment: { gatewayAttemptTimeout: attempt, resultWait: seconds(1), giveUpAfter: seconds(15) },
      },
    },
    // The API as a process that dies after storing and answering the notifications of `dying`'s
    // workflows: its relay never runs, and its signals to them never return.
    apiTemporal: (client) => signalsNeverSettle(client, (workflowId) => dying.has(workflowId)),
    withoutRelay: true,
  });
  // Another API process: its relay delivers what the dying one stored (and every other notification).
  relay = notificationRelay({
    db: scratch.db,
    temporal: env.client,
    logger: createLogger('silent'),
    merchant: testMerchant,
    ...testApiSettings(taskQueue, { notifications }),
  });
  relay.start();

  const outsider = createGatewayClient({
    baseUrl: stack.sandbox.url,
    ...testMerchant,
    gatewayPublicKey: generateSandboxKeyPair().publicKeyPem,
  });
  const tag = `m${randomBytes(2).toString('hex')}`;
  const run = async (cell: Cell, n: number) => {
    const problems: string[] = [];
    const labels: string[] = [];
    const install = (rule: FaultRule) => {
      const label = `${cell.id} #${labels.length + 1}`;
      labels.push(label);
      stack.sandbox.admin.addFaults({ ...rule, label });
    };
    const deadline = Date.now() + CELL_DEADLINE_MS;
    /** The orders whose notifications a dead receiver claimed. */
    const notifiedOrders: string[] = [];
    const ctx: CellContext = {
      cell,
      n,
      tag,
      sandbox: stack.sandbox.admin,
      db: scratch.db,
      call: async (key, method, path, body) => {
        if (typeof body !== 'string') return callApi(stack.api, stack[key], method, path, body);
        // A payout file: the CSV itself is the body.
        const response = await fetch(`${stack.api.baseUrl}${path}`, {
          method,
          headers: {
            ...authHeaders(stack[key]),
            'content-type': 'text/csv',
            'idempotency-key': randomUUID(),
          },
          body,
        });
        return { status: response.status, body: await response.json() };
      },
      arm(operation, scope) {
        if (cell.operation !== operation || !cell.fault?.effect) return;
        install({ operation, ...scope, ...cell.fault.effect });
      },
      armNotifications(orderIdPrefix, workflowId) {
        if (cell.asks) install({ orderIdPrefix, ipn: { drop: true } });
        if (cell.notification?.ipn) install({ orderIdPrefix, ipn: cell.notification.ipn });
        if (cell.notification?.dies) {
          dying.add(workflowId);
          notifiedOrders.push(orderIdPrefix);
        }
      },
      async takeFirst(operation, orderId) {
        if (cell.operation !== operation || cell.fault?.name !== 'duplicate order') return;
        labels.push('duplicate order');
        await outsider.call('payment.captureWallet', {
          orderId,
          requestId: `outsider-${randomBytes(8).toString('hex')}`,
          amount: 12_345,
          orderInfo: 'Another system of the merchant',
          redirectUrl: '',
          ipnUrl: '',
          extraData: '',
          requestType: 'captureWallet',
        } as never);
      },
      ledger: () => stack.sandbox.admin.ledger(),
      async until(what, read) {
        for (;;) {
          const value = await read();
          if (value !== undefined) return value;
          if (Date.now() > deadline)
            throw new Error(`did not settle: waited ${CELL_DEADLINE_MS / 1000} s for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      },
    };
    try {
      const flow = FLOWS.find((candidate) => candidate.name === cell.flow)!;
      const observation = await flow.run(ctx);
      problems.push(...judge(cell, observation));
      // The fault really happened: its rule was used up, or used at least once.
      const listed = stack.sandbox.admin.faults();
      for (const label of labels.filter((name) => name !== 'duplicate order')) {
        const rule = listed.find((candidate) => candidate.label === label);
        if (rule && rule.applied === 0) problems.push(`the fault "${label}" never happened`);
      }
      // The dead receiver's notifications: stored, and signalled by the other process's relay in the end.
      for (const prefix of notifiedOrders) {
        const stored = () =>
          scratch.db('ipn_notifications').where('order_id', 'like', `${prefix}%`).select('signalled_at');
        if (!(await stored()).length) problems.push(`no notification of ${prefix} was stored`);
        await ctx
          .until(`the relay to signal what the dead receiver claimed (${prefix})`, async () =>
            (await stored()).every((row: { signalled_at: Date | null }) => row.signalled_at !== null)
              ? true
              : undefined,
          )
          .catch((error: Error) => problems.push(error.message));
      }
      verdicts.set(cell.id, { observation, problems });
    } catch (error) {
      verdicts.set(cell.id, { problems: [(error as Error).message] });
    }
  };

  // Flows whose faults cannot be scoped to one object run their cells in turn, beside the others.
  const serialFlows = new Set(FLOWS.filter((flow) => flow.serial).map((flow) => flow.name));
  const numbered = CELLS.map((cell, index) => ({ cell, n: index + 1 })).filter(({ cell }) =>
    RUN.includes(cell),
  );
  const serial = numbered.filter(({ cell }) => serialFlows.has(cell.flow));
  const parallel = numbered.filter(({ cell }) => !serialFlows.has(cell.flow));
  const started = Date.now();
  await Promise.all([
    (async () => {
      for (const { cell, n } of serial) await run(cell, n);
    })(),
    (async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          for (let index = next++; index < parallel.length; index = next++)
            await run(parallel[index]!.cell, parallel[index]!.n);
        }),
      );
    })(),
  ]);
  const failed = [...verdicts.values()].filter((verdict) => verdict.problems.length).length;
  const total = RUN.length;
  // The matrix as data (test-output/ is not kept): each cell with what payrun recorded and the gateway did.
  fs.mkdirSync('test-output', { recursive: true });
  fs.writeFileSync(
    'test-output/fault-matrix.json',
    JSON.stringify(
      CELLS.map((cell) => ({ id: cell.id, expect: cell.expect, ...verdicts.get(cell.id) })),
      null,
      1,
    ),
  );
  console.log(
    `fault matrix: ${RUN.length} cells over ${ONLY ? 1 : FLOWS.length} flows in ${Math.round((Date.now() - started) / 1000)} s; ` +
      `${total - failed} hold, ${failed} do not`,
  );
}, 1_200_000);

afterAll(async () => {
  await relay?.stop();
  await stack?.close();
  await env?.teardown();
});

/** What a cell's observation breaks: empty when the ledger and the record agree as the cell expects. */
function judge(cell: Cell, seen: Observation): string[] {
  const problems: string[] = [];
  const what = `payrun says ${seen.recorded}, the gateway ${seen.happened} (${seen.detail})`;
  if (seen.movements > 1) problems.push(`money moved ${seen.movements} times: ${what}`);
  if (seen.recorded === 'succeeded' && seen.happened !== 'succeeded')
    problems.push(`recorded as succeeded where the money did not move: ${what}`);
  if ((seen.recorded === 'failed' || seen.recorded === 'none') && seen.happened === 'succeeded')
    problems.push(`recorded as not paid where the money moved: ${what}`);
  if (cell.expect === 'settles' && (seen.recorded !== 'succeeded' || seen.happened !== 'succeeded'))
    problems.push(`the flow did not end as it does without a fault: ${what}`);
  if (cell.expect === 'attention') {
    // The step payrun could not know about may have moved money (a buy); what follows it must not.
    if (seen.happened === 'succeeded') problems.push(`money moved on where payrun could not know: ${what}`);
    if (!['attention', 'none', 'failed'].includes(seen.recorded))
      problems.push(`payrun does not say it cannot know: ${what}`);
  }
  return problems;
}

describe.each(FLOWS.filter((flow) => !ONLY || flow.name === ONLY).map((flow) => flow.name))(
  '%s',
  (flowName) => {
    it.each(RUN.filter((cell) => cell.flow === flowName).map((cell) => [cell.id, cell] as const))(
      '%s',
      (_id, cell) => {
        const verdict = verdicts.get(cell.id);
        expect(verdict, 'the cell ran').toBeDefined();
        expect(verdict!.problems, JSON.stringify(verdict!.observation ?? {})).toEqual([]);
      },
    );
  },
);

export type { OperationName };
