/** Paths of payrun's notification receivers: the API serves them, activities hand them to the gateway. */
export const ipnPaths = {
  batch: '/ipn/disbursement-batch',
  disbursement: '/ipn/disbursement',
  remittance: '/ipn/remittance',
} as const;
