/**
 * The worker thread that parses payout uploads (api/payouts/upload-parsers.ts sends the chunks). One
 * upload at a time; a new `start` abandons whatever an aborted upload left behind.
 */
import { parentPort } from 'node:worker_threads';
import { readPayoutFile } from './payout-file-stream';

export type ToParser =
  | { type: 'start'; job: number; maxRows: number; sheet?: string }
  | { type: 'chunk'; job: number; data: ArrayBuffer }
  | { type: 'end'; job: number }
  | { type: 'abort'; job: number };

export type FromParser =
  | { type: 'ack'; job: number }
  | ({ type: 'done'; job: number } & Awaited<ReturnType<typeof readPayoutFile>>)
  | { type: 'failed'; job: number; message: string };

/** Chunks as they arrive, read once by the parser; `close` ends the stream (normally or aborted). */
class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private closed = false;
  private wake: (() => void) | undefined;

  push(chunk: Uint8Array): void {
    if (this.closed) return;
    this.chunks.push(chunk);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const next = this.chunks.shift();
      if (next) yield next;
      else if (this.closed) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

const port = parentPort;
if (!port) throw new Error('upload-parser-worker runs only as a worker thread');
const post = (message: FromParser) => port.postMessage(message);
let current: { job: number; queue: ChunkQueue } | undefined;

port.on('message', (message: ToParser) => {
  if (message.type === 'start') {
    current?.queue.close();
    const job = { job: message.job, queue: new ChunkQueue() };
    current = job;
    readPayoutFile(job.queue, {
      maxRows: message.maxRows,
      sheet: message.sheet,
      onChunkRead: () => post({ type: 'ack', job: job.job }),
    }).then(
      (result) => post({ type: 'done', job: job.job, ...result }),
      (error: unknown) => post({ type: 'failed', job: job.job, message: (error as Error).message }),
    );
    return;
  }
  if (!current || current.job !== message.job) return;
  if (message.type === 'chunk') current.queue.push(new Uint8Array(message.data));
  else current.queue.close();
});
