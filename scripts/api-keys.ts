/**
 * `npm run keys -- create --name export --roles viewer --owner service:payroll-export`  prints the key once
 * `npm run keys -- list`                                  names, owners (UNOWNED flagged), roles, last use
 * `npm run keys -- own <keyId> --owner <owner>`           gives an owner to a key made before owners existed
 * `npm run keys -- revoke <keyId>`                        the key stops working at once
 * An owner is a person's identity `<issuer>#<sub>` or `service:<name>` (docs/identity.md).
 * Uses DATABASE_URL, or the dev stack's embedded PostgreSQL (shared if `npm run dev` is running).
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { ROLES, isRole } from '../api/auth/roles';
import { createApiKey, listApiKeys, revokeApiKey, setApiKeyOwner } from '../db/shared/api-keys';
import { keyOwnerText, parseKeyOwner } from '../api/auth/key-owner';
import { recordAudit } from '../db/shared/audit-log';
import { createDb } from '../db/shared/knex';
import { migrateLatest } from '../db/shared/migrator';
import { loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { startDatabase } from './stack';

const usage = `Usage:
  npm run keys -- create --name <name> --roles <role,role> --owner <owner>   (roles: ${ROLES.join(', ')})
  npm run keys -- list
  npm run keys -- own <keyId> --owner <owner>
  npm run keys -- revoke <keyId>
An owner is a person's identity <issuer>#<sub> or service:<name>.`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: 'string' }, roles: { type: 'string' }, owner: { type: 'string' } },
  });
  const [command, argument] = positionals;
  if (!command || !['create', 'list', 'own', 'revoke'].includes(command)) throw new Error(usage);
  const owner = values.owner === undefined ? undefined : parseKeyOwner(values.owner.trim());
  if (values.owner !== undefined && !owner)
    throw new Error(`--owner is neither <issuer>#<sub> nor service:<name>.\n${usage}`);

  const config = loadConfig();
  const database = await startDatabase(config, createLogger('warn', 'payrun-keys'));
  const db = createDb(database.value);
  try {
    await migrateLatest(db);
    if (command === 'create') {
      const name = values.name?.trim();
      const roles = (values.roles ?? '')
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean);
      if (!name) throw new Error(`--name is required.\n${usage}`);
      if (!owner) throw new Error(`--owner is required: keys are for machines, each owned.\n${usage}`);
      const unknown = roles.filter((role) => !isRole(role));
      if (!roles.length || unknown.length) {
        throw new Error(
          `--roles must list one or more of: ${ROLES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
        );
      }
      // The key and its audit entry are committed together: a key never exists unrecorded.
      const { key, row } = await db.transaction(async (trx) => {
        const created = await createApiKey(trx, name, roles, owner);
        await recordAudit(trx, {
          ...byShellUser(),
          action: 'api_key.create',
          targetType: 'api_key',
          targetId: created.row.key_id,
          outcome: 'succeeded',
          details: { name, roles, owner: values.owner },
        });
        return created;
      });
      console.log(`Created key ${row.key_id} for "${name}" with roles ${roles.join(', ')}.`);
      console.log(`\n  ${key}\n`);
      console.log('Store it now: only its hash is kept, so it cannot be shown again.');
    } else if (command === 'list') {
      const rows = await listApiKeys(db);
      if (!rows.length)
        console.log(
          'No API keys yet. Create one with: npm run keys -- create --name <name> --roles admin --owner service:<name>',
        );
      for (const row of rows) {
        const state = row.revoked_at ? `revoked ${row.revoked_at.toISOString()}` : 'active';
        const used = row.last_used_at ? `last used ${row.last_used_at.toISOString()}` : 'never used';
        const ownedBy = keyOwnerText(row.owner_kind, row.owner) ?? 'UNOWNED';
        console.log(
          `${row.key_id}  ${row.name.padEnd(20)} ${ownedBy.padEnd(40)} ${row.roles.join(',').padEnd(32)} ${state}, ${used}`,
        );
      }
    } else if (command === 'own') {
      if (!argument || !owner) throw new Error(`own needs a key id and --owner.\n${usage}`);
      const result = await db.transaction(async (trx) => {
        const outcome = await setApiKeyOwner(trx, argument, owner);
        await recordAudit(trx, {
          ...byShellUser(),
          action: 'api_key.owner',
          targetType: 'api_key',
          targetId: argument,
          outcome: outcome === 'set' ? 'succeeded' : 'refused',
          ...(outcome === 'set' ? { details: { owner: values.owner } } : {}),
          ...(outcome === 'owned' ? { errorCode: 'api_key_owned' } : {}),
          ...(outcome === 'unknown' ? { errorCode: 'not_found' } : {}),
        });
        return outcome;
      });
      console.log(
        result === 'set'
          ? `Key ${argument} is now owned by ${values.owner}.`
          : result === 'owned'
            ? `Key ${argument} already has an owner; it keeps it.`
            : `No active key ${argument}.`,
      );
    } else {
      if (!argument) throw new Error(`revoke needs a key id.\n${usage}`);
      const revoked = await db.transaction(async (trx) => {
        const changed = await revokeApiKey(trx, argument);
        await recordAudit(trx, {
          ...byShellUser(),
          action: 'api_key.revoke',
          targetType: 'api_key',
          targetId: argument,
          outcome: changed ? 'succeeded' : 'refused',
          ...(changed ? {} : { errorCode: 'not_found' }),
        });
        return changed;
      });
      console.log(revoked ? `Revoked ${argument}.` : `No active key ${argument}.`);
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}

/** The key tool runs at a shell, without an API key: the person is the operating-system user. */
function byShellUser() {
  return { actorKeyId: null, actorName: `${userInfo().username} (npm run keys)` };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
