// @ts-check
/**
 * payrun's own words for the gateway's result codes, in both languages. The gateway's `message` is in
 * English whatever the page's language and says what failed in the gateway's terms; a finance team
 * needs what happened and what to do. Every code of the spec's Errors tables and every code payrun
 * assumes (gateway/result-codes.ts) is here: test/unit/result-code-explanations.test.ts holds the
 * two tables together. Plain data without imports, so both the console and that test load it.
 */
/** @typedef {{ en: string, vi: string }} Explanation */

/** @type {Readonly<Record<number, Explanation>>} */
export const RESULT_CODE_EXPLANATIONS = {
  0: { en: 'Done: the gateway completed it.', vi: 'Hoàn tất: cổng thanh toán đã xử lý xong.' },
  10: {
    en: 'The gateway was under maintenance; payrun asks again later.',
    vi: 'Cổng thanh toán đang bảo trì; payrun sẽ gửi lại sau.',
  },
  13: {
    en: "The gateway did not accept payrun's signature or keys: the merchant keys need checking.",
    vi: 'Cổng thanh toán không chấp nhận chữ ký hoặc khóa của payrun: cần kiểm tra khóa của đơn vị.',
  },
  20: {
    en: 'The gateway refused the request as badly formed; nothing was paid.',
    vi: 'Cổng thanh toán từ chối vì yêu cầu sai định dạng; chưa có tiền nào được chi.',
  },
  22: {
    en: 'The amount is outside the range the gateway allows; nothing was paid.',
    vi: 'Số tiền nằm ngoài khoảng cổng thanh toán cho phép; chưa có tiền nào được chi.',
  },
  40: {
    en: 'The gateway had this request already; payrun asks for its outcome instead of sending it again.',
    vi: 'Cổng thanh toán đã nhận yêu cầu này; payrun hỏi kết quả thay vì gửi lại.',
  },
  41: {
    en: 'The gateway had this order already; payrun asks for its outcome instead of paying again.',
    vi: 'Cổng thanh toán đã có đơn hàng này; payrun hỏi kết quả thay vì chi lại.',
  },
  42: {
    en: 'The gateway does not know this order.',
    vi: 'Cổng thanh toán không có đơn hàng này.',
  },
  99: {
    en: 'The gateway failed for a reason it did not give; contact the gateway.',
    vi: 'Cổng thanh toán lỗi mà không nêu lý do; hãy liên hệ cổng thanh toán.',
  },
  1000: {
    en: 'Waiting for the customer to confirm the payment.',
    vi: 'Đang chờ khách hàng xác nhận thanh toán.',
  },
  1001: {
    en: "The customer's account does not hold enough money.",
    vi: 'Tài khoản của khách hàng không đủ tiền.',
  },
  1002: {
    en: 'The refund was refused (by the card or account issuer).',
    vi: 'Việc hoàn tiền bị từ chối (bởi tổ chức phát hành thẻ hoặc tài khoản).',
  },
  1005: {
    en: 'The payment link or QR code expired before the customer paid.',
    vi: 'Liên kết hoặc mã QR thanh toán đã hết hạn trước khi khách hàng trả tiền.',
  },
  1006: { en: 'The customer declined the payment.', vi: 'Khách hàng đã từ chối thanh toán.' },
  1007: {
    en: "The receiver's account is closed, inactive or does not exist.",
    vi: 'Tài khoản người nhận đã đóng, không hoạt động hoặc không tồn tại.',
  },
  1008: {
    en: 'The amount is more than the receiver may receive; send less.',
    vi: 'Số tiền vượt hạn mức nhận của người nhận; hãy chi ít hơn.',
  },
  1017: {
    en: 'The authorization was cancelled; nothing was captured.',
    vi: 'Giao dịch giữ tiền đã bị hủy; không có khoản nào được thu.',
  },
  1018: {
    en: 'The authorization lapsed before it was captured; the money went back to the customer.',
    vi: 'Giao dịch giữ tiền đã hết hạn trước khi thu; tiền đã trả lại khách hàng.',
  },
  1100: {
    en: 'The merchant balance at the gateway is too low; top it up.',
    vi: 'Số dư của đơn vị tại cổng thanh toán không đủ; hãy nạp thêm.',
  },
  1507: {
    en: 'The bank account or card was not found, or the bank code is unknown.',
    vi: 'Không tìm thấy tài khoản ngân hàng hoặc thẻ, hoặc mã ngân hàng không đúng.',
  },
  2001: {
    en: 'The saved payment method is no longer valid (deleted or unknown).',
    vi: 'Phương thức thanh toán đã lưu không còn hợp lệ (đã xóa hoặc không tồn tại).',
  },
  2019: {
    en: 'The gateway does not know this batch group; contact the gateway.',
    vi: 'Cổng thanh toán không nhận ra nhóm lô này; hãy liên hệ cổng thanh toán.',
  },
  2100: {
    en: 'The subscription is not active (cancelled or unknown).',
    vi: 'Thuê bao không còn hoạt động (đã hủy hoặc không tồn tại).',
  },
  2101: { en: 'The subscription is paused.', vi: 'Thuê bao đang tạm dừng.' },
  2102: { en: 'The subscription has expired.', vi: 'Thuê bao đã hết hạn.' },
  4001: {
    en: "The receiver's account is restricted; the receiver must contact the gateway.",
    vi: 'Tài khoản người nhận đang bị hạn chế; người nhận cần liên hệ cổng thanh toán.',
  },
  4002: {
    en: "The receiver's identity is not verified yet (chip ID check); the receiver must update it in the app.",
    vi: 'Tài khoản người nhận chưa xác thực danh tính (CCCD gắn chip); người nhận cần cập nhật trong ứng dụng.',
  },
  4003: {
    en: "The receiver's details are wrong; check the name and account number.",
    vi: 'Thông tin người nhận không đúng; hãy kiểm tra tên và số tài khoản.',
  },
  7000: {
    en: 'The gateway is still processing it; the outcome follows.',
    vi: 'Cổng thanh toán đang xử lý; kết quả sẽ được báo sau.',
  },
  7002: {
    en: "The customer's bank or wallet is still processing it; the outcome follows.",
    vi: 'Ngân hàng hoặc ví của khách hàng đang xử lý; kết quả sẽ được báo sau.',
  },
  8000: {
    en: 'The customer must confirm at their bank or wallet.',
    vi: 'Khách hàng cần xác nhận tại ngân hàng hoặc ví của mình.',
  },
  8003: {
    en: 'The gateway accepted the batch; paying it is the next step.',
    vi: 'Cổng thanh toán đã nhận lô; bước tiếp theo là chi lô.',
  },
  8200: {
    en: 'Waiting for the one-time code sent to the customer.',
    vi: 'Đang chờ mã OTP gửi tới khách hàng.',
  },
  8201: {
    en: 'The one-time code was wrong; the customer may try again.',
    vi: 'Mã OTP sai; khách hàng có thể nhập lại.',
  },
  8202: {
    en: 'The one-time code expired (after 5 minutes).',
    vi: 'Mã OTP đã hết hạn (sau 5 phút).',
  },
  8203: {
    en: 'Too many wrong codes: locked until tomorrow.',
    vi: 'Nhập sai mã quá nhiều lần: bị khóa đến ngày mai.',
  },
  8204: {
    en: 'A new code was asked for too soon; wait a few seconds.',
    vi: 'Yêu cầu mã mới quá sớm; hãy chờ vài giây.',
  },
  8205: {
    en: "Today's limit of code messages is reached.",
    vi: 'Đã hết số tin nhắn mã OTP cho phép trong ngày.',
  },
};
