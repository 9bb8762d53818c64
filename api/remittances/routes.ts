import { z } from 'zod';
import { LEAP_YEAR, YEAR } from '../http/dates';
import { listQuery } from '../http/list-query';
import { createQuoteCache } from './quote-cache';
import { CONFIG_DEFAULTS } from '../../platform/config';
import { REMITTANCE_AMOUNT_RANGES } from '../../gateway/limits';
import { NOT_BLANK } from '../http/openapi';
import { defineRoute, type AnyRoute } from '../http/routes';
import {
  BASE_CURRENCIES,
  REMITTANCE_REASONS,
  type BaseCurrency,
  type RemittanceRequestType,
} from '../../contracts/remittances';
import {
  createRemittance,
  listRemittanceSummaries,
  fetchLiveRate,
  quoteRate,
  remittanceView,
  type NewRemittanceRequest,
  type RemittanceDeps,
} from './remittances';

// payouts-approver approves remittances under the default policy, so it reads them too (masked, as a viewer).
const READERS = ['viewer', 'remittance', 'payouts-approver'] as const;

// ---- field rules of the spec (document 3), each with a message that says what is expected
const regions = new Intl.DisplayNames(['en'], { type: 'region' });
/** Reserved or user-assigned codes that Intl names but ISO 3166-1 does not assign to a country. */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'UK', 'QO', 'XK', 'ZZ']);
/** Every two-letter code Intl names as a region, less those ISO 3166-1 does not assign to a country. */
const LETTERS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
const COUNTRY_CODES = LETTERS.flatMap((first) => LETTERS.map((second) => first + second)).filter(
  (code) => !NOT_COUNTRIES.has(code) && regions.of(code) !== code,
);
// zod runs the list check even when the pattern failed; the list holds only two-letter codes, so a
// malformed one (which made Intl throw before) is simply not in it. Found by test/api/fuzz.test.ts.
const country = z
  .string()
  .regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 country code, like VN')
  .refine((code) => COUNTRY_CODES.includes(code), 'not an ISO 3166-1 alpha-2 country code')
  .meta({ enum: COUNTRY_CODES });
// Years 0100–9999 (Date.UTC reads 0–99 as 1900–1999, so those are refused), leap years included.
const DMY_DATE_PATTERN = `^(?:29/02/${LEAP_YEAR}|(?:(?:0[1-9]|[12]\\d|3[01])/(?:0[13578]|1[02])|(?:0[1-9]|[12]\\d|30)/(?:0[469]|11)|(?:0[1-9]|1\\d|2[0-8])/02)/${YEAR})$`;
const dmyDate = z
  .string()
  .regex(/^\d{2}\/\d{2}\/\d{4}$/, 'a date written DD/MM/YYYY')
  .refine((text) => {
    const [day, month, year] = text.split('/').map(Number) as [number, number, number];
    const date = new Date(Date.UTC(year, month - 1, day));
    return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  }, 'not a real date (DD/MM/YYYY)')
  // For the OpenAPI document: real dates written DD/MM/YYYY.
  .meta({ pattern: DMY_DATE_PATTERN });
const gender = z.enum(['Male', 'Female', 'Other', 'MALE', 'FEMALE', 'OTHER'], {
  error: 'Male, Female or Other',
});
const phone = z
  .string()
  .regex(/^(0|\+84)\d{8,10}$/, 'a Vietnamese phone number written 0xxxxxxxxx or +84xxxxxxxxx');
const name = z.string().trim().min(1, 'required').max(100).meta(NOT_BLANK);
/** At most two decimals as written: 1.15 yes, 1.0000000000000002 no (the schema says multipleOf 0.01). */
const twoDecimals = (value: number) => /^-?\d+(\.\d{1,2})?$/.test(String(value));
const foreignAmount = z
  .number()
  .gt(1, 'must be more than 1.00')
  .max(10_000_000_000)
  .refine(twoDecimals, 'at most two decimals')
  .meta({ multipleOf: 0.01 });
const vndAmount = (requestType: RemittanceRequestType) => {
  const [min, max] = REMITTANCE_AMOUNT_RANGES[requestType];
  const range = `${requestType} sends ${min.toLocaleString('en')}..${max.toLocaleString('en')} VND`;
  return z.number().int('whole VND, no decimals').min(min, range).max(max, range);
};
const bankOnly = z.never({ error: 'accepted for remitToBank only' }).optional();

const walletReceiver = z.strictObject({
  walletId: phone,
  walletName: name,
  personalId: z.string().regex(/^\d{1,12}$/, 'the national ID: digits, up to 12'),
});

const bankReceiver = z
  .strictObject({
    bankAccountNo: z
      .string()
      .regex(/^\d{4,30}$/, 'digits')
      .optional(),
    bankCardNo: z
      .string()
      .regex(/^\d{12,19}$/, 'a card number of 12 to 19 digits')
      .optional(),
    bankAccountHolderName: name,
    bankCode: z.string().regex(/^[0-9A-Za-z]{2,20}$/, 'the bank code, letters and digits'),
    nationality: country,
    dob: dmyDate,
    gender,
    phoneNumber: phone.optional(),
    personalId: z.string().regex(/^\d{12}$/, 'the 12-digit ID of the receiver'),
  })
  .superRefine((receiver, ctx) => {
    if ((receiver.bankAccountNo === undefined) === (receiver.bankCardNo === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['bankAccountNo'],
        message: 'exactly one of bankAccountNo (account) or bankCardNo (card)',
      });
  })
  .meta({
    oneOf: [
      { required: ['bankAccountNo'], not: { required: ['bankCardNo'] } },
      { required: ['bankCardNo'], not: { required: ['bankAccountNo'] } },
    ],
  });

const commonInfo = {
  name,
  partnerName: name,
  orderingCountry: country.default('VN'),
  sourceCurrency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 currency code')
    .optional(),
  sourceAmount: z
    .number()
    .positive()
    .max(10_000_000_000)
    .refine(twoDecimals, 'at most two decimals')
    .meta({ multipleOf: 0.01 })
    .optional(),
  reason: z.enum(REMITTANCE_REASONS, { error: 'RSN01 … RSN06' }),
};

const walletInfo = z.strictObject({
  ...commonInfo,
  senderNationality: bankOnly,
  senderDob: bankOnly,
  senderGender: bankOnly,
  senderPersonalId: bankOnly,
});

const bankInfo = z.strictObject({
  ...commonInfo,
  senderNationality: country,
  senderDob: dmyDate,
  senderGender: gender,
  senderPersonalId: z.string().regex(/^[0-9A-Za-z]{1,20}$/, "the sender's government ID"),
});

const common = {
  baseCurrency: z.enum(BASE_CURRENCIES, { error: BASE_CURRENCIES.join(', ') }),
  foreignAmount,
  orderInfo: z.string().min(1).max(255).optional(),
};

export const newRemittanceBody = z.discriminatedUnion('requestType', [
  z.strictObject({
    requestType: z.literal('remitToWallet'),
    ...common,
    amount: vndAmount('remitToWallet').optional(),
    autoCapture: z.boolean().default(true),
    receiver: walletReceiver,
    remittanceInfo: walletInfo,
  }),
  z.strictObject({
    requestType: z.literal('remitToBank'),
    ...common,
    amount: vndAmount('remitToBank').optional(),
    autoCapture: z.literal(true, { error: 'false (two-step) is for remitToWallet only' }).default(true),
    receiver: bankReceiver,
    remittanceInfo: bankInfo,
  }),
]);

const remittanceParams = z.object({
  remittanceId: z.string().regex(/^rmt-\d{8}-[0-9a-f]{8}$/, 'a remittance id like rmt-20261122-a1b2c3d4'),
});

export function remittanceRoutes(deps: RemittanceDeps): AnyRoute[] {
  const quotes = createQuoteCache<BaseCurrency>({
    lifetimeMs: (deps.settings.quoteCacheSeconds ?? CONFIG_DEFAULTS.REMITTANCE_QUOTE_CACHE_SECONDS) * 1000,
    fetchRate: (baseCurrency) => fetchLiveRate(deps, baseCurrency),
  });
  return [
    defineRoute({
      method: 'get',
      path: '/v1/remittance-quotes',
      formerPath: '/v1/remittance/quotes',
      summary:
        'A live VND rate for a base currency (exchange-rate), with the VND a foreign amount would buy. A quote is a moment: the remittance quotes again when it buys.',
      tag: 'remittance',
      access: { roles: READERS },
      query: z.object({
        baseCurrency: z.enum(BASE_CURRENCIES, { error: BASE_CURRENCIES.join(', ') }).default('USD'),
        foreignAmount: z.coerce
          .number()
          .gt(1, 'must be more than 1.00')
          .max(10_000_000_000)
          .refine(twoDecimals, 'at most two decimals')
          .meta({ multipleOf: 0.01 })
          .optional(),
      }),
      handler: async ({ query }) => ({ body: await quoteRate(deps, query, quotes) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/remittances',
      summary:
        'Create a remittance to a wallet or a bank: quote → verify the wallet → buy VND → remittance/create → result. Idempotency-Key required (payrun makes up the remittance id).',
      tag: 'remittance',
      access: { roles: ['remittance'] },
      audit: { action: 'remittance.create', target: 'remittance' },
      body: newRemittanceBody,
      idempotent: 'required',
      handler: async ({ body, principal, create }) => ({
        body: await createRemittance(
          deps,
          { request: body as NewRemittanceRequest, principal, create },
          quotes,
        ),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/remittances',
      summary: 'Remittances, newest first; receivers masked.',
      tag: 'remittance',
      access: { roles: READERS },
      query: listQuery,
      handler: async ({ query }) => {
        const page = await listRemittanceSummaries(deps.db, query);
        return { body: { remittances: page.rows, nextOffset: page.nextOffset } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/remittances/:remittanceId',
      summary:
        'A remittance: status, the rate used and every quote, amounts, the gateway result, and what needs attention.',
      tag: 'remittance',
      access: { roles: READERS },
      params: remittanceParams,
      handler: async ({ params }) => ({ body: await remittanceView(deps.db, params.remittanceId) }),
    }),
  ];
}
