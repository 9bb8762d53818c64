// @ts-check
/**
 * Amounts in Vietnamese đồng with the Vietnamese grouping (1.000.000 ₫) in both languages; counts and
 * dates in the chosen language; dates in Vietnam's time (GMT+7) by default, with the zone shown.
 */
import { language, t } from './i18n.js';
import { VI_RECORD_KINDS, VI_ROLES, VI_STATUS } from './messages-vi.js';

/** An amount, a count or a date as the API sends it. @typedef {string | number | null | undefined} Value */

export const TIME_ZONE = 'Asia/Ho_Chi_Minh';
const LOCALES = { vi: 'vi-VN', en: 'en-GB' };
const vndFormat = new Intl.NumberFormat('vi-VN', { style: 'currency', currency: 'VND' });
/** @type {Record<string, string>} */
const statusWords = VI_STATUS;
/** @type {Record<string, string>} */
const roleWords = VI_ROLES;
/** @type {Record<string, string>} */
const recordKindWords = VI_RECORD_KINDS;

/** @type {Map<string, Intl.NumberFormat>} */
const countFormats = new Map();
/** @type {Map<string, Intl.DateTimeFormat>} */
const dateFormats = new Map();

function countFormat() {
  const locale = LOCALES[language()];
  let format = countFormats.get(locale);
  if (!format) countFormats.set(locale, (format = new Intl.NumberFormat(locale)));
  return format;
}

function dateFormat() {
  const locale = LOCALES[language()];
  let format = dateFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hour12: false,
      timeZone: TIME_ZONE,
      timeZoneName: 'shortOffset',
    });
    dateFormats.set(locale, format);
  }
  return format;
}

/**
 * An amount range the gateway accepts, as the forms state it: 1.000 ₫–200.000.000 ₫.
 * @param {import('./types.js').AmountRange} range
 */
export function vndRange([min, max]) {
  return `${vnd(min)}–${vnd(max)}`;
}

/** @param {Value} amount */
export function vnd(amount) {
  if (amount === null || amount === undefined || amount === '') return '—';
  const value = Number(amount);
  return Number.isFinite(value) ? vndFormat.format(value) : String(amount);
}

/**
 * An amount in another currency (a remittance's foreign side); VND keeps its own format.
 * @param {Value} amount
 * @param {string} [currency]
 */
export function money(amount, currency = 'VND') {
  if (currency === 'VND') return vnd(amount);
  if (amount === null || amount === undefined || amount === '') return '—';
  try {
    return new Intl.NumberFormat(LOCALES[language()], { style: 'currency', currency }).format(Number(amount));
  } catch {
    return `${amount} ${currency}`;
  }
}

/** @param {Value} value */
export function count(value) {
  if (value === null || value === undefined) return '—';
  return countFormat().format(Number(value));
}

/** @param {Value} value */
export function dateTime(value) {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  // Day first in both languages, then the time and its zone: 23/11/2026 17:06:58 GMT+7.
  /** @type {Record<string, string>} */
  const part = Object.fromEntries(
    dateFormat()
      .formatToParts(date)
      .map(({ type, value: text }) => [type, text]),
  );
  return `${part.day}/${part.month}/${part.year} ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName}`;
}

/**
 * A calendar date (YYYY-MM-DD from the API) as the language writes it, without a time zone shift.
 * @param {Value} value
 */
export function dateOnly(value) {
  if (!value) return '—';
  const [year, month, day] = String(value).slice(0, 10).split('-');
  if (!day) return String(value);
  return `${day}/${month}/${year}`;
}

/**
 * A payout run's file name in the page's language. The server names a retry (api/payouts/retries.ts) and a
 * schedule's run (activities/payouts/recurring-runs.ts) in English around a name of the user's; an uploaded
 * file's own name is shown as it is, whatever it says.
 * @param {{ fileName?: Value, parentRunId?: Value, scheduleId?: Value }} run
 */
export function runFileName(run) {
  const name = String(run.fileName ?? '');
  if (run.parentRunId && name.startsWith('retry of '))
    return t('retry of {file}', { file: name.slice('retry of '.length) });
  if (run.scheduleId && name.startsWith('schedule '))
    return t('schedule {name}', { name: name.slice('schedule '.length) });
  return name;
}

/**
 * `awaiting_approval` → `Awaiting approval` (English) or `Chờ duyệt` (Vietnamese).
 * @param {Value} value
 */
export function label(value) {
  if (value === null || value === undefined || value === '') return '—';
  const key = String(value).toLowerCase();
  if (language() === 'vi' && statusWords[key]) return statusWords[key];
  const text = key.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A role as the page's language names it; English pages keep the role's own name, which is what
 * keys and approval policies are written with.
 * @param {string} role
 */
export function roleName(role) {
  return language() === 'vi' ? (roleWords[role] ?? role) : role;
}

/**
 * A kind of record as the audit log names it (`payout_run` → `Payout run`, `đợt chi trả`).
 * @param {string} kind
 */
export function recordKind(kind) {
  return language() === 'vi' ? (recordKindWords[kind] ?? kind) : label(kind);
}

/**
 * How long ago, in words of the chosen language: "3 min ago", "3 phút trước".
 * @param {Value} value
 * @param {number} [now]
 */
export function age(value, now = Date.now()) {
  if (!value) return '—';
  const seconds = Math.max(0, Math.round((now - new Date(value).getTime()) / 1000));
  if (seconds < 60) return t('{n} s ago', { n: seconds });
  if (seconds < 3600) return t('{n} min ago', { n: Math.floor(seconds / 60) });
  if (seconds < 86_400) return t('{n} h ago', { n: Math.floor(seconds / 3600) });
  return t('{n} days ago', { n: Math.floor(seconds / 86_400) });
}

/**
 * @param {number} done
 * @param {number} total
 */
export function percent(done, total) {
  return total > 0 ? Math.floor((done / total) * 100) : 0;
}
