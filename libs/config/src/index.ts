export * from './quarry-config';
export * from './config.module';
export * from './logger';
export * from './nest-logger';
export * from './graceful-exit';
export * from './package-version';
