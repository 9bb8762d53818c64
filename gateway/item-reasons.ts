/**
 * Why a payout row was not paid, in words a finance team reads without the spec: one entry per result code
 * the spec names for disbursement pay that can end an item unpaid (document 3's code table, less success,
 * pending and the request-level duplicates), in
 * English and Vietnamese. The gateway's own `message` is English and terse ("Successful"); these are payrun's,
 * and say what to do about it. Pure data: events, the API and the console read it.
 */
export interface ItemReason {
  en: string;
  vi: string;
}

const REASONS: ReadonlyMap<number, ItemReason> = new Map([
  [
    10,
    {
      en: 'The gateway was under maintenance; nothing was paid. Retry the row later.',
      vi: 'Cổng thanh toán đang bảo trì; chưa chi khoản nào. Hãy thử lại dòng này sau.',
    },
  ],
  [
    20,
    {
      en: 'The gateway refused the row as badly formed; nothing was paid. Check the receiver and the description.',
      vi: 'Cổng thanh toán từ chối dòng này vì sai định dạng; chưa chi. Hãy kiểm tra người nhận và nội dung.',
    },
  ],
  [
    22,
    {
      en: 'The amount is outside what the gateway pays in one item; nothing was paid. Correct the amount.',
      vi: 'Số tiền nằm ngoài mức cổng thanh toán cho phép cho một khoản; chưa chi. Hãy sửa số tiền.',
    },
  ],
  [
    99,
    {
      en: 'The gateway failed without saying why; nothing was paid. Retry the row, and ask the gateway if it fails again.',
      vi: 'Cổng thanh toán lỗi mà không nêu lý do; chưa chi. Hãy thử lại, và hỏi cổng thanh toán nếu vẫn lỗi.',
    },
  ],
  [
    1007,
    {
      en: 'The receiving wallet is inactive or does not exist; nothing was paid. Check the wallet number with the receiver.',
      vi: 'Ví nhận không hoạt động hoặc không tồn tại; chưa chi. Hãy kiểm tra lại số ví với người nhận.',
    },
  ],
  [
    1008,
    {
      en: "The amount is over the receiver's receiving limit; nothing was paid. Pay less, or ask the receiver to raise the limit.",
      vi: 'Số tiền vượt hạn mức nhận của người nhận; chưa chi. Hãy chi ít hơn hoặc đề nghị người nhận nâng hạn mức.',
    },
  ],
  [
    1100,
    {
      en: "The merchant's disbursement balance was short; nothing was paid. Top up, then retry the row.",
      vi: 'Số dư chi hộ của doanh nghiệp không đủ; chưa chi. Hãy nạp thêm tiền rồi thử lại dòng này.',
    },
  ],
  [
    1507,
    {
      en: 'The bank account or card, or the bank code, is unknown; nothing was paid. Check the bank details.',
      vi: 'Không tìm thấy tài khoản, thẻ hoặc mã ngân hàng; chưa chi. Hãy kiểm tra thông tin ngân hàng.',
    },
  ],
  [
    4001,
    {
      en: "The receiver's account is restricted and cannot receive payouts; nothing was paid. The receiver must contact the wallet.",
      vi: 'Tài khoản người nhận bị hạn chế, không nhận được tiền chi trả; chưa chi. Người nhận cần liên hệ ví.',
    },
  ],
  [
    4002,
    {
      en: "The receiver's account has not passed the C06 identity check; nothing was paid. The receiver must update it in the wallet app.",
      vi: 'Tài khoản người nhận chưa qua xác thực danh tính C06; chưa chi. Người nhận cần cập nhật trong ứng dụng ví.',
    },
  ],
  [
    4003,
    {
      en: "The receiver's details (wallet number, name or personal id) do not match the account; nothing was paid. Correct them.",
      vi: 'Thông tin người nhận (số ví, tên hoặc giấy tờ) không khớp với tài khoản; chưa chi. Hãy sửa lại.',
    },
  ],
]);

/** A row the gateway never saw paid because its batch failed before payment (no item code). */
export const NOT_SENT_REASON: ItemReason = {
  en: 'The batch failed before payment, so this row was never paid. It can be retried as it is.',
  vi: 'Lô chi trả lỗi trước bước chi tiền nên dòng này chưa được chi. Có thể thử lại nguyên như cũ.',
};

const UNLISTED: ItemReason = {
  en: 'The gateway refused this row with a code payrun has no explanation for; nothing was paid. See its message.',
  vi: 'Cổng thanh toán từ chối dòng này với mã payrun chưa có giải thích; chưa chi. Xem thông báo của cổng.',
};

/** Why a row failed, from its result code; a row without one failed before the gateway saw it paid. */
export function itemFailureReason(resultCode: number | null | undefined): ItemReason {
  // A failed row with no code, or with the success code its validation left, was never paid by the gateway.
  if (resultCode === null || resultCode === undefined || resultCode === 0) return NOT_SENT_REASON;
  return REASONS.get(resultCode) ?? UNLISTED;
}

/** The codes with an explanation of their own (tests check every code the spec lists for items has one). */
export const EXPLAINED_ITEM_CODES: readonly number[] = [...REASONS.keys()];
