// @ts-check
/** Saved methods: a customer's saved cards and wallets, masked, with revoke (role payments). */
import { request } from './api.js';
import { fill, h, table } from './dom.js';
import { dateTime, label } from './format.js';
import { t } from './i18n.js';
import { actionButton, errorBox, pageHeading, statusBadge } from './ui.js';

/** @typedef {import('./types.js').ApiRecord} ApiRecord */

/**
 * @param {HTMLElement} main
 * @param {import('./types.js').Ctx} ctx
 * @param {URLSearchParams} query
 */
export function methodsPage(main, ctx, query) {
  const customer = query.get('customer') ?? '';
  const input = h('input', {
    id: 'customer-id',
    type: 'search',
    value: customer,
    maxlength: '60',
    required: true,
  });
  const body = h('div', { id: 'methods-body' });
  const feedback = h('div', { id: 'action-feedback' });
  fill(
    main,
    pageHeading(t('Saved methods')),
    h(
      'p',
      {},
      t("A customer's saved cards and wallets (masked), and revoke. The token itself is never shown."),
    ),
    h(
      'form',
      {
        class: 'filters',
        role: 'search',
        onsubmit: (event) => {
          event.preventDefault();
          ctx.navigate(`#/methods?customer=${encodeURIComponent(input.value.trim())}`);
        },
      },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'customer-id' }, t('Customer id (partnerClientId)')),
        input,
      ),
      h('button', { type: 'submit', id: 'find-methods' }, t('Show methods')),
    ),
    feedback,
    body,
  );
  if (!customer) return;
  async function load() {
    try {
      const { methods } = await request(
        `/v1/customers/${encodeURIComponent(customer)}/saved-methods?all=true`,
      );
      fill(
        body,
        methods.length
          ? table({
              caption: t('Methods of {customer}', { customer }),
              columns: [t('Method'), t('Kind'), t('Shown as'), t('Status'), t('Saved'), t('Action')],
              className: 'methods',
              rows: methods.map((/** @type {ApiRecord} */ method) => [
                method.methodId,
                label(method.kind),
                method.last4
                  ? `•••• ${method.last4}${method.cardType ? ` (${method.cardType})` : ''}`
                  : (method.walletAlias ?? method.bankCode ?? '—'),
                statusBadge(method.status),
                dateTime(method.createdAt),
                method.status === 'active' && ctx.can('confirmPayments')
                  ? actionButton({
                      id: `revoke-${method.methodId}`,
                      label: t('Revoke'),
                      danger: true,
                      run: () =>
                        request(`/v1/saved-methods/${encodeURIComponent(method.methodId)}`, {
                          method: 'DELETE',
                        }),
                      done: t('Method {id} revoked.', { id: method.methodId }),
                      refresh: load,
                      feedback,
                    })
                  : '—',
              ]),
            })
          : h('p', {}, t('This customer has no saved method.')),
      );
    } catch (error) {
      fill(body, errorBox(error, t('The methods could not be loaded')));
    }
  }
  void load();
}
