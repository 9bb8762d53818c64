/**
 * A person's roles come from one claim of the provider's tokens (OIDC_ROLE_CLAIM, `groups` by default)
 * through a mapping (OIDC_ROLE_MAP): `group=role` pairs, a group may give several roles. Unset, the
 * mapping is the identity: a group named like a role (`payouts-maker`) is that role. Groups that map to
 * nothing give nothing, so a person in none of the mapped groups signs in with no role and can read nothing.
 */
import { isRole, type Role } from '../auth/roles';

export type RoleMap = ReadonlyMap<string, readonly Role[]> | 'identity';

/** `finance-admins=admin,finance-makers=payouts-maker`; problems name the pair and the rule. */
export function parseRoleMap(text: string | undefined): { map: RoleMap; problems: string[] } {
  if (!text?.trim()) return { map: 'identity', problems: [] };
  const map = new Map<string, Role[]>();
  const problems: string[] = [];
  for (const pair of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [group, role, extra] = pair.split('=').map((part) => part.trim());
    if (!group || !role || extra !== undefined) {
      problems.push(`"${pair}" must be group=role`);
    } else if (!isRole(role)) {
      problems.push(`"${pair}": ${role} is not a role of payrun`);
    } else {
      map.set(group, [...(map.get(group) ?? []), role]);
    }
  }
  return { map, problems };
}

/** The claim's groups: an array of strings, or one space-separated string as some providers send. */
function groupsIn(claim: unknown): string[] {
  if (Array.isArray(claim)) return claim.filter((group): group is string => typeof group === 'string');
  if (typeof claim === 'string') return claim.split(/\s+/).filter(Boolean);
  return [];
}

export function rolesFromClaims(claims: Record<string, unknown>, claimName: string, map: RoleMap): Role[] {
  const groups = groupsIn(claims[claimName]);
  const roles = new Set<Role>();
  for (const group of groups) {
    if (map === 'identity') {
      if (isRole(group)) roles.add(group);
    } else {
      for (const role of map.get(group) ?? []) roles.add(role);
    }
  }
  return [...roles];
}
