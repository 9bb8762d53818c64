/**
 * What the Temporal server actually stores: a real worker runs a real workflow on the dev server, and
 * its history is read back without the codec (ciphertext only) and with it (plaintext), before and
 * after a key rotation.
 */
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@temporalio/client';
import type { DataConverter, Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createDataConverter } from '../../platform/data-converter';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA_KEY,
  type CodecKeyring,
} from '../../platform/payload-codec';
import {
  codecProbe,
  codecProbeFinish,
  codecProbeStage,
  type CodecProbeActivities,
  type CodecProbeInput,
} from './codec-probe-workflow';
import { eventually } from '../support/wait';

const { History } = proto.temporal.api.history.v1;
type History = proto.temporal.api.history.v1.IHistory;

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const ringA: CodecKeyring = { currentKeyId: 'key-a', keys: new Map([['key-a', keyA]]) };
const ringRotated: CodecKeyring = {
  currentKeyId: 'key-b',
  keys: new Map([
    ['key-a', keyA],
    ['key-b', keyB],
  ]),
};

const activities: CodecProbeActivities = { echoWallet: async (wallet) => wallet };

function secrets(): CodecProbeInput & { note: string } {
  const tag = randomBytes(4).toString('hex');
  return {
    walletId: `wallet-09${tag}`,
    walletName: `Tran Thi ${tag} Binh`,
    token: `tok_live_${tag}${randomBytes(4).toString('hex')}`,
    note: `approved-by-${tag}-ops`,
    waitForFinish: true,
  };
}
const plaintextOf = ({ walletId, walletName, token, note }: ReturnType<typeof secrets>) => [
  walletId,
  walletName,
  token,
  note,
];

/** Every Payload in a history, wherever it sits (inputs, results, memo, signals, failures). */
function collectPayloads(node: unknown, found: Payload[] = []): Payload[] {
  if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return found;
  const record = node as Record<string, unknown>;
  const metadata = record.metadata as Record<string, unknown> | undefined;
  if (metadata && typeof metadata === 'object' && metadata.encoding instanceof Uint8Array) {
    found.push(record as Payload);
    return found;
  }
  for (const value of Object.values(record)) collectPayloads(value, found);
  return found;
}

const utf8 = (bytes: Uint8Array | null | undefined) =>
  Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

/** Asserts no secret appears in the history: its wire bytes, its JSON form, or any payload's decoded base64. */
function expectCiphertextOnly(history: History, plaintext: string[]): void {
  const wire = Buffer.from(History.encode(history).finish());
  const json = JSON.stringify(
    History.toObject(History.decode(wire), { bytes: String, longs: String, enums: String }),
  );
  const base64Fields = [...json.matchAll(/"[\w-]+":"([A-Za-z0-9+/]+=*)"/g)].map((match) =>
    Buffer.from(match[1]!, 'base64'),
  );
  for (const secret of plaintext) {
    expect(wire.includes(secret), `"${secret}" in the history's bytes`).toBe(false);
    expect(json.includes(secret), `"${secret}" in the history's JSON`).toBe(false);
    for (const field of base64Fields)
      expect(field.includes(secret), `"${secret}" in a base64 field`).toBe(false);
  }
}

function keyIdsOf(payloads: Payload[]): Set<string> {
  return new Set(payloads.map((payload) => utf8(payload.metadata?.[KEY_ID_METADATA_KEY])));
}

describe('payload encryption on a real Temporal server', () => {
  let env: TestWorkflowEnvironment;
  let rawClient: Client;
  let workflowCode: string;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const [environment, bundle] = await Promise.all([
      TestWorkflowEnvironment.createFromExistingServer({
        address: inject('devServerAddress'),
        client: { dataConverter: createDataConverter(ringA) },
      }),
      bundleWorkflowCode({
        workflowsPath: fileURLToPath(new URL('./codec-probe-workflow.ts', import.meta.url)),
        logger: new DefaultLogger('WARN'),
      }),
    ]);
    env = environment;
    workflowCode = bundle.code;
    // What anyone with access to the server (UI without the codec, tctl, the database) gets.
    rawClient = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
  });
  afterAll(async () => {
    await env?.teardown();
  });

  const clientWith = (dataConverter: DataConverter) =>
    new Client({ connection: env.connection, namespace: env.namespace ?? 'default', dataConverter });

  const workerWith = (dataConverter: DataConverter, taskQueue: string, cacheWorkflows = true) =>
    Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: { code: workflowCode },
      activities,
      dataConverter,
      // Without a cache the next task goes to whichever worker polls, replaying the whole history.
      ...(cacheWorkflows ? {} : { maxCachedWorkflows: 0 }),
    });

  async function startAndWait(client: Client, taskQueue: string, input: ReturnType<typeof secrets>) {
    const handle = await client.workflow.start(codecProbe, {
      taskQueue,
      workflowId: `codec-probe-${randomUUID()}`,
      args: [input],
      memo: { walletName: input.walletName },
      workflowExecutionTimeout: '1 minute',
    });
    await eventually(async () => expect(await handle.query(codecProbeStage)).toBe('waiting'));
    return handle;
  }

  const historyOf = (workflowId: string) => rawClient.workflow.getHandle(workflowId).fetchHistory();

  it('stores only ciphertext; the codec recovers wallet id, name, token and signal', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const input = secrets();
    const worker = await workerWith(createDataConverter(ringA), taskQueue);
    const result = await worker.runUntil(async () => {
      const handle = await startAndWait(env.client, taskQueue, input);
      await handle.signal(codecProbeFinish, input.note);
      return { workflowId: handle.workflowId, value: await handle.result() };
    });
    // The codec-aware client reads plaintext results.
    expect(result.value).toEqual({
      walletId: input.walletId,
      walletName: input.walletName,
      token: input.token,
      note: input.note,
    });

    const history = await historyOf(result.workflowId);
    expectCiphertextOnly(history, plaintextOf(input));

    const payloads = collectPayloads(history);
    // Input, memo, activity input and result, signal, workflow result.
    expect(payloads.length).toBeGreaterThanOrEqual(6);
    for (const payload of payloads) expect(utf8(payload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(keyIdsOf(payloads)).toEqual(new Set(['key-a']));

    const decoded = await new AesGcmPayloadCodec(ringA).decode(payloads);
    const plaintext = decoded.map((payload) => utf8(payload.data)).join('\n');
    for (const secret of plaintextOf(input)) expect(plaintext).toContain(secret);
    expect(decoded.map((payload) => utf8(payload.metadata?.encoding))).toContain('json/plain');
  });

  /** The failure messages of the history's failed workflow tasks. */
  const failedTaskMessages = async (workflowId: string) =>
    ((await historyOf(workflowId)).events ?? [])
      .map((event) => event.workflowTaskFailedEventAttributes?.failure?.message)
      .filter((message): message is string => typeof message === 'string');

  it('a worker refuses a workflow started in plaintext: its task fails, no activity runs', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const input = secrets();
    let echoed = 0;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: { code: workflowCode },
      activities: {
        echoWallet: async (wallet: { walletId: string; walletName: string }) => (echoed++, wallet),
      },
      dataConverter: createDataConverter(ringA),
    });
    const workflowId = `codec-probe-plain-${randomUUID()}`;
    // Anyone with frontend access and no codec: the input reaches the server as json/plain.
    await rawClient.workflow.start(codecProbe, { taskQueue, workflowId, args: [input] });
    const messages = await worker.runUntil(() =>
      eventually(async () => {
        const found = await failedTaskMessages(workflowId);
        expect(found.length).toBeGreaterThan(0);
        return found;
      }),
    );
    expect(messages[0]).toMatch(/Refused a payload that is not encrypted \(encoding "json\/plain"/);
    // The message names the encoding, never the data.
    for (const secret of plaintextOf(input)) expect(messages.join('\n')).not.toContain(secret);
    const history = await historyOf(workflowId);
    expect(history.events?.some((event) => event.activityTaskScheduledEventAttributes)).toBe(false);
    expect(echoed).toBe(0);
    await rawClient.workflow.getHandle(workflowId).terminate('test over');
  });

  it('a plaintext signal to an encrypted workflow is refused; the workflow never sees it', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const input = secrets();
    const worker = await workerWith(createDataConverter(ringA), taskQueue);
    const workflowId = await worker.runUntil(async () => {
      const handle = await startAndWait(env.client, taskQueue, input);
      await rawClient.workflow.getHandle(handle.workflowId).signal(codecProbeFinish, 'forged');
      await eventually(async () =>
        expect((await failedTaskMessages(handle.workflowId)).join('\n')).toMatch(/not encrypted/),
      );
      // The forged note never reached the workflow: it is still running, not completed with it (a query
      // cannot be answered either, while its tasks fail).
      expect((await handle.describe()).status.name).toBe('RUNNING');
      const events = (await historyOf(handle.workflowId)).events ?? [];
      expect(events.some((event) => event.workflowExecutionCompletedEventAttributes)).toBe(false);
      return handle.workflowId;
    });
    await env.client.workflow.getHandle(workflowId).terminate('test over');
  });

  it('after rotation, a running workflow sealed with the old key finishes and every history still decodes', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const oldInput = secrets();
    const newInput = { ...secrets(), waitForFinish: false };
    const clientA = env.client;
    const clientRotated = clientWith(createDataConverter(ringRotated));

    // Before rotation: the workflow starts and pauses mid-run with everything sealed by key A.
    const workerA = await workerWith(createDataConverter(ringA), taskQueue, false);
    const oldId = await workerA.runUntil(
      async () => (await startAndWait(clientA, taskQueue, oldInput)).workflowId,
    );
    const beforeRotation = collectPayloads(await historyOf(oldId));
    expect(keyIdsOf(beforeRotation)).toEqual(new Set(['key-a']));

    // The rotated keyring decodes the key-A history on its own...
    const rotatedCodec = new AesGcmPayloadCodec(ringRotated);
    const oldPlaintext = (await rotatedCodec.decode(beforeRotation))
      .map((payload) => utf8(payload.data))
      .join('\n');
    for (const secret of [oldInput.walletId, oldInput.walletName, oldInput.token])
      expect(oldPlaintext).toContain(secret);

    // ...and a worker on the rotated keyring replays it, finishes it, and runs a new workflow with key B.
    const workerRotated = await workerWith(createDataConverter(ringRotated), taskQueue);
    const { oldResult, newId, newResult } = await workerRotated.runUntil(async () => {
      const oldHandle = clientRotated.workflow.getHandle(oldId);
      await oldHandle.signal(codecProbeFinish, oldInput.note);
      const newHandle = await clientRotated.workflow.start(codecProbe, {
        taskQueue,
        workflowId: `codec-probe-${randomUUID()}`,
        args: [newInput],
        memo: { walletName: newInput.walletName },
      });
      return {
        oldResult: await oldHandle.result(),
        newId: newHandle.workflowId,
        newResult: await newHandle.result(),
      };
    });
    expect(oldResult).toMatchObject({
      walletId: oldInput.walletId,
      token: oldInput.token,
      note: oldInput.note,
    });
    expect(newResult).toMatchObject({ walletId: newInput.walletId, token: newInput.token });

    const oldHistory = await historyOf(oldId);
    const newHistory = await historyOf(newId);
    expectCiphertextOnly(oldHistory, plaintextOf(oldInput));
    expectCiphertextOnly(newHistory, plaintextOf(newInput).slice(0, 3));

    // The old run now mixes both keys; the new run uses only the new one.
    const oldPayloads = collectPayloads(oldHistory);
    const newPayloads = collectPayloads(newHistory);
    expect(keyIdsOf(oldPayloads)).toEqual(new Set(['key-a', 'key-b']));
    expect(keyIdsOf(newPayloads)).toEqual(new Set(['key-b']));

    const allPlaintext = (await rotatedCodec.decode([...oldPayloads, ...newPayloads]))
      .map((payload) => utf8(payload.data))
      .join('\n');
    for (const secret of [...plaintextOf(oldInput), newInput.walletId, newInput.walletName, newInput.token]) {
      expect(allPlaintext).toContain(secret);
    }

    // The old keyring alone cannot read the new run, and says which key it lacks.
    await expect(new AesGcmPayloadCodec(ringA).decode(newPayloads)).rejects.toThrow(/"key-b"/);
    // A codec-aware client on the rotated keyring still reads the old run's result after the fact.
    expect(await clientRotated.workflow.getHandle(oldId).result()).toMatchObject({
      walletName: oldInput.walletName,
    });
  });
});
