/**
 * A secret `npm run dev` and the cluster make for themselves when none is configured: generated once into
 * the data folder (mode 0600, written to a temporary file and renamed, so a crash leaves no half secret),
 * then read back on every start, so what it keys (customer keys, decision proofs, the codec's UI path)
 * stays the same across restarts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export function resolveDevSecret(options: {
  configured: string | undefined;
  dataDir: string;
  /** The file's name in the data folder. */
  file: string;
  /** What a stored secret must look like to be used; anything else is replaced. */
  pattern: RegExp;
}): string {
  if (options.configured) return options.configured;
  const file = path.join(options.dataDir, options.file);
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (options.pattern.test(stored)) return stored;
  }
  const secret = randomBytes(32).toString('base64url');
  fs.mkdirSync(options.dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, secret + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
  return secret;
}
