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
  keyId: string;
  name: string;
  roles: Role[];
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function hasAnyRole(principal: Principal, allowed: readonly Role[]): boolean {
  return principal.roles.includes('admin') || principal.roles.some((role) => allowed.includes(role));
}
