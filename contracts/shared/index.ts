/** The shared contracts every layer shares: import this module, never a file inside it. */
export * from './backoff';
export * from './durations';
export * from './errors';
export * from './gateway-queues';
export * from './search-attributes';
export * from './stack-check';
export * from './workflow-types';
export * from './decision-proof';
export * from './persons';
export * from './system-decisions';
