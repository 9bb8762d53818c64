/**
 * Masking by role, one rule for every list and export. Receivers (wallet ids, account and card numbers,
 * names) are shown in full only to the duties that must check them before money moves: the maker who
 * uploads a payout file, the approver who pays it, and admins. Every other reader (viewer, and the other
 * duties) sees the masked forms below, the same in every list: numbers as `****` and their last four
 * digits, names as initials.
 */
import { hasAnyRole, type Principal, type Role } from '../auth/roles';

export const FULL_RECEIVER_ROLES: readonly Role[] = ['payouts-maker', 'payouts-approver'];

export function seesReceiversInFull(principal: Principal | undefined): boolean {
  return principal !== undefined && hasAnyRole(principal, FULL_RECEIVER_ROLES);
}

/** `0912345678` → `****5678`. */
export function maskNumber(value: string | null | undefined): string {
  return `****${(value ?? '').replace(/\D/g, '').slice(-4)}`;
}

/** `Nguyen Van An` → `N. V. A.` */
export function maskName(value: string | null | undefined): string {
  return (value ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `${[...word][0]}.`)
    .join(' ');
}
