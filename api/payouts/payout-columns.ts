/**
 * The columns of a payout file and the header names each one goes by. Finance teams export from
 * their own spreadsheets, in Vietnamese or English, so a header is matched by its letters and digits
 * only: case, accents (`Số ví` = `so vi`), spaces, `_`, `-` and other punctuation do not count.
 */

export const PAYOUT_COLUMNS = [
  'payout_id',
  'wallet_id',
  'wallet_name',
  'personal_id',
  'amount',
  'description',
  'store_id',
  'payee_id',
] as const;
export type PayoutColumn = (typeof PAYOUT_COLUMNS)[number];
export const REQUIRED_COLUMNS: readonly PayoutColumn[] = ['payout_id', 'wallet_id', 'wallet_name', 'amount'];
/** With a payee_id column, a row's receiver may come from the directory: these columns become optional. */
export const RECEIVER_COLUMNS: readonly PayoutColumn[] = ['wallet_id', 'wallet_name'];

/** Other names of each column, as people write them (README lists them). The canonical name is always accepted. */
export const COLUMN_ALIASES: Record<PayoutColumn, readonly string[]> = {
  payout_id: ['payoutId', 'Payout ID', 'id', 'reference', 'Mã chi trả', 'Mã chi', 'Mã giao dịch'],
  wallet_id: [
    'walletId',
    'Wallet ID',
    'wallet',
    'wallet number',
    'phone',
    'Số ví',
    'so_vi',
    'Ví',
    'SĐT',
    'Số điện thoại',
  ],
  wallet_name: [
    'walletName',
    'Wallet name',
    'name',
    'receiver',
    'receiver name',
    'full name',
    'Tên',
    'Tên ví',
    'Chủ ví',
    'Tên chủ ví',
    'Họ tên',
    'Họ và tên',
    'Người nhận',
    'Tên người nhận',
  ],
  personal_id: [
    'personalId',
    'national id',
    'id number',
    'CCCD',
    'CMND',
    'CCCD/CMND',
    'Số CCCD',
    'Số CMND',
    'Số giấy tờ',
  ],
  amount: ['Amount (VND)', 'amount vnd', 'Số tiền', 'so_tien', 'Số tiền (VND)', 'Tiền', 'Thành tiền'],
  description: ['note', 'memo', 'Nội dung', 'Ghi chú', 'Diễn giải', 'Mô tả'],
  store_id: ['storeId', 'store', 'Mã cửa hàng', 'Cửa hàng'],
  payee_id: ['payeeId', 'Payee ID', 'payee', 'Mã người nhận', 'Mã người hưởng'],
};

/** `Số tiền (VND)` → `sotienvnd`; `Wallet_ID` → `walletid`. */
export function normalizeHeaderName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

const COLUMN_BY_NAME: ReadonlyMap<string, PayoutColumn> = (() => {
  const byName = new Map<string, PayoutColumn>();
  for (const column of PAYOUT_COLUMNS) {
    for (const name of [column, ...COLUMN_ALIASES[column]]) {
      const key = normalizeHeaderName(name);
      const taken = byName.get(key);
      // Two columns sharing a name would make a header mean two things: fail at start-up, not on a file.
      if (taken && taken !== column)
        throw new Error(`Header alias "${name}" names both ${taken} and ${column}`);
      byName.set(key, column);
    }
  }
  return byName;
})();

/** The column a header cell names, or undefined when it names none. */
export function columnOfHeader(name: string): PayoutColumn | undefined {
  return COLUMN_BY_NAME.get(normalizeHeaderName(name));
}
