/**
 * A saved method's record: active until it is deleted (payrun asks the gateway) or revoked (the customer
 * removed it in the app). Pure code: db/ and the API read it.
 */

export type SavedMethodStatus = 'active' | 'deleting' | 'deleted' | 'revoked';

const MOVES: Readonly<Record<SavedMethodStatus, readonly SavedMethodStatus[]>> = {
  active: ['deleting', 'revoked'],
  // A refused deletion leaves the method usable again.
  deleting: ['active', 'deleted', 'revoked'],
  deleted: [],
  revoked: [],
};

/**
 * Whether a saved method's record may go from `from` to `to` (db/ reads it). Staying put is no move: a
 * repeated delete or unbind changes nothing and emits nothing.
 */
export const canMoveSavedMethod = (from: string, to: string): boolean =>
  MOVES[from as SavedMethodStatus]?.includes(to as SavedMethodStatus) ?? false;
