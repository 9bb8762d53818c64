/** The payments contracts every layer shares: import this module, never a file inside it. */
export * from './payments';
export * from './payment-desk';
export * from './refunds';
export * from './terminal-settlements';
export * from './activity-interface';
