import type { LoggerService } from '@nestjs/common';
import { createLogger, Logger } from './logger';

/** Routes Nest's own log lines (module init, routes) into the same pino stream. */
export class PinoNestLogger implements LoggerService {
  private readonly logger: Logger;

  constructor(name: string, level?: string) {
    this.logger = createLogger(name, level);
  }

  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
