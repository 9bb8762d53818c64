export * from './holds';
