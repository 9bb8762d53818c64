/**
 * Masking by role, one rule for every list and export. Receivers (wallet ids, account and card numbers,
 * names) are shown in full only to the duties that must check them before money moves: the maker who
 * uploads a payout file, the approver who pays it, and admins. Every other reader (viewer, and the other
 * duties) sees the masked forms below, the same in every list: numbers as `****` and their last four
 * digits, names as initials. Customers are masked by the same rule: their ids (`partnerClientId`, often
 * an email or a phone number) and how they are recognised (`subsOwner`) are shown in full to admins and
 * to the duty that bills or charges them (billing for subscriptions, payments for saved methods and token
 * payments); a viewer sees `****` and the last four characters.
 */
import { hasAnyRole, type Principal, type Role } from '../auth/roles';

export const FULL_RECEIVER_ROLES: readonly Role[] = ['payouts-maker', 'payouts-approver'];

/** Whether `principal` is an admin or holds one of `duties`, the roles that see personal fields in full. */
export function seesInFull(principal: Principal | undefined, duties: readonly Role[]): boolean {
  return principal !== undefined && hasAnyRole(principal, duties);
}

export function seesReceiversInFull(principal: Principal | undefined): boolean {
  return seesInFull(principal, FULL_RECEIVER_ROLES);
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

/** `nguyen.an@example.com` → `****.com`; ids of 8 characters or fewer show nothing of themselves. */
export function maskId(value: string | null | undefined): string {
  const characters = [...(value ?? '')];
  return `****${characters.length > 8 ? characters.slice(-4).join('') : ''}`;
}

/** A view of a customer's record as `full` allows: its customer id and owner label masked unless full. */
export function maskCustomer<T extends { partnerClientId: string; subsOwner?: string | null }>(
  view: T,
  full: boolean,
): T {
  if (full) return view;
  return {
    ...view,
    partnerClientId: maskId(view.partnerClientId),
    ...('subsOwner' in view ? { subsOwner: view.subsOwner === null ? null : maskId(view.subsOwner) } : {}),
  };
}
