/** The events contracts every layer shares: import this module, never a file inside it. */
export * from './webhooks';
export * from './activity-interface';
