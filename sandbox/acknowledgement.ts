import { notificationSpecs, verifySignature, type SigningKeys } from '../gateway';

/**
 * Reads the merchant's signed JSON acknowledgement of a notification (document 1, card one-time
 * flow): the signature over the values exactly as received, and that it answers this notification.
 * Like the gateway, it does not insist on the shape of fields it only passes on to the customer
 * (`responseTime` is typed Long but described as a GMT+7 date-time; either is read).
 */
export type AckReading = { ok: true; resultCode: number } | { ok: false; reason: string };

const ACK = notificationSpecs['payment.cardAck'];

export function readAcknowledgement(
  raw: Buffer,
  notification: Readonly<Record<string, unknown>>,
  keys: SigningKeys,
): AckReading {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, reason: 'the body is not a JSON object' };
  const ack = body as Record<string, unknown>;
  if (!verifySignature(ACK.signed, ack, ack.signature, keys))
    return { ok: false, reason: `signature is not HMAC-SHA256 over ${ACK.signed.join(', ')}` };
  for (const name of ['partnerCode', 'orderId', 'requestId'] as const) {
    if (String(ack[name]) !== String(notification[name]))
      return { ok: false, reason: `${name} does not match the notification` };
  }
  const resultCode = typeof ack.resultCode === 'string' ? Number(ack.resultCode) : ack.resultCode;
  if (typeof resultCode !== 'number' || !Number.isSafeInteger(resultCode))
    return { ok: false, reason: 'resultCode must be an integer' };
  return { ok: true, resultCode };
}
