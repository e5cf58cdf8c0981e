import { createLogger } from '@quarry/config';

export const WORKER_LOGGER = Symbol('WORKER_LOGGER');
export const workerLoggerProvider = { provide: WORKER_LOGGER, useFactory: () => createLogger('quarry-worker') };
