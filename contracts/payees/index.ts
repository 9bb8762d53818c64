export * from './payees';
