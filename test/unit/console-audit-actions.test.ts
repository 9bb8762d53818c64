/**
 * The console's audit log names every action the API audits (each route's `audit.action`), in both languages:
 * a route that starts auditing a new action fails here until the console has words for it, and an action no
 * route audits any more fails until it leaves the console's list.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiRoutes, type ApiDependencies } from '../../api/app';
import { testApiSettings, testMerchant } from '../support/settings';

const CONSOLE = path.resolve('api/console');
const audited = [
  ...new Set(
    apiRoutes({ merchant: testMerchant, ...testApiSettings() } as ApiDependencies).flatMap((route) =>
      route.audit ? [route.audit.action] : [],
    ),
  ),
].sort();

describe('audit actions in the console', async () => {
  const { AUDIT_ACTIONS } = (await import(pathToFileURL(path.join(CONSOLE, 'audit-actions.js')).href)) as {
    AUDIT_ACTIONS: Record<string, string>;
  };
  const { VI } = (await import(pathToFileURL(path.join(CONSOLE, 'messages-vi.js')).href)) as {
    VI: Record<string, string>;
  };

  it("lists exactly the API's audited actions", () => {
    expect(audited).toContain('payout_schedule.create');
    expect(Object.keys(AUDIT_ACTIONS).sort()).toEqual(audited);
  });

  it('names each in English and in Vietnamese, no two alike', () => {
    const english = audited.map((action) => AUDIT_ACTIONS[action]);
    expect(audited.filter((action) => !AUDIT_ACTIONS[action]?.trim())).toEqual([]);
    expect(audited.filter((action) => !VI[AUDIT_ACTIONS[action]!]?.trim())).toEqual([]);
    expect(new Set(english).size).toBe(english.length);
    expect(new Set(english.map((text) => VI[text!])).size).toBe(english.length);
  });
});
