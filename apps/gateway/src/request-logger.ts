import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@quarry/config';

/** One structured line per HTTP request: method, path, status, duration. */
export function requestLogger(logger: Logger) {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'info' : 'debug';
      logger[level]({ method: request.method, path: request.originalUrl, status: response.statusCode, ms: Math.round(ms * 10) / 10 }, 'http');
    });
    next();
  };
}
