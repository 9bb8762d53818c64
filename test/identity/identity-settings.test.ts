/**
 * Every identity setting reaches what it configures: the API's client settings (OIDC_ISSUER,
 * OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_AUDIENCE, OIDC_ROLE_CLAIM, OIDC_ROLE_MAP, SESSION_IDLE_MINUTES,
 * SESSION_MAX_HOURS), and payrun's own provider launched from the configuration (IDENTITY_PORT,
 * IDENTITY_PEOPLE_FILE, IDENTITY_DEMO_PASSWORD) answering discovery.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config';
import { launchIdentity } from '../../platform/identity/launch';
import { identitySettingsFrom } from '../../api/identity/settings';
import { rolesFromClaims, parseRoleMap } from '../../api/identity/role-mapping';
import { freePort } from '../../scripts/cluster/readiness';

describe('identity settings', () => {
  it('build the API’s client from the configuration', () => {
    const settings = identitySettingsFrom(
      loadConfig({
        OIDC_ISSUER: 'https://id.example.com/realms/finance',
        OIDC_CLIENT_ID: 'payrun-prod',
        OIDC_CLIENT_SECRET: 'client-secret-value',
        OIDC_AUDIENCE: 'https://payrun.example.com',
        OIDC_ROLE_CLAIM: 'roles',
        OIDC_ROLE_MAP: 'finance-admins=admin, finance-makers=payouts-maker,finance-makers=viewer',
        SESSION_IDLE_MINUTES: '15',
        SESSION_MAX_HOURS: '8',
        SESSION_RECHECK_MINUTES: '2',
        IDENTITY_RECHECK_MINUTES: '20',
      }),
      'https://payrun.example.com',
    );
    expect(settings).toMatchObject({
      issuer: 'https://id.example.com/realms/finance',
      clientId: 'payrun-prod',
      clientSecret: 'client-secret-value',
      audience: 'https://payrun.example.com',
      roleClaim: 'roles',
      idleSeconds: 900,
      maxSeconds: 8 * 3600,
      recheckSeconds: 120,
      sweepSeconds: 1200,
      allowHttpIssuer: false,
    });
    expect(
      rolesFromClaims({ roles: ['finance-makers', 'other'] }, settings!.roleClaim, settings!.roleMap),
    ).toEqual(['payouts-maker', 'viewer']);
    // Unmapped: nothing, not a role of the same name.
    expect(rolesFromClaims({ roles: ['admin'] }, settings!.roleClaim, settings!.roleMap)).toEqual([]);
  });

  it('maps groups named like roles to those roles when no map is set, and refuses a map naming no role', () => {
    const { map } = parseRoleMap(undefined);
    expect(rolesFromClaims({ groups: 'viewer billing strangers' }, 'groups', map)).toEqual([
      'viewer',
      'billing',
    ]);
    expect(parseRoleMap('finance=superuser').problems).toEqual([
      '"finance=superuser": superuser is not a role of payrun',
    ]);
    expect(identitySettingsFrom(loadConfig({}), 'http://127.0.0.1:3000')).toBeUndefined();
  });

  it('launches payrun’s own provider on IDENTITY_PORT with the people of IDENTITY_PEOPLE_FILE and IDENTITY_DEMO_PASSWORD', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrun-identity-launch-'));
    const peopleFile = path.join(dataDir, 'people.json');
    fs.writeFileSync(
      peopleFile,
      JSON.stringify([{ subject: 'mai.ops', name: 'Mai', email: 'mai@example.com', groups: ['viewer'] }]),
    );
    const port = await freePort();
    const launched = await launchIdentity(
      loadConfig({
        PAYRUN_DATA_DIR: dataDir,
        IDENTITY_PORT: String(port),
        IDENTITY_PEOPLE_FILE: peopleFile,
        IDENTITY_DEMO_PASSWORD: 'the-password-of-mai',
        OIDC_CLIENT_SECRET: 'secret-of-the-console-client',
      }),
      { host: '127.0.0.1', apiBaseUrl: 'http://127.0.0.1:3999' },
    );
    try {
      expect(launched.issuer).toBe(`http://127.0.0.1:${port}`);
      expect(launched.password).toBe('the-password-of-mai');
      const discovery = (await (
        await fetch(`${launched.issuer}/.well-known/openid-configuration`)
      ).json()) as {
        issuer: string;
        code_challenge_methods_supported: string[];
      };
      expect(discovery.issuer).toBe(launched.issuer);
      expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    } finally {
      await launched.close();
    }
  });
});
