import type { Currency } from './options';

/**
 * `orderGroupId` "distinguishes merchant balance groups by currency; by arrangement". The sandbox's
 * arrangement: the group id is the currency's ISO 4217 numeric code; no group means VND.
 */
export const ORDER_GROUPS: Readonly<Record<number, Currency>> = {
  704: 'VND',
  840: 'USD',
  978: 'EUR',
  36: 'AUD',
  124: 'CAD',
  826: 'GBP',
  392: 'JPY',
  410: 'KRW',
  901: 'TWD',
  764: 'THB',
};

/** The currency of a balance group, or undefined for a group the sandbox does not know (2019). */
export function currencyOfGroup(orderGroupId: unknown): Currency | undefined {
  if (orderGroupId === undefined || orderGroupId === null) return 'VND';
  return typeof orderGroupId === 'number' ? ORDER_GROUPS[orderGroupId] : undefined;
}
