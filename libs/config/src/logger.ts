import pino, { Logger } from 'pino';

/**
 * Structured JSON logs, on stdout by default; `pino-pretty` makes them readable on a terminal.
 * Give file descriptor 2 where stdout belongs to a protocol (`quarry mcp` speaks MCP on it).
 */
export function createLogger(name: string, level: string = process.env.QUARRY_LOG_LEVEL ?? 'info', fd: 1 | 2 = 1): Logger {
  return pino({ name, level, base: { pid: process.pid, service: name } }, fd === 1 ? undefined : pino.destination({ fd, sync: true }));
}
export type { Logger };
