/** The saved-methods contracts every layer shares: import this module, never a file inside it. */
export * from './activity-interface';
export * from './bindings';
export * from './methods';
export * from './otp-rules';
export * from './payments';
