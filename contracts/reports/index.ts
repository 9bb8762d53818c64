export * from './periods';
export * from './movements';
