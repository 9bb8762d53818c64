import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, type CodecKeyring } from './payload-codec';

/**
 * The one data converter every worker and client uses. Both sides must agree: a client without it
 * would send plaintext and could not read results. It refuses any payload that is not encrypted, so a
 * workflow started (or signalled, or queried) in plaintext by someone with frontend access fails its
 * workflow task instead of running; search attributes and headers never pass through it.
 */
export function createDataConverter(keyring: CodecKeyring): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keyring, { refuseUnencrypted: true })] };
}
