/**
 * The notice activity against PostgreSQL and a real SMTP receiver (the dev mail catcher): one message per
 * notice key however often the activity runs, the subscriber's language, the timeline and the events, a
 * mail server that is away (retried, then recorded failed), and the settings that choose the server
 * (SMTP_URL, NOTICE_FROM) and the catcher's port (MAIL_CATCHER_PORT).
 */
import { generateKeyPairSync } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { sendSubscriptionNotice } from '../../activities/subscriptions/notices';
import { noticeKey, NOTICE_ATTEMPTS, type NoticeRequest } from '../../contracts/subscriptions';
import type { Db } from '../../db/shared/knex';
import { noticesOf, setNoticeContact } from '../../db/subscriptions/notices';
import { insertSubscription } from '../../db/subscriptions/subscriptions';
import { loadConfig } from '../../platform/config';
import { startMailCatcher, type MailCatcher } from '../../platform/mail-catcher';
import { smtpNoticeChannel } from '../../platform/notice-channel';
import { buildActivities } from '../../workers/build';
import { connectTestDatabase, subscriptionRecord } from '../support/database';
import { freshId } from '../support/ids';
import { testCodecKeyring } from '../support/temporal';
import { eventually } from '../support/wait';

let db: Db;
let catcher: MailCatcher;
beforeAll(async () => {
  db = connectTestDatabase();
  catcher = await startMailCatcher({ port: 0 });
});
afterAll(async () => {
  await catcher?.stop();
  await db?.destroy();
});

async function subscriber(contact: { email: string | null; lang: 'vi' | 'en' }) {
  const subscriptionId = freshId('n', 10);
  await insertSubscription(
    db,
    subscriptionRecord(subscriptionId, {
      partner_client_id: 'c1',
      order_info: '',
      requested_next_payment_date: '2030-01-10',
      created_by_key: 'k',
    }),
  );
  await setNoticeContact(db, subscriptionId, contact);
  return subscriptionId;
}

const request = (subscriptionId: string, occasion = 'c1'): NoticeRequest => ({
  subscriptionId,
  kind: 'charge_failed',
  noticeKey: noticeKey(subscriptionId, 'charge_failed', occasion),
  data: { cycle: 1, amount: 30_000, at: Date.UTC(2030, 0, 25, 2) },
});
const mailTo = (address: string) => catcher.messages().filter((mail) => mail.to.includes(address));
const eventsOf = async (subscriptionId: string) =>
  (
    await db('events').where({ object_id: subscriptionId }).orderBy('position').select('type', 'snapshot')
  ).map((row) => ({ type: row.type as string, snapshot: row.snapshot as Record<string, unknown> }));
/** The activity as Temporal runs it: `attempt` is the attempt number Temporal gives it. */
const attempt = <T>(number: number, run: () => Promise<T>) =>
  new MockActivityEnvironment({ attempt: number }).run(run);

describe('notices to subscribers', () => {
  it('one message per notice key, however often the activity runs, in the subscriber’s language', async () => {
    const email = `${freshId('an', 6)}@example.vn`;
    const subscriptionId = await subscriber({ email, lang: 'vi' });
    const deps = { db, notices: smtpNoticeChannel({ url: catcher.url, from: 'Gym <b@gym.example>' }) };
    const answers = await Promise.all([
      attempt(1, () => sendSubscriptionNotice(deps, request(subscriptionId))),
      attempt(2, () => sendSubscriptionNotice(deps, request(subscriptionId))),
    ]);
    expect(await attempt(3, () => sendSubscriptionNotice(deps, request(subscriptionId)))).toEqual({
      status: 'sent',
    });
    expect(answers).toEqual([{ status: 'sent' }, { status: 'sent' }]);
    expect(mailTo(email)).toHaveLength(1);
    expect(mailTo(email)[0]).toMatchObject({
      lang: 'vi',
      kind: 'charge_failed',
      subject: 'Thanh toán gói Gym không thành công',
      from: '"Gym" <b@gym.example>',
    });
    expect(mailTo(email)[0]!.text).toContain('25/01/2030 09:00 (GMT+7)');
    const [row] = await noticesOf(db, subscriptionId);
    expect(row).toMatchObject({ status: 'sent', lang: 'vi', message_id: mailTo(email)[0]!.messageId });
    expect((await eventsOf(subscriptionId)).map((event) => event.type)).toEqual(['subscription.notice_sent']);
  });

  it('no address on record: skipped on the timeline, nothing sent, no event', async () => {
    const subscriptionId = await subscriber({ email: null, lang: 'en' });
    const deps = { db, notices: smtpNoticeChannel({ url: catcher.url, from: 'b@gym.example' }) };
    expect(await sendSubscriptionNotice(deps, request(subscriptionId))).toMatchObject({ status: 'skipped' });
    expect((await noticesOf(db, subscriptionId))[0]).toMatchObject({ status: 'skipped', lang: 'en' });
    expect(await eventsOf(subscriptionId)).toEqual([]);
  });

  it('the mail server away: each attempt but the last is retried by Temporal; the last records it failed with an event', async () => {
    const away = await startMailCatcher({ port: 0 });
    await away.stop(); // a port nothing listens on any more
    const email = `${freshId('bo', 6)}@example.com`;
    const subscriptionId = await subscriber({ email, lang: 'en' });
    const deps = { db, notices: smtpNoticeChannel({ url: away.url, from: 'b@gym.example' }) };
    await expect(attempt(1, () => sendSubscriptionNotice(deps, request(subscriptionId)))).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect((await noticesOf(db, subscriptionId))[0]).toMatchObject({ status: 'sending', attempts: 1 });
    const last = await attempt(NOTICE_ATTEMPTS, () => sendSubscriptionNotice(deps, request(subscriptionId)));
    expect(last).toMatchObject({ status: 'failed', reason: expect.stringContaining('ECONNREFUSED') });
    const events = await eventsOf(subscriptionId);
    expect(events).toEqual([
      {
        type: 'subscription.notice_failed',
        snapshot: expect.objectContaining({ kind: 'charge_failed', lang: 'en', status: 'failed' }),
      },
    ]);
    // Never the address in an event.
    expect(JSON.stringify(events)).not.toContain(email);
  });

  it('SMTP_URL and NOTICE_FROM choose the server and the sender; unset, notices are recorded failed', async () => {
    const workerServices = {
      db,
      gateway: {
        baseUrl: 'http://127.0.0.1:1',
        partnerCode: 'P',
        accessKey: 'a',
        secretKey: 's',
        publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
          type: 'spki',
          format: 'pem',
        }) as string,
      },
      keyring: testCodecKeyring,
      publicBaseUrl: 'http://127.0.0.1:3000',
    };
    const settings = { DECISION_SIGNING_KEY: 'd'.repeat(32) };
    const email = `${freshId('ci', 6)}@example.com`;
    const subscriptionId = await subscriber({ email, lang: 'en' });
    const configured = buildActivities(
      loadConfig({ ...settings, SMTP_URL: catcher.url, NOTICE_FROM: 'Billing <billing@shop.example>' }),
      workerServices,
    );
    expect(await configured.sendSubscriptionNotice(request(subscriptionId))).toEqual({ status: 'sent' });
    expect(mailTo(email)[0]).toMatchObject({ from: '"Billing" <billing@shop.example>', lang: 'en' });

    const unset = buildActivities(loadConfig(settings), workerServices);
    expect(await unset.sendSubscriptionNotice(request(subscriptionId, 'c2'))).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('SMTP_URL is unset'),
    });
  });

  it('MAIL_CATCHER_PORT: the catcher listens where it is told', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const config = loadConfig({ MAIL_CATCHER_PORT: String(port) });
    const there = await startMailCatcher({ port: config.MAIL_CATCHER_PORT });
    try {
      expect(there.url).toBe(`smtp://127.0.0.1:${port}`);
      const email = `${freshId('da', 6)}@example.com`;
      const subscriptionId = await subscriber({ email, lang: 'vi' });
      await sendSubscriptionNotice(
        { db, notices: smtpNoticeChannel({ url: there.url, from: 'b@x.example' }) },
        request(subscriptionId),
      );
      await eventually(() => expect(there.messages().map((mail) => mail.to)).toEqual([[email]]));
    } finally {
      await there.stop();
    }
  });
});
