import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';

/**
 * A test-only workflow that carries wallet-like secrets through every kind of payload: input,
 * activity input and result, query answer, signal argument and workflow result. The codec tests read
 * its history from the server to prove none of them is stored in plaintext.
 */
export interface CodecProbeInput {
  walletId: string;
  walletName: string;
  token: string;
  /** Wait for `codecProbeFinish` before completing (lets a test swap workers mid-run). */
  waitForFinish?: boolean;
}

export interface CodecProbeResult {
  walletId: string;
  walletName: string;
  token: string;
  note?: string;
}

export interface CodecProbeActivities {
  echoWallet(wallet: {
    walletId: string;
    walletName: string;
  }): Promise<{ walletId: string; walletName: string }>;
}

export const codecProbeFinish = defineSignal<[note: string]>('codecProbeFinish');
export const codecProbeStage = defineQuery<'echoing' | 'waiting' | 'done'>('codecProbeStage');

const { echoWallet } = proxyActivities<CodecProbeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export async function codecProbe(input: CodecProbeInput): Promise<CodecProbeResult> {
  let stage: 'echoing' | 'waiting' | 'done' = 'echoing';
  let note: string | undefined;
  setHandler(codecProbeStage, () => stage);
  setHandler(codecProbeFinish, (value) => {
    note = value;
  });
  const echoed = await echoWallet({ walletId: input.walletId, walletName: input.walletName });
  if (input.waitForFinish) {
    stage = 'waiting';
    await condition(() => note !== undefined);
  }
  stage = 'done';
  return { ...echoed, token: input.token, ...(note === undefined ? {} : { note }) };
}
