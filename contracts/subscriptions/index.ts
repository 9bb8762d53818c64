/** The subscriptions contracts every layer shares: import this module, never a file inside it. */
export * from './billing-calendar';
export * from './subscriptions';
export * from './activity-interface';
export * from './price-changes';
export * from './revenue';
export * from './dunning';
export * from './notices';
export * from './billing-runs';
export * from './subscription-desk';
