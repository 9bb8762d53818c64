export * from './approvals';
export * from './people';
export * from './policy';
