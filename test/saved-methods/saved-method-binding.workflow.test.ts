/** savedMethodBinding and savedMethodDeletion with fake activities: the link, IPN or cbQuery, expiry, the token exchange. */
import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../gateway';
import { savedMethodBinding, savedMethodDeletion } from '../../workflows/saved-methods/saved-method-binding';
import {
  BINDING_REFUSED,
  bindingLinksUpdate,
  bindingResultSignal,
  bindingStatusQuery,
  savedMethodBindingWorkflowId,
  savedMethodDeletionWorkflowId,
  type BindingInput,
} from '../../contracts/saved-methods';
import { eventually } from '../support/wait';
import {
  inTurn,
  losingFirst,
  ok,
  refusal,
  useWorkflowHarness,
  type Fakes,
  type Run,
} from '../support/workflow-harness';

const h = useWorkflowHarness();

const MINUTE = 60_000;
const timing: BindingInput['timing'] = {
  gatewayAttemptTimeout: '1 minute',
  callbackWait: '2 minutes',
  linkValidity: '15 minutes',
};
const links = { payUrl: 'https://pay.example/x', deeplink: 'app://x' };
const happy: Fakes = {
  recordBinding: ok,
  createBinding: async () => ({ ok: true as const, links }),
  exchangeBindingToken: async () => ({ ok: true as const, methodId: 'pm-1' }),
};
const cbQuery = (resultCode: number) => ({ resultCode, message: `cbQuery ${resultCode}` });

async function bind(fakes: Fakes) {
  const bindingId = h.id('b');
  const run = await h.start(savedMethodBinding, {
    workflowId: savedMethodBindingWorkflowId(bindingId),
    args: [{ bindingId, timing }],
    fakes: { ...happy, ...fakes },
  });
  return { run, bindingId };
}
const awaitingCustomer = (run: Run<typeof savedMethodBinding>) =>
  eventually(async () => expect(await run.handle.query(bindingStatusQuery)).toBe('awaiting_customer'));

describe('savedMethodBinding', () => {
  it('the gateway refuses the link: failed, and the API is told why', async () => {
    const { run, bindingId } = await bind({
      createBinding: async () => ({ ok: false as const, resultCode: 22, message: 'amount out of range' }),
    });
    const refused = await refusal(run.handle.executeUpdate(bindingLinksUpdate));
    expect(refused.type).toBe(BINDING_REFUSED);
    expect(refused.details?.[0]).toEqual({ resultCode: 22 });
    expect(await run.result()).toEqual({ status: 'failed', resultCode: 22, message: 'amount out of range' });
    expect(run.inputs('recordBinding')).toEqual([
      { bindingId, status: 'failed', resultCode: 22, message: 'amount out of range' },
    ]);
  });

  it('IPN 0: the token is exchanged once, active with the method id; waits are ignored', async () => {
    const { run, bindingId } = await bind({});
    expect(await run.handle.executeUpdate(bindingLinksUpdate)).toEqual(links);
    await awaitingCustomer(run);
    await run.handle.signal(bindingResultSignal, { resultCode: 1000, message: 'waiting' });
    await run.handle.signal(bindingResultSignal, { resultCode: 0, message: 'approved' });
    await run.handle.signal(bindingResultSignal, { resultCode: 1006, message: 'late' });
    expect(await run.result()).toEqual({
      status: 'active',
      methodId: 'pm-1',
      resultCode: 0,
      message: 'Saved',
    });
    expect(run.inputs('exchangeBindingToken')).toEqual([{ bindingId }]);
    expect(run.inputs('recordBinding').map((record) => record.status)).toEqual(['binding', 'active']);
    expect(run.calls('queryBindingCallback')).toEqual([]);
  });

  it.each([
    [1006, 'failed'],
    [1005, 'expired'],
  ] as const)('IPN %i → %s, no token exchanged', async (code, status) => {
    const { run } = await bind({});
    await awaitingCustomer(run);
    await run.handle.signal(bindingResultSignal, { resultCode: code, message: 'no' });
    expect(await run.result()).toEqual({ status, resultCode: code, message: 'no' });
    expect(run.calls('exchangeBindingToken')).toEqual([]);
  });

  it('no IPN: cbQuery every callbackWait while the customer has not acted, then the outcome', async () => {
    const { run, bindingId } = await bind({
      queryBindingCallback: inTurn(cbQuery(1000), cbQuery(7000), cbQuery(0)),
    });
    expect(await run.result()).toMatchObject({ status: 'active', methodId: 'pm-1' });
    expect(run.inputs('queryBindingCallback')).toEqual([1, 2, 3].map((attempt) => ({ bindingId, attempt })));
    const steps = [...run.calls('createBinding'), ...run.calls('queryBindingCallback')];
    expect(steps.slice(1).map((call, i) => Math.round(run.gap(steps[i]!, call) / MINUTE))).toEqual([2, 2, 2]);
  });

  it('cbQuery answers a refusal: failed', async () => {
    const { run } = await bind({ queryBindingCallback: async () => cbQuery(1006) });
    expect(await run.result()).toMatchObject({ status: 'failed', resultCode: 1006 });
  });

  it('the customer never acts: expired when the link (15 minutes + grace) is over', async () => {
    const { run } = await bind({ queryBindingCallback: async () => cbQuery(1000) });
    expect(await run.result()).toEqual({
      status: 'expired',
      resultCode: codeOf('link_expired'),
      message: 'The customer did not use the link in time.',
    });
    const [create] = run.calls('createBinding');
    const queries = run.calls('queryBindingCallback');
    expect(run.gap(create!, queries.at(-1)!)).toBeGreaterThanOrEqual(16 * MINUTE);
    expect(queries).toHaveLength(8);
  });

  it('the token exchange is refused: failed with its code', async () => {
    const { run } = await bind({
      exchangeBindingToken: async () => ({ ok: false as const, resultCode: 2001, message: 'bad token' }),
    });
    await awaitingCustomer(run);
    await run.handle.signal(bindingResultSignal, { resultCode: 0, message: 'approved' });
    expect(await run.result()).toEqual({ status: 'failed', resultCode: 2001, message: 'bad token' });
  });
});

describe('savedMethodDeletion', () => {
  const remove = (fakes: Fakes) => {
    const methodId = h.id('pm');
    return h.start(savedMethodDeletion, {
      workflowId: savedMethodDeletionWorkflowId(methodId),
      args: [{ methodId, gatewayAttemptTimeout: '1 minute' }],
      fakes,
    });
  };
  const deleted = { status: 'deleted' as const, resultCode: 0, message: 'ok' };

  it('deleted at the gateway: the answer is the result', async () => {
    const run = await remove({ deleteSavedMethodAtGateway: async () => deleted });
    expect(await run.result()).toEqual(deleted);
  });

  it('a lost answer is re-sent for the same method', async () => {
    const run = await remove({
      deleteSavedMethodAtGateway: losingFirst('tokenization.delete', async () => deleted),
    });
    expect(await run.result()).toEqual(deleted);
    const [first, second] = run.calls('deleteSavedMethodAtGateway');
    expect(second!.input).toEqual(first!.input);
  });

  it('the gateway refuses: the workflow fails as DeleteRefused with the code, once', async () => {
    const run = await remove({
      deleteSavedMethodAtGateway: async () => {
        throw ApplicationFailure.nonRetryable('The gateway refused the deletion: no', 'delete_refused', {
          resultCode: 99,
        });
      },
    });
    const failure = await run.failure();
    expect(failure.type).toBe('delete_refused');
    expect(failure.details?.[0]).toEqual({ resultCode: 99 });
    expect(run.calls('deleteSavedMethodAtGateway')).toHaveLength(1);
  });
});
