/**
 * DECISION_SIGNING_KEY: the API signs money decisions with it and the workers verify them
 * (contracts/shared/decision-proof.ts). API and workers refuse to start without it, since without it a
 * decision could only be taken on the word of whoever reached the Temporal frontend. `npm run dev` and the
 * cluster generate one into the data folder and give the same key to the API and every worker.
 */
import { resolveDevSecret } from './dev-secret';

export const DECISION_SIGNING_KEY_VARIABLE = 'DECISION_SIGNING_KEY';
/** 32 to 256 visible ASCII characters (e.g. 32 random bytes as base64). */
export const DECISION_SIGNING_KEY_PATTERN = /^[\x21-\x7e]{32,256}$/;
export const DEV_DECISION_SIGNING_KEY_FILE = 'decision-signing-key';

/** `npm run dev` and the cluster without DECISION_SIGNING_KEY: a key generated once into the data folder (0600). */
export function resolveDevDecisionKey(options: { configured: string | undefined; dataDir: string }): string {
  return resolveDevSecret({
    ...options,
    file: DEV_DECISION_SIGNING_KEY_FILE,
    pattern: DECISION_SIGNING_KEY_PATTERN,
  });
}
