/** The payouts contracts every layer shares: import this module, never a file inside it. */
export * from './activity-interface';
export * from './disbursements';
export * from './disbursement-desk';
export * from './runs';
export * from './balance-watch';
export * from './recurring';
