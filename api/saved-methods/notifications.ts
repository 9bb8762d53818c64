import {
  findBindingByOrderId,
  findSavedMethodByInitialOrderId,
  findSavedMethodPaymentByOrderId,
  revokeSavedMethod,
} from '../../db/saved-methods/saved-methods';
import { formerIpnPaths, ipnPaths } from '../../platform/ipn-paths';
import {
  bindingResultSignal,
  savedMethodBindingWorkflowId,
  savedMethodPaymentResultSignal,
} from '../../contracts/saved-methods';
import { resultOf, sends, type NotificationChannel } from '../ipn/channel';

/** List-B results of bindings (with callbackToken) and of saved-method payments. */
export const savedMethodNotifications: NotificationChannel = {
  path: ipnPaths.savedMethods,
  formerPath: formerIpnPaths.savedMethods,
  summary: 'Receives binding and saved-method payment results (list B) from the gateway.',
  kind: 'payment.resultB',
  locate: async (db, orderId) => {
    const binding = await findBindingByOrderId(db, orderId);
    if (binding)
      return {
        workflowId: binding.workflow_id,
        expectedAmount: Number(binding.amount),
        // The callbackToken is not passed on: the binding reads it from the stored notification.
        delivery: sends(bindingResultSignal, ({ resultCode, message }) => ({ resultCode, message })),
      };
    const payment = await findSavedMethodPaymentByOrderId(db, orderId);
    if (!payment) return undefined;
    return {
      workflowId: payment.workflow_id,
      expectedAmount: Number(payment.amount),
      delivery: sends(savedMethodPaymentResultSignal, resultOf),
    };
  },
};

/** The customer removed a saved card in the app: the token is revoked (answered 204). */
export const unbindNotifications: NotificationChannel = {
  path: ipnPaths.unbind,
  formerPath: formerIpnPaths.unbind,
  summary: 'Receives the unbind call (token removed by the customer); answers 204.',
  kind: 'token.unbind',
  locate: async (db, orderId) => {
    const method = await findSavedMethodByInitialOrderId(db, orderId);
    if (!method) return undefined;
    return {
      workflowId: savedMethodBindingWorkflowId(method.binding_id),
      expectedAmount: 0,
      delivery: {
        noWorkflow: 'the record is the state: payments read it before any call',
        record: () => revokeSavedMethod(db, method.method_id),
      },
    };
  },
};
