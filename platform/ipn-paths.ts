/** Paths of payrun's notification receivers: the API serves them, activities hand them to the gateway. */
export const ipnPaths = {
  batch: '/ipn/disbursement-batch',
  disbursement: '/ipn/disbursement',
  remittance: '/ipn/remittance',
  subscription: '/ipn/subscription',
  payment: '/ipn/payment',
  paymentCard: '/ipn/payment-card',
  savedMethods: '/ipn/saved-methods',
  unbind: '/ipn/saved-method-unbind',
} as const;

/**
 * Receivers' paths before the saved-method capability was renamed. The gateway keeps the ipnUrl an order
 * was created with, and the unbind URL is set in the merchant's gateway profile, so both stay served until
 * no order of the previous release is open and the profile points to the new path.
 */
export const formerIpnPaths = {
  savedMethods: '/ipn/tokens',
  unbind: '/ipn/token-unbind',
} as const satisfies Partial<Record<keyof typeof ipnPaths, string>>;

/** The customer's redirect after paying (GET with the signed notification parameters). */
export const paymentReturnPath = '/payments/return';
