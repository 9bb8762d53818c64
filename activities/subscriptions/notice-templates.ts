/**
 * The words of each notice, in Vietnamese and English, chosen by the subscriber's language. Pure: the
 * activity renders, the tests read the same templates. Times are shown in Vietnam time (GMT+7), the
 * clock every billing date is written in.
 */
import type { NoticeData, NoticeKind, NoticeLang } from '../../contracts/subscriptions';

export interface RenderedNotice {
  subject: string;
  text: string;
}

const GMT7_MS = 7 * 3_600_000;

const vnd = (amount: number | undefined, lang: NoticeLang) =>
  amount === undefined
    ? ''
    : lang === 'vi'
      ? `${amount.toLocaleString('vi-VN')} ₫`
      : `${amount.toLocaleString('en-US')} VND`;

/** dd/mm/yyyy hh:mm in GMT+7, the way Vietnamese dates are written (both languages). */
function when(at: number | undefined): string {
  if (at === undefined) return '';
  const local = new Date(at + GMT7_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${two(local.getUTCDate())}/${two(local.getUTCMonth() + 1)}/${local.getUTCFullYear()} ` +
    `${two(local.getUTCHours())}:${two(local.getUTCMinutes())} (GMT+7)`
  );
}

type Template = (name: string, data: NoticeData) => RenderedNotice;

const link = (data: NoticeData, lead: string) => (data.payUrl ? `\n\n${lead}\n${data.payUrl}` : '');

const TEMPLATES: Record<NoticeLang, Record<NoticeKind, Template>> = {
  vi: {
    upcoming_charge: (name, d) => ({
      subject: `Sắp thanh toán gói ${name}`,
      text: `Gói ${name} sẽ được thanh toán ${vnd(d.amount, 'vi')} từ ví của bạn vào ${when(d.at)}.\nVui lòng đảm bảo ví đủ số dư.`,
    }),
    charge_failed: (name, d) => ({
      subject: `Thanh toán gói ${name} không thành công`,
      text:
        `Chúng tôi chưa thu được ${vnd(d.amount, 'vi')} cho gói ${name} vì ví không đủ số dư.\n` +
        `Vui lòng nạp thêm tiền vào ví trước ${when(d.at)}; khi đó chúng tôi sẽ thử lại một lần.\n` +
        'Nếu lần thử lại cũng không thành công, gói dịch vụ sẽ bị tạm dừng.',
    }),
    paused: (name, d) => ({
      subject: `Gói ${name} đã bị tạm dừng`,
      text:
        `Gói ${name} đã bị tạm dừng vì hai lần thanh toán không thành công do ví không đủ số dư.` +
        (d.payUrl
          ? link(d, 'Nạp tiền vào ví rồi xác nhận kích hoạt lại tại:')
          : '\n\nVui lòng liên hệ với chúng tôi để kích hoạt lại.'),
    }),
    reactivation_reminder: (name, d) => ({
      subject: `Nhắc nhở: kích hoạt lại gói ${name}`,
      text:
        `Gói ${name} vẫn đang tạm dừng.` +
        (d.payUrl
          ? link(d, 'Bạn có thể kích hoạt lại tại:')
          : '\n\nVui lòng liên hệ với chúng tôi để kích hoạt lại.'),
    }),
    reactivated: (name) => ({
      subject: `Gói ${name} đã được kích hoạt lại`,
      text: `Cảm ơn bạn. Gói ${name} đã hoạt động trở lại; các kỳ thanh toán tiếp theo diễn ra như thường lệ.`,
    }),
    cancelled: (name) => ({
      subject: `Gói ${name} đã bị huỷ`,
      text: `Gói ${name} đã bị huỷ vì không được kích hoạt lại. Sẽ không có khoản thanh toán nào nữa.`,
    }),
    price_change: (name, d) => ({
      subject: `Thay đổi giá gói ${name}`,
      text:
        `Từ ngày ${d.effectiveDate ?? ''}, giá gói ${name} thay đổi từ ${vnd(d.oldAmount, 'vi')} ` +
        `thành ${vnd(d.newAmount, 'vi')}.` +
        link(d, 'Vui lòng xác nhận mức giá mới tại:'),
    }),
    reauthorization_reminder: (name, d) => ({
      subject: `Nhắc nhở: xác nhận giá mới của gói ${name}`,
      text:
        `Còn ${d.daysBefore ?? ''} ngày nữa (từ ngày ${d.effectiveDate ?? ''}) giá gói ${name} đổi từ ` +
        `${vnd(d.oldAmount, 'vi')} thành ${vnd(d.newAmount, 'vi')}. Bạn chưa xác nhận mức giá mới.` +
        link(d, 'Vui lòng xác nhận tại:'),
    }),
  },
  en: {
    upcoming_charge: (name, d) => ({
      subject: `Upcoming payment for ${name}`,
      text: `${vnd(d.amount, 'en')} for ${name} will be charged to your wallet on ${when(d.at)}.\nPlease make sure your wallet has enough funds.`,
    }),
    charge_failed: (name, d) => ({
      subject: `Your payment for ${name} did not go through`,
      text:
        `We could not collect ${vnd(d.amount, 'en')} for ${name}: your wallet did not have enough funds.\n` +
        `Please top up your wallet before ${when(d.at)}; we will try once more then.\n` +
        'If that attempt fails too, the subscription will be paused.',
    }),
    paused: (name, d) => ({
      subject: `${name} is paused`,
      text:
        `${name} is paused after two payments failed for insufficient funds.` +
        (d.payUrl
          ? link(d, 'Top up your wallet, then confirm the reactivation here:')
          : '\n\nPlease contact us to reactivate it.'),
    }),
    reactivation_reminder: (name, d) => ({
      subject: `Reminder: reactivate ${name}`,
      text:
        `${name} is still paused.` +
        (d.payUrl ? link(d, 'You can reactivate it here:') : '\n\nPlease contact us to reactivate it.'),
    }),
    reactivated: (name) => ({
      subject: `${name} is active again`,
      text: `Thank you. ${name} is active again; the next payments follow the usual schedule.`,
    }),
    cancelled: (name) => ({
      subject: `${name} is cancelled`,
      text: `${name} was cancelled because it was not reactivated. You will not be charged again.`,
    }),
    price_change: (name, d) => ({
      subject: `Price change for ${name}`,
      text:
        `From ${d.effectiveDate ?? ''}, the price of ${name} changes from ${vnd(d.oldAmount, 'en')} ` +
        `to ${vnd(d.newAmount, 'en')}.` +
        link(d, 'Please confirm the new price here:'),
    }),
    reauthorization_reminder: (name, d) => ({
      subject: `Reminder: confirm the new price of ${name}`,
      text:
        `In ${d.daysBefore ?? ''} days (from ${d.effectiveDate ?? ''}) the price of ${name} changes from ` +
        `${vnd(d.oldAmount, 'en')} to ${vnd(d.newAmount, 'en')}. You have not confirmed the new price yet.` +
        link(d, 'Please confirm it here:'),
    }),
  },
};

export function renderNotice(
  kind: NoticeKind,
  lang: NoticeLang,
  name: string,
  data: NoticeData,
): RenderedNotice {
  return TEMPLATES[lang][kind](name, data);
}
