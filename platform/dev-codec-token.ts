/**
 * `npm run dev` only: the secret path segment of the codec endpoint the operator gives the Temporal UI
 * (`<api>/codec/<token>`). The dev server's UI cannot present an API key, and anything it is started with
 * it publishes to every caller of its unauthenticated `/api/v1/settings`; so the token is never given to
 * the dev server. It lives in the operator's browser (the UI's own codec setting), in the dev terminal's
 * banner and in an owner-only file, and nowhere a local process can read without the user's files.
 */
import { resolveDevSecret } from './dev-secret';

export const DEV_CODEC_TOKEN_FILE = 'codec-ui-token';
/** 32 random bytes as base64url; shorter configured tokens are refused by the config schema. */
export const CODEC_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

/** The configured token, or the one kept in the data folder (created on first use, mode 0600). */
export function resolveDevCodecToken(options: { configured: string | undefined; dataDir: string }): string {
  return resolveDevSecret({ ...options, file: DEV_CODEC_TOKEN_FILE, pattern: CODEC_TOKEN_PATTERN });
}
