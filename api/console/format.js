/** Amounts as Vietnamese đồng, dates in the operator's own time zone and language. */

const vndFormat = new Intl.NumberFormat('vi-VN', { style: 'currency', currency: 'VND' });
const countFormat = new Intl.NumberFormat();
// No time zone given: the browser's own, which is the operator's.
const dateFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

export function vnd(amount) {
  if (amount === null || amount === undefined || amount === '') return '—';
  const value = Number(amount);
  return Number.isFinite(value) ? vndFormat.format(value) : String(amount);
}

/** An amount in another currency (a remittance's foreign side); VND keeps its own format. */
export function money(amount, currency = 'VND') {
  if (currency === 'VND') return vnd(amount);
  if (amount === null || amount === undefined || amount === '') return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(Number(amount));
  } catch {
    return `${amount} ${currency}`;
  }
}

export function count(value) {
  if (value === null || value === undefined) return '—';
  return countFormat.format(Number(value));
}

export function dateTime(value) {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : dateFormat.format(date);
}

/** `awaiting_approval` → `Awaiting approval`; `SUCCEEDED` → `Succeeded`. */
export function label(value) {
  if (value === null || value === undefined || value === '') return '—';
  const text = String(value).replaceAll('_', ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function percent(done, total) {
  return total > 0 ? Math.floor((done / total) * 100) : 0;
}
