/**
 * How an upload is read: the row and byte caps hold while the file is still arriving (the answer comes
 * before the caller has finished sending), and only a few uploads are parsed at once; one more is
 * answered 503 with Retry-After without being read. The files are sent with node:http so the test
 * decides when the body ends.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { createApp } from '../../api/app';
import type { Db } from '../../db/shared/knex';
import { createLogger } from '../../platform/logger';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { testApiSettings, testMerchant, testPayoutSettings } from '../support/settings';
import { testDataConverter } from '../support/temporal';
import { eventually } from '../support/wait';

const HEADER = 'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id\n';
const row = (index: number) => `up-${index},0912345678,Receiver ${index},,150000,x,\n`;
const MAX_ROWS = 2000;

let db: Db;
let connection: Connection;
let api: RunningApi;
let maker: string;

beforeAll(async () => {
  db = connectTestDatabase();
  connection = await Connection.connect({ address: inject('devServerAddress') });
  api = await listen(
    createApp({
      db,
      temporal: new Client({ connection, dataConverter: testDataConverter }),
      logger: createLogger('silent'),
      merchant: testMerchant,
      ...testApiSettings('payrun-test', {
        payouts: { ...testPayoutSettings(), maxRows: MAX_ROWS, uploadLimit: '256kb', uploadConcurrency: 1 },
      }),
    }),
  );
  maker = await newKey(db, ['payouts-maker']);
});

afterAll(async () => {
  await api.close();
  await connection.close();
  await db.destroy();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A dry-run upload whose body the test writes, chunk by chunk, and ends when it chooses. */
function openUpload() {
  let request!: http.ClientRequest;
  const answer = new Promise<Answer>((resolve, reject) => {
    request = http.request(`${api.baseUrl}/v1/payout-runs/dry-run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${maker}`, 'content-type': 'text/csv' },
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => (body += text));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    // Once answered, the server may close the connection while this side is still writing.
    request.on('error', (error) => reject(error));
  });
  answer.catch(() => {});
  return {
    write: (text: string) => new Promise<void>((resolve) => request.write(text, () => resolve())),
    end: () => request.end(),
    destroy: () => request.destroy(),
    answer,
  };
}

async function wholeUpload(text: string) {
  const response = await fetch(`${api.baseUrl}/v1/payout-runs/dry-run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${maker}`, 'content-type': 'text/csv' },
    body: text,
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await jsonOf(response),
  };
}

describe('payout upload reading', () => {
  it('refuses a file past the row cap while the caller is still sending it', async () => {
    const upload = openUpload();
    await upload.write(HEADER);
    for (let start = 0; start <= MAX_ROWS; start += 500) {
      await upload.write(Array.from({ length: 500 }, (_, offset) => row(start + offset)).join(''));
    }
    // The body has not ended: an answer now means the cap was applied while reading.
    const answer = await upload.answer;
    upload.destroy();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      valid: false,
      fileErrors: [expect.objectContaining({ rule: 'too_many_rows' })],
    });
  });

  it('refuses a file past the byte cap while the caller is still sending it', async () => {
    const upload = openUpload();
    await upload.write(HEADER);
    // Rows that are too long for the byte cap long before the row cap.
    const longRow = (index: number) => `big-${index},0912345678,${'N'.repeat(2000)},,150000,x,\n`;
    for (let index = 0; index < 140; index++) await upload.write(longRow(index));
    const answer = await upload.answer;
    upload.destroy();
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('body_too_large');
  });

  it('parses one upload at a time here: another is answered 503 with Retry-After, then read once free', async () => {
    const first = openUpload();
    await first.write(HEADER + row(1));
    const busy = await eventually(async () => {
      const second = await wholeUpload(HEADER + row(2));
      expect(second.status).toBe(503);
      return second;
    });
    expect(busy.body.error.code).toBe('uploads_busy');
    expect(Number(busy.retryAfter)).toBeGreaterThan(0);

    first.end();
    const answer = await first.answer;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ valid: true, rowCount: 1 });
    const afterwards = await wholeUpload(HEADER + row(3));
    expect(afterwards.status).toBe(200);
    expect(afterwards.body).toMatchObject({ valid: true, rowCount: 1 });
  });
});
