export * from './api-group';
export * from './managed-config-keys';
export * from './redis-cluster-spec';
export * from './redis-cluster-status';
export * from './redis-cluster-schema';
export * from './resolve-spec';
export * from './schema-helpers';
