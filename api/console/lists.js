/**
 * Lists whose APIs other parts of payrun serve (subscriptions, token payments, remittances). The
 * page reads rows generically — id, status, amounts, dates, workflow — so it works with whatever
 * fields those endpoints return.
 */
import { request } from './api.js';
import { announce, fill, fillIfChanged, h, table } from './dom.js';
import { dateTime, label, money } from './format.js';
import { errorBox, pageHeading, statusBadge, workflowLink } from './ui.js';

/** The rows of an answer: the answer itself when it is a list, else its first list-valued field. */
function rowsOf(answer) {
  if (Array.isArray(answer)) return answer;
  const list = Object.values(answer ?? {}).find(Array.isArray);
  return list ?? [];
}

const first = (row, names) =>
  names.map((name) => row[name]).find((value) => value !== undefined && value !== null);

function idOf(row) {
  return (
    first(row, ['id', 'subscriptionId', 'paymentId', 'remittanceId', 'orderId']) ??
    Object.entries(row).find(([name]) => /id$/i.test(name) && name !== 'workflowId')?.[1]
  );
}

/** Amounts are VND, except a foreign amount, which is in the row's base currency. */
const currencyOf = (name, row) => (/foreign/i.test(name) && row.baseCurrency) || row.currency || 'VND';

const amountFields = (row) =>
  Object.entries(row).filter(
    ([name, value]) => /amount/i.test(name) && (typeof value === 'number' || /^\d+$/.test(value)),
  );

export function genericListPage(main, ctx, list) {
  const body = h('div', { id: 'list-body' }, h('p', {}, 'Loading…'));
  const feedback = h('div');
  fill(main, pageHeading(list.title), h('p', {}, list.intro), feedback, body);

  const reactivate = async (id) => {
    try {
      await request(`/v1/subscriptions/${encodeURIComponent(id)}/reactivate`, { method: 'POST', body: {} });
      fill(feedback, h('p', { role: 'status', class: 'outcome good' }, `Subscription ${id} reactivated.`));
      announce(`Subscription ${id} reactivated.`);
      await load();
    } catch (error) {
      fill(feedback, errorBox(error, `Subscription ${id} was not reactivated`));
    }
  };

  /** A row action of the list (e.g. capture or cancel an authorized payment): POST, then reload. */
  const act = async (action, id) => {
    const base = list.endpoint.split('?')[0];
    try {
      await request(`${base}/${encodeURIComponent(id)}/${action.path}`, { method: 'POST', body: {} });
      const text = `${id} ${action.done}.`;
      fill(feedback, h('p', { role: 'status', class: 'outcome good' }, text));
      announce(text);
      await load();
    } catch (error) {
      fill(feedback, errorBox(error, `${id} was not ${action.done}`));
    }
  };
  const rowActions = (list.actions ?? []).filter((action) => ctx.can(action.duty));

  const render = (rows) => {
    if (!rows.length) return h('p', {}, 'Nothing to show.');
    const withActions = (list.reactivate && ctx.can('reactivate')) || rowActions.length > 0;
    return table({
      caption: `${rows.length} shown`,
      columns: ['Id', 'Status', 'Amounts', 'Created', 'Workflow', ...(withActions ? ['Action'] : [])],
      rows: rows.map((row) => {
        const status = first(row, ['status', 'state']);
        const paused = String(status).toLowerCase() === 'paused';
        const reason = first(row, [
          'pausedReason',
          'pauseReason',
          'statusReason',
          'needsAttention',
          'disabledReason',
        ]);
        const id = idOf(row);
        // An action that applies to one status only (Enable: a disabled endpoint) is offered there only.
        const actionsHere = rowActions.filter((action) => !action.when || action.when === String(status));
        return [
          String(id ?? '—'),
          h(
            'span',
            {},
            statusBadge(status ?? 'unknown'),
            reason ? h('span', { class: 'hint' }, ` ${reason}`) : null,
            row.holdExpiresAt
              ? h('span', { class: 'hint' }, ` held until ${dateTime(row.holdExpiresAt)}`)
              : null,
          ),
          h(
            'ul',
            { class: 'plain' },
            amountFields(row).map(([name, value]) =>
              h(
                'li',
                {},
                `${label(name.replace(/([a-z])([A-Z])/g, '$1 $2'))}: ${money(value, currencyOf(name, row))}`,
              ),
            ),
          ),
          dateTime(first(row, ['createdAt', 'created_at', 'created', 'startedAt'])),
          workflowLink(ctx.config, row.workflowId, 'Temporal') ?? '—',
          ...(withActions
            ? [
                actionsHere.length > 0 && id !== undefined
                  ? h(
                      'span',
                      { class: 'actions' },
                      actionsHere.map((action) =>
                        h(
                          'button',
                          { type: 'button', onclick: () => void act(action, id) },
                          `${action.label} ${id}`,
                        ),
                      ),
                    )
                  : paused && id !== undefined
                    ? h('button', { type: 'button', onclick: () => void reactivate(id) }, `Reactivate ${id}`)
                    : '—',
              ]
            : []),
        ];
      }),
    });
  };

  async function load() {
    try {
      const answer = await request(list.endpoint);
      const rows = rowsOf(answer);
      fillIfChanged(body, rows, render);
    } catch (error) {
      fillIfChanged(body, { error: error.message }, () =>
        errorBox(error, `${list.title} could not be loaded`),
      );
    }
  }
  void load();
  const timer = setInterval(() => void load(), 5000);
  return () => clearInterval(timer);
}
