/**
 * The rules every payout row meets, whatever file it came from. A CSV gives text cells; a workbook
 * gives typed cells (numbers, dates, formulas' results), and each type has its own rule: a number cell
 * in `amount` is the number itself (what Excel shows as `1.000.000` is 1000000), while a number cell
 * in `wallet_id` is a phone number that has lost its leading 0, which is a row error, never repaired.
 * The limits come from the gateway's operation table (not restated here).
 */
import { BATCH_ITEM_AMOUNT_RANGE, fieldsCheck, operationSpec } from '../../gateway';
import type { FieldMap, ListField, ObjectField } from '../../gateway/operations/types';
import { unstorableRule, UNSTORABLE_MESSAGES } from '../../db/shared/storable-text';
import type { PayoutColumn } from './payout-columns';

/** A cell as a reader hands it over: CSV cells are always text. */
export type Cell = string | number | boolean | Date | { error: string } | null;

/** A row of a file or sheet as its reader hands it over, numbered as the spreadsheet numbers it. */
export interface TableRow {
  rowNumber: number;
  cells: Cell[];
}

/** Why a whole file is refused, in one line. */
export interface FileError {
  rule: string;
  message: string;
}

export interface PayoutRow {
  rowNumber: number;
  payoutId: string;
  walletId: string;
  walletName: string;
  personalId: string | null;
  amount: number;
  description: string;
  storeId: string | null;
  /**
   * The directory payee the row names; its receiver columns may then be empty (the upload fills them from
   * the payee) or must name the payee's own (api/payouts/payout-payees.ts).
   */
  payeeId?: string;
}

export interface RowError {
  /** Row of the file or sheet, as the spreadsheet numbers it (the header is row 1). */
  row: number;
  column: PayoutColumn | null;
  rule: string;
  message: string;
}

/** The batch item descriptor of `batch.create`, whose limits every row must meet. */
function batchItemFields(): FieldMap {
  const disbursements = operationSpec('batch.create').request.disbursements as ListField;
  return (disbursements.of as ObjectField).fields;
}

/** Maps a field path of the gateway's item descriptor to the column it came from. */
const COLUMN_OF_FIELD: Record<string, PayoutColumn> = {
  id: 'payout_id',
  'method.walletId': 'wallet_id',
  'method.walletName': 'wallet_name',
  'method.personalId': 'personal_id',
  amount: 'amount',
  description: 'description',
  storeId: 'store_id',
};

/** Stands in for a receiver the directory gives, only while the row's other cells are checked. */
const DIRECTORY_PLACEHOLDER = { walletId: '0900000000', walletName: 'payee' } as const;

const isEmpty = (cell: Cell | undefined) =>
  cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');

export const isBlankRow = (cells: readonly (Cell | undefined)[]) => cells.every(isEmpty);

/** A `batch.create` item as the gateway's descriptor checks it (a type, so it is a `Fields`). */
type BatchItem = {
  id: string;
  method: { walletId: string; walletName: string; personalId: string | null };
  amount: number;
  description: string;
  storeId?: string;
};

type Fail = (column: PayoutColumn, rule: string, message: string) => void;

/** A text column's value, or undefined after reporting why the cell cannot be one. */
function textOf(column: PayoutColumn, cell: Cell | undefined, fail: Fail): string | undefined {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'string') {
    // What PostgreSQL cannot store never reaches the run's records: the row names the cell instead.
    const unstorable = unstorableRule(cell);
    if (unstorable) {
      fail(column, unstorable, `${column}: ${UNSTORABLE_MESSAGES[unstorable]}`);
      return undefined;
    }
    return cell.trim();
  }
  if (typeof cell === 'boolean') return cell ? 'TRUE' : 'FALSE';
  if (cell instanceof Date) return cell.toISOString().slice(0, 10);
  if (typeof cell === 'object') {
    fail(column, 'cell_error', `${column} holds the spreadsheet error ${cell.error}.`);
    return undefined;
  }
  const digits = Number.isInteger(cell) ? cell.toFixed(0) : String(cell);
  if (column === 'wallet_id') {
    fail(
      column,
      'leading_zero_lost',
      `wallet_id is a number cell (${digits}): the spreadsheet dropped the leading 0 of the phone number. ` +
        `Format the column as Text and enter it as ${Number.isInteger(cell) ? `0${digits}` : 'it was written'}.`,
    );
    return undefined;
  }
  // A national id (CCCD) has 12 digits and often starts with 0; as a number it keeps them only if none was lost.
  if (column === 'personal_id' && digits.length !== 12) {
    fail(
      column,
      'leading_zero_lost',
      `personal_id is a number cell (${digits}, ${digits.length} digits): a spreadsheet drops leading zeros. ` +
        'Format the column as Text and enter the id as written on the card.',
    );
    return undefined;
  }
  return digits;
}

/** The amount in whole đồng, or NaN after reporting why. */
function amountOf(cell: Cell | undefined, fail: Fail): number {
  if (isEmpty(cell)) {
    fail('amount', 'required', 'amount is empty.');
    return Number.NaN;
  }
  if (typeof cell === 'number') {
    if (Number.isSafeInteger(cell)) return cell;
    fail('amount', 'whole_vnd', `amount ${cell} is not a whole number of đồng.`);
    return Number.NaN;
  }
  if (typeof cell === 'string') {
    const text = cell.trim();
    if (/^[0-9]+$/.test(text)) return Number(text);
    fail(
      'amount',
      'plain_digits',
      `amount "${text}" must be whole VND in plain digits (no separators, signs, decimals or exponents).`,
    );
    return Number.NaN;
  }
  if (cell && typeof cell === 'object' && !(cell instanceof Date)) {
    fail('amount', 'cell_error', `amount holds the spreadsheet error ${cell.error}.`);
  } else {
    fail(
      'amount',
      'not_a_number',
      `amount is a ${cell instanceof Date ? 'date' : 'true/false'} cell, not a number.`,
    );
  }
  return Number.NaN;
}

function cellAt(cells: readonly Cell[], indexOf: ReadonlyMap<PayoutColumn, number>, column: PayoutColumn) {
  const index = indexOf.get(column);
  return index === undefined ? null : cells[index];
}

/**
 * Checks rows one at a time (a workbook streams them), remembering payout ids to find repeats.
 * The valid rows accumulate in `rows`, the errors of the others in `rowErrors`.
 */
export class PayoutRowChecker {
  readonly rows: PayoutRow[] = [];
  readonly rowErrors: RowError[] = [];
  private readonly checkItem = fieldsCheck(batchItemFields(), { strict: true });
  private readonly firstRowOfId = new Map<string, number>();
  /**
   * The row being checked and its errors, for one `fail` shared by every row: under tsx a closure made
   * per row is also named per row (a property definition each), which cost more than the checks.
   */
  private rowNumber = 0;
  private errors: RowError[] = [];
  private readonly fail: Fail = (column, rule, message) =>
    this.errors.push({ row: this.rowNumber, column, rule, message });

  /** `indexOf` gives the cell of each column the header named. */
  add(rowNumber: number, cells: readonly Cell[], indexOf: ReadonlyMap<PayoutColumn, number>): void {
    this.rowNumber = rowNumber;
    const errors: RowError[] = (this.errors = []);
    const fail = this.fail;

    const amount = amountOf(cellAt(cells, indexOf, 'amount'), fail);
    const payoutId = textOf('payout_id', cellAt(cells, indexOf, 'payout_id'), fail);
    const walletId = textOf('wallet_id', cellAt(cells, indexOf, 'wallet_id'), fail);
    const walletName = textOf('wallet_name', cellAt(cells, indexOf, 'wallet_name'), fail);
    const personalId = textOf('personal_id', cellAt(cells, indexOf, 'personal_id'), fail);
    const description = textOf('description', cellAt(cells, indexOf, 'description'), fail);
    const storeId = textOf('store_id', cellAt(cells, indexOf, 'store_id'), fail);
    const payeeId = textOf('payee_id', cellAt(cells, indexOf, 'payee_id'), fail);
    // A row naming a payee may leave its receiver cells to the directory: placeholders pass the item's
    // checks here, and the upload puts the payee's wallet in their place before anything is recorded.
    const fromDirectory = Boolean(payeeId);

    if (walletName === '' && !fromDirectory) fail('wallet_name', 'required', 'wallet_name is empty.');
    if (personalId && !/^[0-9]{1,12}$/.test(personalId)) {
      fail('personal_id', 'digits_max_12', 'personal_id must be up to 12 digits.');
    }

    const item: BatchItem = {
      id: payoutId ?? '',
      method: {
        walletId: fromDirectory && !walletId ? DIRECTORY_PLACEHOLDER.walletId : (walletId ?? ''),
        walletName: fromDirectory && !walletName ? DIRECTORY_PLACEHOLDER.walletName : (walletName ?? ''),
        personalId: personalId || null,
      },
      // A placeholder within the range, so the other fields are still checked.
      amount: Number.isNaN(amount) ? BATCH_ITEM_AMOUNT_RANGE[0] : amount,
      description: description ?? '',
    };
    if (storeId) item.storeId = storeId;
    for (const violation of this.checkItem(item)) {
      const column = COLUMN_OF_FIELD[violation.field] ?? null;
      // Errors already reported with a file-specific rule are not repeated in the gateway's words.
      if (column && errors.some((error) => error.column === column)) continue;
      errors.push({
        row: rowNumber,
        column,
        rule: violation.rule,
        message: column ? violation.message.replaceAll(violation.field, column) : violation.message,
      });
    }

    if (payoutId) {
      const first = this.firstRowOfId.get(payoutId);
      if (first !== undefined) {
        fail('payout_id', 'duplicate_in_file', `payout_id "${payoutId}" already appears on row ${first}.`);
      } else this.firstRowOfId.set(payoutId, rowNumber);
    }

    if (errors.length) {
      this.rowErrors.push(...errors);
      return;
    }
    this.rows.push({
      rowNumber,
      payoutId: item.id,
      walletId: walletId ?? '',
      walletName: walletName ?? '',
      personalId: personalId || null,
      amount,
      description: item.description,
      storeId: storeId || null,
      ...(payeeId && { payeeId }),
    });
  }
}
