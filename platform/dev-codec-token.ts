/**
 * `npm run dev` only: the secret path segment of the codec endpoint the operator gives the Temporal UI
 * (`<api>/codec/<token>`). The dev server's UI cannot present an API key, and anything it is started with
 * it publishes to every caller of its unauthenticated `/api/v1/settings`; so the token is never given to
 * the dev server. It lives in the operator's browser (the UI's own codec setting), in the dev terminal's
 * banner and in an owner-only file, and nowhere a local process can read without the user's files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export const DEV_CODEC_TOKEN_FILE = 'codec-ui-token';
/** 32 random bytes as base64url; shorter configured tokens are refused by the config schema. */
export const CODEC_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

/** The configured token, or the one kept in the data folder (created on first use, mode 0600). */
export function resolveDevCodecToken(options: { configured: string | undefined; dataDir: string }): string {
  if (options.configured) return options.configured;
  const file = path.join(options.dataDir, DEV_CODEC_TOKEN_FILE);
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (CODEC_TOKEN_PATTERN.test(stored)) return stored;
  }
  const token = randomBytes(32).toString('base64url');
  fs.mkdirSync(options.dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, token + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
  return token;
}
