import pino, { Logger } from 'pino';

/** Structured JSON logs on stdout; `pino-pretty` makes them readable on a terminal. */
export function createLogger(name: string, level: string = process.env.QUARRY_LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, base: { pid: process.pid, service: name } });
}
export type { Logger };
