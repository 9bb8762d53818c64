/**
 * Reads a payout file from a stream of chunks with every cap enforced while reading: bytes are checked
 * as UTF-8 and CSV chunk by chunk, and the reader stops at the first file-level failure (a bad header,
 * the row cap, binary data), so a huge file of tiny rows costs only what was read before the refusal.
 * Runs in an upload worker thread (api/payouts/upload-parsers.ts), never on the API's event loop.
 */
import { createHash } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { PayoutFileReader, type ParseOptions, type PayoutFileReport } from './payout-csv';

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
  const reader = new PayoutFileReader(options);
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  const parser = parse({
    bom: true,
    info: true,
    relax_column_count: false,
    // Files edited on several systems mix line endings; accept each on any line.
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_empty_lines: true,
    trim: false,
  });
  let csvError: Error | undefined;
  parser.on('data', ({ record, info }: { record: string[]; info: { lines: number } }) => {
    reader.add(record, info.lines);
  });
  parser.on('error', (error: Error) => {
    csvError ??= error;
  });
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve) => {
      parser.write(chunk, () => resolve());
    });

  // Leaving the loop early (a refused file) stops the source: the rest is never read.
  for await (const chunk of chunks) {
    bytes += chunk.length;
    hash.update(chunk);
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      reader.fail('encoding', 'The file is not UTF-8 text.');
      break;
    }
    if (text.includes('\u0000')) {
      reader.fail('not_csv', 'The file is binary, not CSV text.');
      break;
    }
    await write(chunk);
    options.onChunkRead?.();
    if (reader.failed || csvError) break;
  }
  if (!reader.failed && !csvError) {
    try {
      decoder.decode();
    } catch {
      reader.fail('encoding', 'The file is not UTF-8 text.');
    }
  }
  parser.end();
  await finished(parser).catch(() => {});
  if (csvError && !reader.failed) {
    const detail = csvError.message.replace(/^Invalid Record Length: /, '');
    reader.fail('not_csv', `The file is not valid CSV: ${detail}`);
  }
  return { report: reader.finish(), sha256: hash.digest('hex'), bytes };
}
