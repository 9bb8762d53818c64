// @ts-check
/**
 * Plans (#/plans): the catalogue new subscriptions are created from, with how many subscriptions each has,
 * and for the billing role a form to add one. A plan's page (#/plans/<code>) shows its subscriptions, the
 * dunning schedule they follow, its price changes and how far each has got, and for the billing role a
 * price change that is previewed before it is confirmed, and archiving behind a confirmation.
 *
 * Money: the page only asks. The API and each subscription's workflow decide what a cycle charges, and
 * never more than the customer authorized; the preview shows what they will do, and the confirmation
 * sends exactly the values previewed (changing any of them withdraws the confirmation).
 */
import { newIdempotencyKey, post, request } from './api.js';
import { announce, fill, fillIfChanged, h, table } from './dom.js';
import { count, dateOnly, dateTime, label, vnd } from './format.js';
import { language, t } from './i18n.js';
import { createForm, errorBox, facts, field, pageHeading, poll, selectField, statusBadge } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */
/** @typedef {import('./types.js').Ctx} Ctx */
/** @typedef {import('./types.js').Leave} Leave */

/** The gateway's subscription frequencies (gateway/limits.ts SUBSCRIPTION_FREQUENCIES), in its order. */
const FREQUENCIES = ['DAILY', 'WEEKLY', 'BI_WEEKLY', 'MONTHLY', 'BI_MONTHLY', 'QUARTERLY', 'SEMI_ANNUALLY'];
/** The smallest subscription amount the gateway takes (gateway/limits.ts SUBSCRIPTION_MIN_AMOUNT). */
const MIN_AMOUNT = '1000';

/**
 * The plan's name in the page's language.
 * @param {ApiRecord} plan
 */
const planName = (plan) => (language() === 'vi' ? plan.name.vi : plan.name.en);

/** @param {number | null | undefined} days */
const trialText = (days) => (days ? t('{n} days', { n: count(days) }) : t('No trial'));

/** @param {boolean} yes */
const yesNo = (yes) => (yes ? t('Yes') : t('No'));

/** @param {string} choice What happens at the cycle to a customer who has not authorized the new amount. */
const fallbackText = (choice) =>
  choice === 'flag' ? t('Flag the subscription and charge nothing') : t('Charge the old amount');

/**
 * A dunning schedule in words: when the retry runs, the notice before each attempt, what follows the pause.
 * @param {ApiRecord} schedule
 * @returns {Array<[string, string]>}
 */
function scheduleFacts(schedule) {
  const retry = schedule.retry.afterHours
    ? t('{hours} hours after the failed charge', { hours: count(schedule.retry.afterHours) })
    : t('On day {day} of the month at {hour}:00 (GMT+7)', {
        day: schedule.retry.onDayOfMonth,
        hour: String(schedule.retry.atHour).padStart(2, '0'),
      });
  const after = schedule.afterPause;
  return [
    [t('Schedule'), schedule.isDefault ? t('Default schedule') : schedule.name],
    [t('Retry after insufficient funds'), retry],
    [
      t('Notice before each attempt'),
      schedule.noticeBeforeAttemptHours
        ? t('{hours} hours before', { hours: count(schedule.noticeBeforeAttemptHours) })
        : t('None'),
    ],
    [t('Reactivation link when paused'), yesNo(after.sendReactivationLink)],
    [
      t('Reminders while paused'),
      after.remindEveryDays ? t('Every {n} days', { n: count(after.remindEveryDays) }) : t('None'),
    ],
    [
      t('Cancelled after the pause'),
      after.cancelAfterDays ? t('After {n} days', { n: count(after.cancelAfterDays) }) : t('Never'),
    ],
  ];
}

/**
 * @param {Ctx} ctx
 * @param {ApiRecord[]} schedules
 */
function newPlanForm(ctx, schedules) {
  const code = field('plan-code', t('Code (letters, digits, - and _)'), {
    required: true,
    maxlength: '40',
    pattern: '[A-Za-z0-9][A-Za-z0-9_\\-]*',
  });
  const nameVi = field('plan-name-vi', t('Name in Vietnamese'), { required: true, maxlength: '100' });
  const nameEn = field('plan-name-en', t('Name in English'), { required: true, maxlength: '100' });
  const amount = field('plan-amount', t('Amount per cycle (VND)'), {
    type: 'number',
    required: true,
    min: MIN_AMOUNT,
    step: '1',
    inputmode: 'numeric',
  });
  const frequency = selectField(
    'plan-frequency',
    t('Frequency'),
    FREQUENCIES.map((value) => [value, label(value)]),
  );
  frequency.input.value = 'MONTHLY';
  const type = selectField('plan-type', t('Type'), [
    ['FIXED', t('Fixed: the same amount every cycle')],
    ['VARIABLE', t('Variable: an amount reported before each cycle')],
  ]);
  const trial = field('plan-trial', t('Free trial in days (optional)'), {
    type: 'number',
    min: '1',
    max: '365',
    step: '1',
    inputmode: 'numeric',
  });
  const dunning = selectField(
    'plan-dunning',
    t('Dunning schedule'),
    schedules.map((schedule) => [
      schedule.dunningScheduleId,
      schedule.isDefault ? t('Default schedule') : schedule.name,
    ]),
  );
  return createForm({
    id: 'plan-form',
    fields: [code, nameVi, nameEn, amount, frequency, type, trial, dunning],
    submitLabel: t('Create plan'),
    submit: () =>
      post('/v1/plans', {
        code: code.input.value.trim(),
        name: { en: nameEn.input.value, vi: nameVi.input.value },
        amount: Number(amount.input.value),
        currency: 'VND',
        frequency: frequency.input.value,
        type: type.input.value,
        ...(trial.input.value ? { trialDays: Number(trial.input.value) } : {}),
        dunningScheduleId: dunning.input.value,
      }),
    onCreated: (plan) => ctx.navigate(`#/plans/${encodeURIComponent(plan.planId)}`),
  });
}

/** @param {ApiRecord[]} plans */
function plansTable(plans) {
  if (!plans.length) return h('p', { id: 'plans-empty' }, t('No plan yet.'));
  return table({
    caption: t('Every plan, active first'),
    columns: [
      t('Plan'),
      t('Name'),
      t('Amount'),
      t('Frequency'),
      t('Type'),
      t('Free trial'),
      t('Subscriptions billing / all'),
      t('Status'),
    ],
    numeric: [2, 6],
    className: 'list list-plans',
    rows: plans.map((plan) => [
      h('a', { href: `#/plans/${encodeURIComponent(plan.planId)}` }, plan.planId),
      planName(plan),
      vnd(plan.amount),
      label(plan.frequency),
      label(plan.type),
      trialText(plan.trialDays),
      `${count(plan.subscriptionCount.billing)} / ${count(plan.subscriptionCount.total)}`,
      statusBadge(plan.status),
    ]),
  });
}

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @returns {Leave}
 */
export function plansPage(main, ctx) {
  const list = h('div', { id: 'plans-list' }, h('p', {}, t('Loading…')));
  const form = h('section', { id: 'new-plan', 'aria-labelledby': 'new-plan-heading' });
  fill(
    main,
    pageHeading(t('Plans')),
    h(
      'p',
      {},
      t(
        'New subscriptions are created from a plan: its amount, frequency and type, and the dunning schedule they follow. A price change applies from a chosen cycle; a customer is never charged more than they authorized.',
      ),
    ),
    form,
    list,
  );
  if (ctx.can('plans')) {
    void request('/v1/dunning-schedules')
      .then((answer) =>
        fill(
          form,
          h('h2', { id: 'new-plan-heading' }, t('New plan')),
          newPlanForm(ctx, answer.dunningSchedules),
        ),
      )
      .catch((error) => fill(form, errorBox(error, t('The dunning schedules could not be loaded'))));
  }
  return poll(async () => {
    try {
      const answer = await request('/v1/plans');
      fillIfChanged(list, answer.plans, plansTable);
    } catch (error) {
      fillIfChanged(list, { error: String(error) }, () =>
        errorBox(error, t('The plans could not be loaded')),
      );
    }
  }, 5000);
}

/** @param {ApiRecord[]} rows */
function subscriptionsTable(rows) {
  if (!rows.length) return h('p', { id: 'plan-subscriptions-empty' }, t('No subscription yet.'));
  return table({
    caption: t('The newest subscriptions of this plan'),
    columns: [t('Subscription'), t('Status'), t('Customer'), t('Amount'), t('Next charge'), t('Created')],
    numeric: [3],
    className: 'compact',
    rows: rows.map((row) => [
      h('a', { href: `#/subscriptions/${encodeURIComponent(row.subscriptionId)}` }, row.subscriptionId),
      statusBadge(row.status),
      row.partnerClientId,
      vnd(row.recurringAmount),
      dateOnly(row.nextPaymentDate),
      dateTime(row.createdAt),
    ]),
  });
}

/** @param {ApiRecord[]} changes */
function priceChangesTable(changes) {
  if (!changes.length) return h('p', { id: 'price-changes-empty' }, t('No price change yet.'));
  return table({
    caption: t('Price changes, newest first'),
    columns: [
      t('From the cycle on or after'),
      t('New amount'),
      t('Without a new authorization'),
      t('Subscriptions reached'),
      t('Pending'),
      t('Settled'),
      t('By status'),
      t('Scheduled by'),
    ],
    numeric: [1, 3, 4, 5],
    className: 'compact price-changes',
    rows: changes.map((change) => [
      dateOnly(change.effectiveCycle),
      vnd(change.newAmount),
      fallbackText(change.ifNotReauthorized),
      count(change.subscriptions),
      count(change.pending),
      count(change.settled),
      Object.entries(change.statuses)
        .map(([status, n]) => `${label(status)}: ${count(n)}`)
        .join(', ') || '—',
      `${change.createdBy} · ${dateTime(change.createdAt)}`,
    ]),
  });
}

/**
 * What a price change would do, subscription by subscription, as the API previewed it.
 * @param {ApiRecord} preview
 */
function previewTable(preview) {
  /** @type {ApiRecord[]} */
  const rows = preview.subscriptions;
  const asked = rows.filter((row) => row.needsReauthorization).length;
  return [
    h(
      'p',
      { id: 'price-preview-summary' },
      t(
        'Subscriptions reached: {n}; asked to authorize the new amount: {asked}. New subscriptions take {amount} from now on.',
        { n: count(rows.length), asked: count(asked), amount: vnd(preview.newAmount) },
      ),
    ),
    rows.length
      ? table({
          caption: t('Who the change reaches and what each is charged'),
          columns: [
            t('Subscription'),
            t('Customer'),
            t('Status'),
            t('First cycle at the new price'),
            t('Old amount'),
            t('New amount'),
            t('Re-authorization needed'),
            t('Charged without it'),
          ],
          numeric: [4, 5, 7],
          className: 'compact price-preview',
          rows: rows.map((row) => [
            row.subscriptionId,
            row.customer,
            statusBadge(row.status),
            dateOnly(row.cycleDate),
            vnd(row.currentAmount),
            vnd(row.newAmount),
            yesNo(row.needsReauthorization),
            row.chargeIfNotReauthorized ? vnd(row.chargeIfNotReauthorized) : t('Nothing: flagged'),
          ]),
        })
      : h('p', {}, t('No subscription of this plan is billed on or after that day.')),
  ];
}

/**
 * New amount, effective cycle and the fallback, previewed first; confirming sends exactly what was previewed.
 * @param {string} planId
 * @param {() => Promise<void>} refresh
 */
function priceChangeForm(planId, refresh) {
  const base = `/v1/plans/${encodeURIComponent(planId)}/price-changes`;
  const amount = field('price-amount', t('New amount per cycle (VND)'), {
    type: 'number',
    required: true,
    min: MIN_AMOUNT,
    step: '1',
    inputmode: 'numeric',
  });
  const cycle = field('price-cycle', t('From the first cycle on or after (GMT+7)'), {
    type: 'date',
    required: true,
  });
  const fallback = selectField(
    'price-fallback',
    t('If the customer has not authorized a new amount by then'),
    [
      ['charge_old', fallbackText('charge_old')],
      ['flag', fallbackText('flag')],
    ],
  );
  const preview = h('div', { id: 'price-preview', 'aria-live': 'polite' });
  const feedback = h('div', { id: 'price-feedback' });
  /** The body the shown preview was made from; null once a field changes. */
  /** @type {ApiRecord | null} */
  let previewed = null;
  /** One key per previewed change: confirming again after an error finds the change the first try recorded. */
  let previewKey = newIdempotencyKey();
  const withdraw = () => {
    previewed = null;
    previewKey = newIdempotencyKey();
    fill(preview);
  };
  const confirm = async (/** @type {Event} */ event) => {
    const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
    if (!previewed) return;
    button.disabled = true;
    fill(feedback, h('p', { role: 'status' }, t('Sending…')));
    try {
      await post(base, previewed, { 'idempotency-key': previewKey });
      withdraw();
      fill(
        feedback,
        h('p', { role: 'status', class: 'outcome good', id: 'price-outcome' }, t('Price change scheduled.')),
      );
      await refresh();
    } catch (error) {
      fill(feedback, errorBox(error, t('The price change was not scheduled')));
      button.disabled = false;
    }
  };
  return h(
    'form',
    {
      class: 'card',
      id: 'price-form',
      oninput: withdraw,
      onsubmit: async (event) => {
        event.preventDefault();
        const body = {
          newAmount: Number(amount.input.value),
          effectiveCycle: cycle.input.value,
          ifNotReauthorized: fallback.input.value,
        };
        fill(feedback);
        fill(preview, h('p', { role: 'status' }, t('Loading…')));
        try {
          const answer = await post(`${base}/preview`, body);
          previewed = body;
          fill(
            preview,
            previewTable(answer),
            h(
              'p',
              { class: 'actions' },
              h(
                'button',
                { type: 'button', class: 'primary', id: 'price-confirm', onclick: confirm },
                t('Confirm the price change'),
              ),
            ),
          );
        } catch (error) {
          fill(preview, errorBox(error, t('The preview could not be made')));
        }
      },
    },
    amount.element,
    cycle.element,
    fallback.element,
    h(
      'p',
      { class: 'hint' },
      t(
        'A customer is never charged more than they authorized: a new amount asks each subscriber to authorize it (a link, a notice, reminders) before its cycle.',
      ),
    ),
    h('p', { class: 'actions' }, h('button', { type: 'submit', id: 'price-preview-button' }, t('Preview'))),
    preview,
    feedback,
  );
}

/**
 * Archiving asks first: the plan takes no new subscriptions once archived, and that is not undone here.
 * @param {ApiRecord} plan
 * @param {() => Promise<void>} refresh
 * @param {HTMLElement} feedback Outside the controls, which are rebuilt once the plan is archived.
 */
function archiveControl(plan, refresh, feedback) {
  const area = h('div', { id: 'archive-area' });
  const ask = () =>
    fill(
      area,
      h(
        'div',
        { class: 'decision', role: 'group', 'aria-labelledby': 'archive-question' },
        h(
          'p',
          { id: 'archive-question' },
          t('Archive {name}? It takes no new subscriptions; its subscriptions go on billing.', {
            name: planName(plan),
          }),
        ),
        h(
          'p',
          { class: 'actions' },
          h(
            'button',
            { type: 'button', class: 'danger', id: 'archive-confirm', onclick: archive },
            t('Archive'),
          ),
          h('button', { type: 'button', id: 'archive-keep', onclick: offer }, t('Keep the plan')),
        ),
      ),
    );
  const offer = () =>
    fill(
      area,
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'button', id: 'archive', onclick: ask }, t('Archive plan')),
      ),
    );
  const archive = async (/** @type {Event} */ event) => {
    /** @type {HTMLButtonElement} */ (event.currentTarget).disabled = true;
    try {
      await post(`/v1/plans/${encodeURIComponent(plan.planId)}/archive`, {});
      fill(
        feedback,
        h('p', { role: 'status', class: 'outcome good', id: 'archive-outcome' }, t('Plan archived.')),
      );
      announce(t('Plan archived.'));
      await refresh();
    } catch (error) {
      fill(feedback, errorBox(error, t('The plan was not archived')));
      offer();
    }
  };
  offer();
  return area;
}

/**
 * @param {HTMLElement} main
 * @param {Ctx} ctx
 * @param {string} planId
 * @returns {Leave}
 */
export function planPage(main, ctx, planId) {
  const path = `/v1/plans/${encodeURIComponent(planId)}`;
  const summary = h('section', { id: 'plan-summary', 'aria-label': t('Summary') }, h('p', {}, t('Loading…')));
  const schedule = h('section', { id: 'plan-dunning', 'aria-labelledby': 'plan-dunning-heading' });
  const subscriptionsArea = h('div', { id: 'plan-subscriptions' });
  const changesArea = h('div', { id: 'plan-price-changes' });
  const actions = h('section', { id: 'plan-actions' });
  const feedback = h('div', { id: 'plan-feedback' });
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/plans' }, `← ${t('Plans')}`)),
    pageHeading(t('Plan {id}', { id: planId })),
    summary,
    feedback,
    actions,
    h('h2', {}, t('Price changes')),
    changesArea,
    schedule,
    h('h2', {}, t('Subscriptions')),
    subscriptionsArea,
  );
  let actionsShown = '';
  const refresh = async () => {
    /** @type {ApiRecord} */
    let plan;
    try {
      plan = await request(path);
    } catch (error) {
      fillIfChanged(summary, { error: String(error) }, () =>
        errorBox(error, t('This plan could not be loaded')),
      );
      return;
    }
    fillIfChanged(summary, plan, () =>
      facts([
        [t('Status'), h('span', { id: 'plan-status' }, statusBadge(plan.status))],
        [t('Name in Vietnamese'), h('span', { lang: 'vi' }, plan.name.vi)],
        [t('Name in English'), h('span', { lang: 'en' }, plan.name.en)],
        [t('Amount for new subscriptions'), h('span', { id: 'plan-amount' }, vnd(plan.amount))],
        [t('Frequency'), label(plan.frequency)],
        [t('Type'), label(plan.type)],
        [t('Free trial'), trialText(plan.trialDays)],
        [t('Created by'), plan.createdBy],
        [t('Created'), dateTime(plan.createdAt)],
        [t('Archived'), plan.archivedAt ? dateTime(plan.archivedAt) : null],
      ]),
    );
    // Built once per plan status: a poll must not wipe what the operator is typing.
    if (ctx.can('plans') && actionsShown !== plan.status) {
      actionsShown = plan.status;
      fill(
        actions,
        h('h2', {}, t('Change the price')),
        plan.type === 'FIXED'
          ? priceChangeForm(planId, refresh)
          : h(
              'p',
              {},
              t('A variable plan has no price to change: its amount is reported before each cycle.'),
            ),
        plan.status === 'active' ? archiveControl(plan, refresh, feedback) : null,
      );
    }
    const [changes, subscriptions, dunning] = await Promise.allSettled([
      request(`${path}/price-changes`),
      request(`${path}/subscriptions?limit=50`),
      request(`/v1/dunning-schedules/${encodeURIComponent(plan.dunningScheduleId)}`),
    ]);
    if (changes.status === 'fulfilled')
      fillIfChanged(changesArea, changes.value.priceChanges, priceChangesTable);
    else fillIfChanged(changesArea, { error: String(changes.reason) }, () => errorBox(changes.reason));
    if (subscriptions.status === 'fulfilled')
      fillIfChanged(subscriptionsArea, subscriptions.value.subscriptions, subscriptionsTable);
    else
      fillIfChanged(subscriptionsArea, { error: String(subscriptions.reason) }, () =>
        errorBox(subscriptions.reason),
      );
    fillIfChanged(
      schedule,
      dunning.status === 'fulfilled' ? dunning.value : { error: String(dunning.reason) },
      () => [
        h('h2', { id: 'plan-dunning-heading' }, t('Dunning schedule of its new subscriptions')),
        dunning.status === 'fulfilled' ? facts(scheduleFacts(dunning.value)) : errorBox(dunning.reason),
      ],
    );
  };
  return poll(async () => {
    await refresh();
  }, 5000);
}
