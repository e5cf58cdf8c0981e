export * from './job-options';
export * from './redis-connection';
export * from './cancel-channel';
export * from './queue-registry';
export * from './reconciler';
export * from './scan-shards';
