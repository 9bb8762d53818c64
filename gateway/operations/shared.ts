import { bool, list, long, nullable, object, oneOf, required, text } from './fields';

/** Field definitions and limits shared by several operations, written once. */

export const ORDER_ID_PATTERN = /^[0-9a-zA-Z]([-_.]*[0-9a-zA-Z]+)*$/;
export const LINK_WALLET_CLIENT_ID_PATTERN = /^[0-9a-zA-Z]([-_.@]*[0-9a-zA-Z]+)*$/;
export const DOMESTIC_PHONE_PATTERN = /^0[0-9]+$/;
export const PHONE_PATTERN = /^(0|\+84)[0-9]+$/;
export const PERSONAL_ID_PATTERN = /^[0-9]{1,12}$/;
export const COUNTRY_PATTERN = /^[A-Z]{2}$/;
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

/** Client timeouts: the spec asks ≥30 s for money-moving calls; lookups get a shorter budget. */
export const TIMEOUT = { moneyMovement: 30_000, lookup: 15_000 } as const;

export const partnerCode = () => required(text(50));
export const requestId = () => required(text(50));
export const orderId = (maxLength?: number) =>
  required(text(maxLength, { pattern: ORDER_ID_PATTERN, minLength: 1 }));
export const lang = () => oneOf(['vi', 'en']);
export const extraData = () => text(1000, { format: 'base64-json' });
export const orderGroupId = () => long();
export const url = (maxLength?: number) => text(maxLength);

export const item = object({
  id: text(),
  name: text(),
  description: text(),
  category: text(),
  imageUrl: text(),
  manufacturer: text(),
  price: long(0),
  currency: oneOf(['VND']),
  quantity: long(1),
  unit: text(),
  totalPrice: long(0),
  taxAmount: long(0),
});
export const items = () => list(item, 50);

/** payWithMethod's sample uses a lighter item shape. */
export const methodItem = object({ image: text(), name: text(), quantity: long(1), amount: long(0) });

export const deliveryInfo = () =>
  object({ deliveryAddress: text(), deliveryFee: text(), quantity: text(), inStorePickup: bool() });

export const userInfo = () => object({ name: text(), phoneNumber: text(), email: text() });

export const promotionInfo = () =>
  list(
    object(
      {
        amount: long(),
        amountSponsor: long(),
        voucherId: text(),
        voucherType: text(),
        voucherName: text(),
        merchantRate: text(),
      },
      { open: true },
    ),
  );

/** Fields every response carries. */
export const resultFields = () => ({
  partnerCode: text(),
  requestId: text(),
  orderId: text(),
  responseTime: long(),
  resultCode: required(long()),
  message: text(),
});

/** Receivers (document 3): plaintext before RSA encryption. */
export const walletReceiver = (phone: RegExp) =>
  object({
    walletId: required(text(undefined, { pattern: phone })),
    walletName: text(),
    personalId: nullable(text(12, { pattern: PERSONAL_ID_PATTERN })),
  });

export const GENDERS = ['Male', 'Female', 'Other', 'MALE', 'FEMALE', 'OTHER'] as const;
