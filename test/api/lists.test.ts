/**
 * The query every list shares, on payout runs: status, days in GMT+7 (both ends included), a search by
 * part of an id, and server pages newest first with the offset of the next page.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callApi, newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';

const t = useApiOnDevServer();
const tag = randomUUID().slice(0, 6);

/** Runs uploaded at the given instants, with a file name only this file uses. */
async function seedRuns(instants: Array<[string, string]>) {
  const ids: string[] = [];
  for (const [index, [at, status]] of instants.entries()) {
    const runId = `run-20261001-${tag.slice(0, 4)}${String(index).padStart(2, '0')}`;
    ids.push(runId);
    await t.db('payout_runs').insert({
      run_id: runId,
      status,
      file_name: `lists-${tag}-${index}.csv`,
      file_sha256: 'x',
      row_count: 1,
      total_amount: 1000,
      batch_count: 1,
      workflow_id: `payout-run/${runId}`,
      uploaded_by_key: 'k',
      uploaded_by: 'lists test',
      uploaded_at: at,
      expires_at: at,
    });
  }
  return ids;
}

describe('list query', () => {
  it('filters by status, GMT+7 days and id, and pages newest first', async () => {
    const ids = await seedRuns([
      // 23:30 GMT+7 on 1 Oct, though 1 Oct in UTC too.
      ['2026-10-01T16:30:00Z', 'reconciled'],
      // 00:30 GMT+7 on 2 Oct, still 1 Oct in UTC: a GMT+7 day, not a UTC one.
      ['2026-10-01T17:30:00Z', 'reconciled'],
      ['2026-10-03T03:00:00Z', 'rejected'],
    ]);
    const viewer = await newKey(t.db, ['viewer']);
    const list = async (query: Record<string, string>) => {
      const { status, body } = await callApi(
        t.api,
        viewer,
        'GET',
        `/v1/payout-runs?${new URLSearchParams({ q: `lists-${tag}`, ...query })}`,
      );
      expect(status, JSON.stringify(body)).toBe(200);
      return { ids: body.runs.map((run: { runId: string }) => run.runId), nextOffset: body.nextOffset };
    };

    expect(await list({})).toEqual({ ids: [ids[2], ids[1], ids[0]], nextOffset: null });
    expect((await list({ status: 'reconciled' })).ids).toEqual([ids[1], ids[0]]);
    expect((await list({ from: '2026-10-02', to: '2026-10-02' })).ids).toEqual([ids[1]]);
    expect((await list({ to: '2026-10-01' })).ids).toEqual([ids[0]]);
    expect((await list({ from: '2026-10-03' })).ids).toEqual([ids[2]]);
    expect((await list({ q: ids[0]! })).ids).toEqual([ids[0]]);
    // `%` and `_` in a search are themselves, not wildcards.
    expect((await list({ q: 'lists_%' })).ids).toEqual([]);
    expect(await list({ limit: '2' })).toEqual({ ids: [ids[2], ids[1]], nextOffset: 2 });
    expect(await list({ limit: '2', offset: '2' })).toEqual({ ids: [ids[0]], nextOffset: null });

    const bad = await callApi(t.api, viewer, 'GET', '/v1/payout-runs?from=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems[0]).toMatchObject({ field: 'query.from' });
    // The ends of the calendar the document states (years 0100–9999): a 400 before, an answer at the last
    // day (whose next day, 10000-01-01, no YYYY-MM-DD spells); both once answered 500.
    for (const query of ['from=0000-01-01', 'to=0099-12-31'])
      expect((await callApi(t.api, viewer, 'GET', `/v1/payout-runs?${query}`)).status, query).toBe(400);
    for (const query of ['from=0100-01-01', 'to=9999-12-31'])
      expect((await callApi(t.api, viewer, 'GET', `/v1/payout-runs?${query}`)).status, query).toBe(200);
  });
});
