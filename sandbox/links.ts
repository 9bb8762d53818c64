import type { SandboxWorld } from './world';

/**
 * The ways a customer reaches an order. payUrl is a real page served by the sandbox
 * (`GET /pay/<orderId>`, Approve/Decline); the others are plausible stand-ins that point at it.
 */
export type LinkKind = 'payUrl' | 'deeplink' | 'qrCodeUrl' | 'deeplinkMiniApp' | 'shortLink';

export const PAY_PAGE_PREFIX = '/pay/';
export const SHORT_LINK_PREFIX = '/s/';

export function payPagePath(orderId: string): string {
  return `${PAY_PAGE_PREFIX}${encodeURIComponent(orderId)}`;
}

export function customerLinks(
  world: SandboxWorld,
  orderId: string,
  kinds: readonly LinkKind[],
): Partial<Record<LinkKind, string>> {
  const base = world.config.publicUrl;
  const id = encodeURIComponent(orderId);
  const all: Record<LinkKind, string> = {
    payUrl: `${base}${payPagePath(orderId)}`,
    deeplink: `payrun-sandbox://app/pay?orderId=${id}`,
    // The spec: data to draw a QR from, not an image.
    qrCodeUrl: `${base}${payPagePath(orderId)}?via=qr`,
    deeplinkMiniApp: `payrun-sandbox://miniapp/pay?orderId=${id}`,
    shortLink: `${base}${SHORT_LINK_PREFIX}${id}`,
  };
  return Object.fromEntries(kinds.map((kind) => [kind, all[kind]]));
}
