/**
 * `npm run keys -- create --name alice --roles payouts-maker,viewer`  prints the new key once
 * `npm run keys -- list`                                             names, roles, last use
 * `npm run keys -- revoke <keyId>`                                   the key stops working at once
 * Uses DATABASE_URL, or the dev stack's embedded PostgreSQL (shared if `npm run dev` is running).
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { ROLES, isRole } from '../api/auth/roles';
import { createApiKey, listApiKeys, revokeApiKey } from '../db/shared/api-keys';
import { recordAudit } from '../db/shared/audit-log';
import { createDb } from '../db/shared/knex';
import { migrateLatest } from '../db/shared/migrator';
import { loadConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { startDatabase } from './stack';

const usage = `Usage:
  npm run keys -- create --name <name> --roles <role,role>   (roles: ${ROLES.join(', ')})
  npm run keys -- list
  npm run keys -- revoke <keyId>`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: 'string' }, roles: { type: 'string' } },
  });
  const [command, argument] = positionals;
  if (!command || !['create', 'list', 'revoke'].includes(command)) throw new Error(usage);

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
      const unknown = roles.filter((role) => !isRole(role));
      if (!roles.length || unknown.length) {
        throw new Error(
          `--roles must list one or more of: ${ROLES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
        );
      }
      // The key and its audit entry are committed together: a key never exists unrecorded.
      const { key, row } = await db.transaction(async (trx) => {
        const created = await createApiKey(trx, name, roles);
        await recordAudit(trx, {
          ...byShellUser(),
          action: 'api_key.create',
          targetType: 'api_key',
          targetId: created.row.key_id,
          outcome: 'succeeded',
          details: { name, roles },
        });
        return created;
      });
      console.log(`Created key ${row.key_id} for "${name}" with roles ${roles.join(', ')}.`);
      console.log(`\n  ${key}\n`);
      console.log('Store it now: only its hash is kept, so it cannot be shown again.');
    } else if (command === 'list') {
      const rows = await listApiKeys(db);
      if (!rows.length)
        console.log('No API keys yet. Create one with: npm run keys -- create --name <name> --roles admin');
      for (const row of rows) {
        const state = row.revoked_at ? `revoked ${row.revoked_at.toISOString()}` : 'active';
        const used = row.last_used_at ? `last used ${row.last_used_at.toISOString()}` : 'never used';
        console.log(
          `${row.key_id}  ${row.name.padEnd(20)} ${row.roles.join(',').padEnd(32)} ${state}, ${used}`,
        );
      }
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
