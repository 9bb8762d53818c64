/**
 * Roles an API key can carry. `admin` may do everything; `viewer` reads; the others are the
 * finance and operations duties that must stay separable (a maker never approves their own run).
 */
export const ROLES = [
  'admin',
  'payouts-maker',
  'payouts-approver',
  'billing',
  'remittance',
  'payments',
  'viewer',
] as const;

export type Role = (typeof ROLES)[number];

export interface Principal {
  /**
   * Who acts, as four eyes and the audit log compare callers: the key's id for a key of its own, or the
   * person's id (`<issuer>#<sub>`) for a person signed in through the provider and for a key a person owns,
   * so two sessions, or a session and a key, of one person are one person.
   */
  keyId: string;
  name: string;
  roles: Role[];
  /** Set when a person acts: `<issuer>#<sub>`. */
  personId?: string;
  /** Set when the caller came in with the console's session cookie (CSRF applies). */
  viaSession?: boolean;
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function hasAnyRole(principal: Principal, allowed: readonly Role[]): boolean {
  return principal.roles.includes('admin') || principal.roles.some((role) => allowed.includes(role));
}
