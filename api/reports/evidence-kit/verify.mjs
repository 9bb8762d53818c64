#!/usr/bin/env node
// Checks a payrun evidence pack without payrun: run it in the folder the pack was unzipped into.
//
//   node verify.mjs                                   hashes of every file, totals of the items
//   node verify.mjs --file payouts.csv                and the uploaded file's SHA-256 against your copy
//   node verify.mjs --access-key K --secret-key S     and every gateway notification's HMAC-SHA256
//
// Node 18 or later, no dependencies. Exit code 0: every check passed; 1: at least one failed.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const dir = option('dir') ?? '.';
const read = (name) => readFileSync(`${dir}/${name}`);
const json = (name) => JSON.parse(read(name).toString('utf8'));
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

let failures = 0;
const check = (ok, what) => {
  if (!ok) failures += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

// 1. Every file is the one payrun wrote: SHA256SUMS lists each file's hash.
for (const line of read('SHA256SUMS').toString('utf8').split('\n').filter(Boolean)) {
  const [hash, name] = line.split(/\s+\*?/);
  let actual = null;
  try {
    actual = sha256(read(name));
  } catch {
    actual = null;
  }
  check(actual === hash, `${name} has the SHA-256 listed in SHA256SUMS`);
}

// 2. The items add up to the run's totals and to the reconciliation, state by state.
const manifest = json('manifest.json');
const items = json('items.json');
const total = items.reduce((sum, item) => sum + item.amount, 0);
check(items.length === manifest.rowCount, `${items.length} items = rowCount ${manifest.rowCount}`);
check(total === manifest.totalAmount, `items total ${total} = totalAmount ${manifest.totalAmount}`);
const reconciliation = json('reconciliation.json');
if (reconciliation && reconciliation.byState) {
  const byState = {};
  for (const item of items) {
    byState[item.state] ??= { count: 0, amount: 0 };
    byState[item.state].count += 1;
    byState[item.state].amount += item.amount;
  }
  for (const [state, expected] of Object.entries(reconciliation.byState)) {
    const actual = byState[state] ?? { count: 0, amount: 0 };
    check(
      actual.count === expected.count && actual.amount === expected.amount,
      `${state}: items ${actual.count} / ${actual.amount} = reconciliation ${expected.count} / ${expected.amount}`,
    );
  }
}

// 3. The uploaded file, if the auditor holds a copy.
const file = option('file');
if (file)
  check(sha256(readFileSync(file)) === manifest.fileSha256, `${file} has fileSha256 ${manifest.fileSha256}`);

// 4. The gateway's notifications: HMAC-SHA256 over the signed fields sorted a to z, `name=value` joined by
//    `&`, accessKey's value from the merchant's credentials, absent or null fields as empty text.
const accessKey = option('access-key');
const secretKey = option('secret-key');
const signedValue = (value) =>
  value === undefined || value === null
    ? ''
    : typeof value === 'string'
      ? value
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
const notifications = json('notifications.json');
if (accessKey === undefined || secretKey === undefined) {
  console.log(
    `skip ${notifications.length} notification signatures (give --access-key and --secret-key to check them)`,
  );
} else {
  for (const notification of notifications) {
    const fields = notification.signedFields ?? {};
    const text = [...notification.signedFieldList]
      .sort()
      .map((name) => `${name}=${name === 'accessKey' ? accessKey : signedValue(fields[name])}`)
      .join('&');
    const expected = createHmac('sha256', Buffer.from(secretKey, 'utf8'))
      .update(Buffer.from(text, 'utf8'))
      .digest();
    const given = Buffer.from(String(fields.signature ?? ''), 'hex');
    check(
      given.length === expected.length && timingSafeEqual(given, expected),
      `notification ${notification.kind} ${notification.orderId} (${notification.receivedAt}) is signed by the merchant's secret`,
    );
  }
}

console.log(failures ? `${failures} check(s) failed` : 'every check passed');
process.exit(failures ? 1 : 0);
