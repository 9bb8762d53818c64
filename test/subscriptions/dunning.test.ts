/**
 * Dunning schedules end to end, on the time-skipping server: payrun's API, the sandbox over HTTP (its clock
 * follows the server's), and every notice sent over SMTP to a real receiver (the dev mail catcher on a
 * free port). One Vietnamese customer on a payday schedule that cancels after five days; one English
 * customer on an hours-later schedule who reactivates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, instantOf, subscriptionNoticeWorkflowId } from '../../contracts/subscriptions';
import { recordEvent } from '../../db/events/events';
import { sweepNoticeRequests } from '../../api/subscriptions/notice-requests';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../../platform/mail-catcher';
import { smtpNoticeChannel } from '../../platform/notice-channel';
import { captureHistory } from '../support/history-capture';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { freshId } from '../support/ids';
import { fixedMonthly, subscriptionSteps } from './steps';
import { call, useSubscriptionStack } from './stack';

let catcher: MailCatcher;
beforeAll(async () => {
  catcher = await startMailCatcher({ port: 0 });
});
afterAll(async () => {
  await catcher?.stop();
});

const t = useSubscriptionStack(createTimeSkippingEnv, {
  notices: () => smtpNoticeChannel({ url: catcher.url, from: 'Gym <billing@gym.example>' }),
});
const { today, view, until, create, ledgerOf } = subscriptionSteps(t);

const HOUR = 3_600_000;
/** Moves workflow time to `at` (epoch ms); every timer before it fires in order. */
async function skipTo(at: number) {
  const ms = at - (await t.env.currentTimeMs());
  if (ms > 0) await t.env.sleep(ms);
}

/** The mail one address received, oldest first. */
const mailTo = (address: string): CaughtMail[] =>
  catcher
    .messages()
    .filter((mail) => mail.to.includes(address))
    .reverse();
const kinds = (address: string) => mailTo(address).map((mail) => mail.kind);
const untilKinds = (address: string, expected: string[]) =>
  eventually(() => expect(kinds(address)).toEqual(expected));

async function schedule(body: Record<string, unknown>) {
  const created = await call(t, 'POST', '/v1/dunning-schedules', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.dunningScheduleId as string;
}

/** Created, given its notice contact and schedule while the customer authorizes, then authorized. */
async function subscribeWith(
  first: string,
  scheduleId: string,
  contact: { email: string; lang: 'vi' | 'en' },
) {
  const { subscriptionId, partnerClientId } = await create(fixedMonthly(first));
  const contactSet = await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/notice-contact`, contact);
  expect(contactSet.status, JSON.stringify(contactSet.body)).toBe(200);
  const set = await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/dunning-schedule`, {
    dunningScheduleId: scheduleId,
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  t.sandbox.admin.approvePayment(subscriptionId);
  await until(subscriptionId, (s) => s.status === 'active', 'active');
  return { subscriptionId, partnerClientId };
}

describe('dunning schedules', () => {
  it('vi: notice the day before, retry on the next payday at 09:00 GMT+7, paused with the link, two reminders, cancelled after 5 days', async () => {
    const month = addMonths(`${(await today()).slice(0, 7)}-01`, 1).slice(0, 7);
    const due = `${month}-10`;
    const payday = `${month}-25`;
    const scheduleId = await schedule({
      name: 'Payday',
      retry: { onDayOfMonth: 25, atHour: 9 },
      noticeBeforeAttemptHours: 24,
      afterPause: { sendReactivationLink: true, remindEveryDays: 2, cancelAfterDays: 5 },
    });
    const email = `${freshId('an', 6)}@example.vn`;
    const { subscriptionId, partnerClientId } = await subscribeWith(due, scheduleId, { email, lang: 'vi' });
    t.sandbox.admin.setCustomerFunds(partnerClientId, 10_000);

    // The day before the charge, at the billing hour: the upcoming-charge notice, nothing charged yet.
    await skipTo(instantOf(due, 9) - HOUR);
    await untilKinds(email, ['upcoming_charge']);
    expect(ledgerOf(subscriptionId)).toHaveLength(0);

    await skipTo(instantOf(due, 9) + HOUR);
    await untilKinds(email, ['upcoming_charge', 'charge_failed']);
    await until(subscriptionId, (s) => s.status === 'retrying', 'retrying');
    const failed = mailTo(email)[1]!;
    expect(failed.lang).toBe('vi');
    expect(failed.subject).toContain('không thành công');
    expect(failed.text).toContain('30.000 ₫');
    expect(failed.text).toContain(`25/${month.slice(5)}/${month.slice(0, 4)} 09:00 (GMT+7)`);

    // The notice 24 hours before the retry; the retry itself at 09:00 on the payday, not a minute before.
    await skipTo(instantOf(payday, 9) - 60_000);
    await untilKinds(email, ['upcoming_charge', 'charge_failed', 'upcoming_charge']);
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);
    await skipTo(instantOf(payday, 9) + HOUR);
    const paused = await until(subscriptionId, (s) => s.status === 'reactivating', 'paused, link asked');
    expect(
      paused.charges.map((c: { orderId: string; resultCode: number }) => [c.orderId, c.resultCode]),
    ).toEqual([
      [`${subscriptionId}-c1`, 1001],
      [`${subscriptionId}-c1-r1`, 1001],
    ]);
    await untilKinds(email, ['upcoming_charge', 'charge_failed', 'upcoming_charge', 'paused']);
    const pausedNotice = mailTo(email)[3]!;
    expect(pausedNotice.subject).toBe('Gói Gym đã bị tạm dừng');
    expect(pausedNotice.text).toContain(paused.reactivationPayUrl);

    // Reminders on days 2 and 4 after the pause, the cancellation (through the gateway) on day 5.
    await skipTo(instantOf(payday, 9) + 5 * 24 * HOUR + HOUR);
    const cancelled = await until(subscriptionId, (s) => s.status === 'cancelled', 'cancelled');
    expect(cancelled.statusReason).toContain('not reactivated within 5 days');
    expect(t.sandbox.admin.subscription(subscriptionId)).toMatchObject({ status: 'cancelled' });
    await untilKinds(email, [
      'upcoming_charge',
      'charge_failed',
      'upcoming_charge',
      'paused',
      'reactivation_reminder',
      'reactivation_reminder',
      'cancelled',
    ]);
    // Exactly once each: one message per notice key, every one in Vietnamese; no charge after the pause.
    const keys = mailTo(email).map((mail) => mail.noticeKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(mailTo(email).every((mail) => mail.lang === 'vi')).toBe(true);
    expect(ledgerOf(subscriptionId)).toHaveLength(2);
    const timeline = await call(
      t,
      'GET',
      `/v1/subscriptions/${subscriptionId}/notices`,
      undefined,
      t.viewerKey,
    );
    expect(timeline.body.notices.map((n: { status: string }) => n.status)).toEqual(Array(7).fill('sent'));
    await captureHistory(t.env.client, cancelled.workflowId, 'dunning-payday-paused-reminded-cancelled');
  });

  it('en: the retry hours later with its notice, paused with the link, reactivated by the customer: told in English', async () => {
    const scheduleId = await schedule({
      name: 'Six hours',
      retry: { afterHours: 6 },
      noticeBeforeAttemptHours: 2,
      afterPause: { sendReactivationLink: true, remindEveryDays: 3, cancelAfterDays: 0 },
    });
    const due = addMonths(`${(await today()).slice(0, 7)}-05`, 1);
    const email = `${freshId('bo', 6)}@example.com`;
    const { subscriptionId, partnerClientId } = await subscribeWith(due, scheduleId, { email, lang: 'en' });
    t.sandbox.admin.setCustomerFunds(partnerClientId, 10_000);

    await skipTo(instantOf(due, 9) + 3 * HOUR);
    await untilKinds(email, ['upcoming_charge', 'charge_failed']);
    expect(ledgerOf(subscriptionId)).toHaveLength(1);
    // Two hours before the retry (13:00), then the retry at 15:00.
    await skipTo(instantOf(due, 13) + 60_000);
    await untilKinds(email, ['upcoming_charge', 'charge_failed', 'upcoming_charge']);
    expect(ledgerOf(subscriptionId)).toHaveLength(1);
    await skipTo(instantOf(due, 15) + 60_000);
    const paused = await until(subscriptionId, (s) => s.status === 'reactivating', 'link asked');
    await untilKinds(email, ['upcoming_charge', 'charge_failed', 'upcoming_charge', 'paused']);
    expect(mailTo(email)[3]!.text).toContain(paused.reactivationPayUrl);

    t.sandbox.admin.setCustomerFunds(partnerClientId, null);
    t.sandbox.admin.approvePayment(`${subscriptionId}-m1`);
    await until(subscriptionId, (s) => s.status === 'active', 'active again');
    await untilKinds(email, ['upcoming_charge', 'charge_failed', 'upcoming_charge', 'paused', 'reactivated']);
    const mail = mailTo(email);
    expect(mail.every((m) => m.lang === 'en')).toBe(true);
    expect(mail[1]!.subject).toBe('Your payment for Gym did not go through');
    expect(mail[1]!.text).toContain('30,000 VND');
    expect(mail[4]!.subject).toBe('Gym is active again');
    // No reminder once reactivated (the schedule's would have come three days after the pause).
    await skipTo(instantOf(due, 15) + 4 * 24 * HOUR);
    expect(kinds(email)).toHaveLength(5);
    const resumed = await view(subscriptionId);
    expect(resumed.status).toBe('active');
    await captureHistory(t.env.client, resumed.workflowId, 'dunning-hours-paused-reactivated', {
      stillOpen: true,
    });
  });

  it('the API: bad input 400 naming the field and the rule, unknown schedule 422, the default listed first, nothing changed by a refusal', async () => {
    const refused = [
      [{ name: 'x', retry: { afterHours: 2, onDayOfMonth: 3 } }, 'body.retry'],
      [{ name: 'x', retry: { onDayOfMonth: 29, atHour: 9 } }, 'body.retry'],
      [{ name: ' ', retry: { afterHours: 2 } }, 'body.name'],
      [
        { name: 'x', retry: { afterHours: 2 }, noticeBeforeAttemptHours: -1 },
        'body.noticeBeforeAttemptHours',
      ],
      [
        { name: 'x', retry: { afterHours: 2 }, afterPause: { cancelAfterDays: 400 } },
        'body.afterPause.cancelAfterDays',
      ],
    ] as const;
    const before = (await call(t, 'GET', '/v1/dunning-schedules', undefined, t.viewerKey)).body
      .dunningSchedules.length;
    for (const [body, field] of refused) {
      const answer = await call(t, 'POST', '/v1/dunning-schedules', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      const fields = answer.body.error.problems.map((p: { field: string }) => p.field);
      expect(
        fields.some((named: string) => named.startsWith(field)),
        JSON.stringify(fields),
      ).toBe(true);
    }
    const listed = (await call(t, 'GET', '/v1/dunning-schedules', undefined, t.viewerKey)).body
      .dunningSchedules;
    expect(listed).toHaveLength(before);
    expect(listed[0]).toMatchObject({
      dunningScheduleId: 'default',
      isDefault: true,
      retry: { afterHours: 24 },
    });
    const payday = await schedule({ name: 'Payday 5th', retry: { onDayOfMonth: 5 } });
    expect(
      (await call(t, 'GET', `/v1/dunning-schedules/${payday}`, undefined, t.viewerKey)).body,
    ).toMatchObject({
      name: 'Payday 5th',
      retry: { onDayOfMonth: 5, atHour: 9 },
      noticeBeforeAttemptHours: 0,
      afterPause: { sendReactivationLink: false, remindEveryDays: 0, cancelAfterDays: 0 },
    });
    expect((await call(t, 'GET', '/v1/dunning-schedules/dun_nope', undefined, t.viewerKey)).status).toBe(404);
    const viewerCreates = await call(
      t,
      'POST',
      '/v1/dunning-schedules',
      { name: 'x', retry: { afterHours: 1 } },
      t.viewerKey,
    );
    expect(viewerCreates.status).toBe(403);

    const { subscriptionId } = await create(fixedMonthly(addMonths(await today(), 1)));
    const unknown = await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/dunning-schedule`, {
      dunningScheduleId: 'dun_nope',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.problems).toEqual([
      expect.objectContaining({ field: 'body.dunningScheduleId', rule: 'unknown_schedule' }),
    ]);
    const badEmail = await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/notice-contact`, {
      email: 'not-an-email',
      lang: 'vi',
    });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error.problems[0].field).toBe('body.email');
    const badLang = await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/notice-contact`, {
      email: null,
      lang: 'fr',
    });
    expect(badLang.status).toBe(400);
    const notices = (
      await call(t, 'GET', `/v1/subscriptions/${subscriptionId}/notices`, undefined, t.viewerKey)
    ).body;
    expect(notices).toMatchObject({ lang: 'vi', hasEmail: false, dunningScheduleId: 'default', notices: [] });
    expect(
      (await call(t, 'PUT', '/v1/subscriptions/s-none/dunning-schedule', { dunningScheduleId: payday }))
        .status,
    ).toBe(404);
    // Not authorized within its wait: ended, so nothing changes it.
    await skipTo((await t.env.currentTimeMs()) + HOUR);
    await until(subscriptionId, (s) => s.status === 'not_authorized', 'not authorized');
    const ended = await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/dunning-schedule`, {
      dunningScheduleId: payday,
    });
    expect(ended.status).toBe(409);
    expect(ended.body.error.code).toBe('subscription_finished');
  });

  it('a notice another flow asks for (subscription.notice_requested) is sent once in the subscriber’s language; an unknown kind is recorded skipped', async () => {
    const { subscriptionId } = await create(fixedMonthly(addMonths(await today(), 1)));
    const email = `${freshId('cu', 6)}@example.vn`;
    await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/notice-contact`, { email, lang: 'vi' });
    const priceKey = `${subscriptionId}/price_change/2027-01-10`;
    await t.db.transaction(async (trx) => {
      await recordEvent(trx, 'subscription.notice_requested', subscriptionId, {
        subscriptionId,
        noticeKey: priceKey,
        kind: 'price_change',
        data: { oldAmount: 30_000, newAmount: 25_000, effectiveDate: '2027-01-10' },
      });
      await recordEvent(trx, 'subscription.notice_requested', subscriptionId, {
        subscriptionId,
        noticeKey: `${subscriptionId}/birthday/1`,
        kind: 'birthday',
        data: {},
      });
    });
    const deps = { db: t.db, temporal: t.env.client, taskQueue: t.taskQueue };
    // Two sweeps (two API processes, or one twice) before the notice is written: still one message.
    await Promise.all([sweepNoticeRequests(deps), sweepNoticeRequests(deps)]);
    await untilKinds(email, ['price_change']);
    const [mail] = mailTo(email);
    expect(mail).toMatchObject({ lang: 'vi', subject: 'Thay đổi giá gói Gym', noticeKey: priceKey });
    expect(mail!.text).toContain('từ 30.000 ₫ thành 25.000 ₫');
    const timeline = await eventually(async () => {
      const answer = await call(
        t,
        'GET',
        `/v1/subscriptions/${subscriptionId}/notices`,
        undefined,
        t.viewerKey,
      );
      expect(
        answer.body.notices.map((n: { kind: string; status: string }) => [n.kind, n.status]).sort(),
      ).toEqual([
        ['birthday', 'skipped'],
        ['price_change', 'sent'],
      ]);
      return answer.body;
    });
    expect(timeline.notices).toHaveLength(2);
    await sweepNoticeRequests(deps);
    expect(kinds(email)).toEqual(['price_change']);
    await captureHistory(t.env.client, subscriptionNoticeWorkflowId(priceKey), 'price-change-sent');
  });
});
