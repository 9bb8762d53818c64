/**
 * Result codes read with the operation that answered them. Apart from result-codes.ts because it needs the
 * operation table: workflows import result codes, and each workflow start evaluates its imports again.
 */
import { isOperationName, operationSpec, type OperationName } from './operations';
import type { NotificationKind } from './operations/types';
import { resultCodeInfo, type Classification } from './result-codes';

/**
 * What to do with `resultCode` returned by `source` (an operation's response, or a notification).
 * Unknown codes are final failures: acting on a guess could move money twice.
 */
export function classifyResult(source: OperationName | NotificationKind, resultCode: number): Classification {
  const info = resultCodeInfo(resultCode);
  const base: Classification = info
    ? {
        code: resultCode,
        meaning: info.meaning,
        final: info.final,
        action: info.action,
        outcome: info.outcome,
        known: true,
      }
    : {
        code: resultCode,
        meaning: 'Unknown result code',
        final: true,
        action: 'final-failure',
        outcome: 'failed',
        known: false,
      };
  if (!isOperationName(source)) return base;
  const operation = operationSpec(source);
  const override = operation.results?.[resultCode];
  // A create's 0 means "the order exists"; the money outcome comes later (customer, IPN).
  const successAction =
    resultCode === 0 && operation.successAction && operation.successAction !== 'success'
      ? { action: operation.successAction, final: false, meaning: 'Accepted; outcome follows' }
      : {};
  return {
    ...base,
    ...successAction,
    ...(override?.final === undefined ? {} : { final: override.final }),
    ...(override?.action === undefined ? {} : { action: override.action }),
    ...(override?.note === undefined ? {} : { meaning: override.note }),
  };
}
