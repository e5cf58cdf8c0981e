import { QUARRY_CONFIG, QuarryConfig, createLogger } from '@quarry/config';

export const WORKER_LOGGER = Symbol('WORKER_LOGGER');
export const workerLoggerProvider = {
  provide: WORKER_LOGGER,
  inject: [QUARRY_CONFIG],
  useFactory: (config: QuarryConfig) => createLogger('quarry-worker', config.logLevel),
};
