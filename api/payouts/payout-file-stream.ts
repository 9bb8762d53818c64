/**
 * Reads a payout file from a stream of chunks with every cap enforced while reading: the format is
 * told from the first bytes, a CSV is decoded and parsed chunk by chunk and a workbook is unzipped as
 * it arrives, and reading stops at the first file-level failure (a bad header, the row cap, binary
 * data), so a huge file of tiny rows costs only what was read before the refusal. The bytes read are
 * hashed on the way. Runs in an upload worker thread (api/payouts/upload-parsers.ts), never on the
 * API's event loop.
 */
import { createHash } from 'node:crypto';
import { parsePayoutChunks, type ParseOptions, type PayoutFileReport } from './payout-file';

export interface ReadPayoutFile {
  report: PayoutFileReport;
  /** SHA-256 (hex) of the bytes read: the run's file fingerprint and the idempotency fingerprint. */
  sha256: string;
  bytes: number;
}

export async function readPayoutFile(
  chunks: AsyncIterable<Uint8Array>,
  options: ParseOptions & { onChunkRead?: () => void },
): Promise<ReadPayoutFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  async function* hashed(): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      hash.update(chunk);
      yield chunk;
      // The parser asked for the next chunk: this one is taken, the sender may send another.
      options.onChunkRead?.();
    }
  }
  const report = await parsePayoutChunks(hashed(), { maxRows: options.maxRows, sheet: options.sheet });
  return { report, sha256: hash.digest('hex'), bytes };
}
