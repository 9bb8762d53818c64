/** Public surface of the gateway protocol library. */
export * from './operations';
export * from './signature';
export * from './crypto';
export * from './request-crypto';
export * from './result-codes';
export * from './evidence';
export * from './classify-result';
export * from './limits';
export * from './errors';
export * from './retry';
export * from './response';
export * from './client';
export * from './notifications';
export * from './sensitive-fields';
export { validateRequest, assertValidRequest, checkFields, fieldsCheck } from './validation';
export * from './item-reasons';
export * from './name-check';
