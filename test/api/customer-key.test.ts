/**
 * Search attributes hold no personal data: a subscription started for a customer whose partnerClientId
 * is an email carries, in Temporal visibility, only its customer key (an HMAC under CUSTOMER_KEY_SECRET),
 * and search by customer still works through the API, which hashes the id the same way.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerKeyer } from '../../platform/customer-key';
import { payrunCustomer } from '../../contracts/shared';
import { callApi, newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { TEST_CUSTOMER_KEY_SECRET, testApiSettings } from '../support/settings';
import { eventually } from '../support/wait';

// No worker: the API starts the workflow and answers without the gateway's links after 200 ms.
const settings = testApiSettings();
const t = useApiOnDevServer({ subscriptions: { ...settings.subscriptions, linksWaitMs: 200 } });

const run = randomUUID().slice(0, 8);
const email = `ann.${run}@example.com`;
const subscriptionId = `sub-ck_${run}`;
let billing: string;
let viewer: string;

beforeAll(async () => {
  billing = await newKey(t.db, ['billing']);
  viewer = await newKey(t.db, ['viewer']);
});
afterAll(async () => {
  await t.deps?.temporal.workflow
    .getHandle(`subscription/${subscriptionId}`)
    .terminate('test over')
    .catch(() => {});
});

describe('the PayrunCustomer search attribute', () => {
  it('holds the keyed hash of partnerClientId, never the id, and search by customer finds the workflow', async () => {
    const created = await callApi(t.api, billing, 'POST', '/v1/subscriptions', {
      subscriptionId,
      partnerClientId: email,
      amount: 100_000,
      subscriptionInfo: { name: 'Gym', type: 'FIXED', recurringAmount: 100_000, frequency: 'MONTHLY' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const described = await t.deps.temporal.workflow.getHandle(`subscription/${subscriptionId}`).describe();
    const customer = described.typedSearchAttributes.get(payrunCustomer);
    expect(customer).toBe(customerKeyer(TEST_CUSTOMER_KEY_SECRET)(email));
    expect(customer).toMatch(/^ck_[0-9a-f]{32}$/);
    // Nothing in visibility names the customer: not the email, not its local part.
    expect(JSON.stringify(described.raw.workflowExecutionInfo?.searchAttributes)).not.toContain(run);
    expect(JSON.stringify(described.typedSearchAttributes)).not.toContain('example.com');

    const found = await eventually(async () => {
      const answer = await callApi(
        t.api,
        billing,
        'GET',
        `/v1/customers/${encodeURIComponent(email)}/workflows`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.workflows.map((w: { workflowId: string }) => w.workflowId)).toContain(
        `subscription/${subscriptionId}`,
      );
      return answer.body;
    });
    expect(found.customerKey).toBe(customer);
    expect(found.visibilityQuery).toBe(`PayrunCustomer = '${customer}'`);

    // Another customer's search does not find it.
    const other = await callApi(t.api, billing, 'GET', `/v1/customers/bob.${run}%40example.com/workflows`);
    expect(other.status).toBe(200);
    expect(other.body.workflows).toEqual([]);

    // A viewer sees customers masked, so the search must not tell it whether an email is a customer:
    // the same refusal for the customer's email as for one nobody uses.
    const asViewer = async (id: string) => {
      const answer = await callApi(t.api, viewer, 'GET', `/v1/customers/${encodeURIComponent(id)}/workflows`);
      // Each answer carries its own requestId; everything else must be the same.
      const { requestId: _requestId, ...error } = answer.body.error ?? {};
      return { status: answer.status, body: { ...answer.body, error } };
    };
    const ofCustomer = await asViewer(email);
    const ofStranger = await asViewer(`bob.${run}@example.com`);
    expect(ofCustomer.status).toBe(403);
    expect(ofCustomer.body.error.code).toBe('forbidden');
    expect(JSON.stringify(ofCustomer.body)).not.toContain('ck_');
    expect(ofStranger).toEqual(ofCustomer);
  });

  it('is keyed: another secret gives another key, so a list of emails hashed without it matches nothing', () => {
    const key = customerKeyer(TEST_CUSTOMER_KEY_SECRET)(email);
    expect(customerKeyer('another-secret-of-at-least-32-characters')(email)).not.toBe(key);
    expect(customerKeyer(TEST_CUSTOMER_KEY_SECRET)(email.toUpperCase())).not.toBe(key);
  });
});
