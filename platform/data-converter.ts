import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, type CodecKeyring } from './payload-codec';

/**
 * The one data converter every worker and client uses. Both sides must agree: a client without it
 * would send plaintext and could not read results.
 */
export function createDataConverter(keyring: CodecKeyring): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keyring)] };
}
