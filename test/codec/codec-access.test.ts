/**
 * Who may use the codec, with real API keys over HTTP against payrun's own app: decoding shows a payload
 * whole (no masking), so only admins decode; encoding would let a person hand a workflow input that looks
 * like payrun's own, so nobody encodes, admins included.
 */
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { Role } from '../../api/auth/roles';
import type { DisbursementInput } from '../../contracts/payouts';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../../platform/payload-codec';
import { newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { freshId } from '../support/ids';
import { testCodecKeyring } from '../support/temporal';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const codec = new AesGcmPayloadCodec(testCodecKeyring);
const t = useApiOnDevServer({ codec: { codec, allowedOrigins: [UI_ORIGIN] } });

const walletId = `09${freshId('', 8).replace(/[a-f]/g, '7')}`;
const walletName = 'Nguyễn Văn An';
const start: DisbursementInput = {
  disbursementId: freshId('d-codec-'),
  amount: 200_000_000,
  description: 'codec access',
  receiver: { kind: 'wallet', walletId, walletName, personalId: null },
  gatewayAttemptTimeout: '30s',
  resultWait: '1h',
};

const toWire = (payload: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value!).toString('base64'),
    ]),
  ),
  data: Buffer.from(payload.data!).toString('base64'),
});

async function codecCall(operation: string, payloads: Payload[], key?: string) {
  const response = await fetch(`${t.api.baseUrl}/codec/${operation}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-namespace': 'default',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify({ payloads: payloads.map(toWire) }),
  });
  return { status: response.status, text: await response.text() };
}

/** The start payload of a disbursement as the workers seal it in history. */
const sealedStart = () => codec.encode([defaultPayloadConverter.toPayload(start)]);

describe('the codec endpoint, by role', () => {
  it('decodes a disbursement start payload for an admin, and refuses a viewer the same payload', async () => {
    const sealed = await sealedStart();

    const viewer = await codecCall('decode', sealed, await newKey(t.db, ['viewer']));
    expect(viewer.status).toBe(403);
    expect(JSON.parse(viewer.text).error.code).toBe('forbidden');
    expect(viewer.text).not.toContain(walletId);
    expect(viewer.text).not.toContain(walletName);

    const admin = await codecCall('decode', sealed, await newKey(t.db, ['admin']));
    expect(admin.status).toBe(200);
    const [decoded] = JSON.parse(admin.text).payloads as Array<{
      metadata: Record<string, string>;
      data: string;
    }>;
    const shown = defaultPayloadConverter.fromPayload<DisbursementInput>({
      metadata: Object.fromEntries(
        Object.entries(decoded!.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
      ),
      data: Buffer.from(decoded!.data, 'base64'),
    });
    expect(shown.receiver).toEqual(start.receiver);
  });

  it.each<Role[]>([['payouts-maker'], ['payouts-approver'], ['billing'], ['payments'], ['remittance']])(
    'refuses to decode for %s, a duty that sees only its own records in full',
    async (role) => {
      const answer = await codecCall('decode', await sealedStart(), await newKey(t.db, [role]));
      expect(answer.status).toBe(403);
      expect(answer.text).not.toContain(walletId);
    },
  );

  it('encodes for nobody: an admin key, a viewer key and no key are all refused 403, and nothing sealed comes back', async () => {
    const plain = [defaultPayloadConverter.toPayload({ decision: 'approve', approver: 'someone else' })];
    for (const key of [await newKey(t.db, ['admin']), await newKey(t.db, ['viewer']), undefined]) {
      const answer = await codecCall('encode', plain, key);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text).error.code).toBe('forbidden');
      expect(answer.text).not.toContain(Buffer.from(ENCRYPTED_ENCODING).toString('base64'));
      expect(JSON.parse(answer.text).payloads).toBeUndefined();
    }
  });
});
