/** The remittances contracts every layer shares: import this module, never a file inside it. */
export * from './remittances';
export * from './activity-interface';
