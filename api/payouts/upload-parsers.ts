/**
 * Payout uploads are parsed in worker threads, never on the event loop that serves every other request
 * (and, in `npm run dev`, the Temporal worker). At most `concurrency` uploads are read at once: one more
 * is answered 503 with Retry-After before a byte of it is read. The request is streamed to the worker
 * chunk by chunk with backpressure (a few chunks in flight), and the byte cap is enforced as bytes
 * arrive, so memory per upload stays bounded whatever the file's size or shape.
 */
import { Worker } from 'node:worker_threads';
import type { Request } from 'express';
import { ApiError } from '../http/errors';
import type { ReadPayoutFile } from './payout-file-stream';
import type { FromParser, ToParser } from './upload-parser-worker';

const WORKER_FILE = new URL('./upload-parser-worker.ts', import.meta.url).href;
/** Chunks sent and not yet parsed before the request is paused. */
const MAX_IN_FLIGHT = 4;
const RETRY_AFTER_SECONDS = 5;

/** `32mb`, `512kb` (PAYOUT_UPLOAD_LIMIT's form) in bytes. */
export function sizeInBytes(limit: string): number {
  const match = /^(\d+)(kb|mb)$/.exec(limit);
  if (!match) throw new TypeError(`Not a size like 32mb or 512kb: ${limit}`);
  return Number(match[1]) * (match[2] === 'mb' ? 1024 * 1024 : 1024);
}

/** The workers run TypeScript sources, like every payrun process, through tsx's loader. */
function startWorker(): Worker {
  const bootstrap = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(WORKER_FILE)}, ${JSON.stringify(import.meta.url)}))`;
  const worker = new Worker(bootstrap, { eval: true, name: 'payout-upload-parser' });
  // An idle parser must not keep a stopping process alive.
  worker.unref();
  return worker;
}

export interface UploadParserOptions {
  /** Uploads read at once; each has its own worker thread. */
  concurrency: number;
  limitBytes: number;
  maxRows: number;
}

export class UploadParsers {
  private readonly idle: Worker[] = [];
  private busy = 0;
  private nextJob = 1;

  constructor(private readonly options: UploadParserOptions) {
    // Starting a thread and its TypeScript loader takes about a second: the API pays it at start-up,
    // not the first upload.
    if (options.concurrency > 0) this.idle.push(this.standby(startWorker()));
  }

  get inUse(): number {
    return this.busy;
  }

  /** Reads the request's body as a payout file; `sheet` chooses a workbook's sheet. */
  async read(req: Request, options: { sheet?: string } = {}): Promise<ReadPayoutFile> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.options.limitBytes) throw this.tooLarge();
    if (this.busy >= this.options.concurrency) {
      throw new ApiError(
        'uploads_busy',
        `${this.options.concurrency} payout files are being read right now; send this one again in a few seconds.`,
        { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
      );
    }
    this.busy += 1;
    const worker = this.idle.pop() ?? this.standby(startWorker());
    let healthy = true;
    try {
      return await this.stream(req, worker, options, () => (healthy = false));
    } finally {
      this.busy -= 1;
      if (healthy) this.idle.push(worker);
      else void worker.terminate();
    }
  }

  /**
   * A waiting parser that fails or exits leaves the pool (the next upload starts a fresh one, which
   * reports any failure to its request); an unhandled worker error would stop the API.
   */
  private standby(worker: Worker): Worker {
    const leave = () => {
      const index = this.idle.indexOf(worker);
      if (index !== -1) this.idle.splice(index, 1);
    };
    worker.on('error', leave);
    worker.once('exit', leave);
    return worker;
  }

  private tooLarge(): ApiError {
    return new ApiError(
      'body_too_large',
      `The file is larger than the limit of ${this.options.limitBytes} bytes.`,
    );
  }

  private stream(
    req: Request,
    worker: Worker,
    options: { sheet?: string },
    broken: () => void,
  ): Promise<ReadPayoutFile> {
    const job = this.nextJob++;
    const send = (message: ToParser, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer);
    return new Promise<ReadPayoutFile>((resolve, reject) => {
      let bytes = 0;
      let inFlight = 0;
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        worker.off('message', onMessage);
        worker.off('error', onWorkerError);
        worker.off('exit', onWorkerExit);
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('close', onClose);
        // Whatever the caller still sends is read and dropped by Node, never buffered.
        req.resume();
        outcome();
      };
      const onMessage = (message: FromParser) => {
        if (message.job !== job) return;
        if (message.type === 'ack') {
          inFlight -= 1;
          if (inFlight < MAX_IN_FLIGHT && req.isPaused()) req.resume();
        } else if (message.type === 'done') {
          const { report, sha256, bytes: read } = message;
          settle(() => resolve({ report, sha256, bytes: read }));
        } else {
          broken();
          settle(() => reject(new Error(`The upload parser failed: ${message.message}`)));
        }
      };
      const onWorkerError = (error: Error) => {
        broken();
        settle(() => reject(error));
      };
      const onWorkerExit = () => {
        broken();
        settle(() => reject(new Error('The upload parser stopped unexpectedly.')));
      };
      const onData = (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > this.options.limitBytes) {
          send({ type: 'abort', job });
          settle(() => reject(this.tooLarge()));
          return;
        }
        // A copy the worker can own: request chunks may share a pooled buffer.
        const data = chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.length) as ArrayBuffer;
        send({ type: 'chunk', job, data }, [data]);
        inFlight += 1;
        if (inFlight >= MAX_IN_FLIGHT) req.pause();
      };
      const onEnd = () => send({ type: 'end', job });
      const onClose = () => {
        if (req.complete) return;
        send({ type: 'abort', job });
        settle(() => reject(new ApiError('upload_aborted', 'The upload ended before the file did.')));
      };
      worker.on('message', onMessage);
      worker.once('error', onWorkerError);
      worker.once('exit', onWorkerExit);
      send({ type: 'start', job, maxRows: this.options.maxRows, sheet: options.sheet });
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('close', onClose);
    });
  }
}
