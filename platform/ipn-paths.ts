/** Paths of payrun's notification receivers: the API serves them, activities hand them to the gateway. */
export const ipnPaths = {
  batch: '/ipn/disbursement-batch',
  disbursement: '/ipn/disbursement',
  remittance: '/ipn/remittance',
  subscription: '/ipn/subscription',
  payment: '/ipn/payment',
  paymentCard: '/ipn/payment-card',
  tokens: '/ipn/tokens',
  unbind: '/ipn/token-unbind',
} as const;

/** The customer's redirect after paying (GET with the signed notification parameters). */
export const paymentReturnPath = '/payments/return';
