import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { Request, Response } from 'express';
import { QuarryErrorBody, httpStatusFor, isQuarryError } from '@quarry/contracts';
import type { Logger } from '@quarry/config';
import { GATEWAY_LOGGER } from '../gateway.tokens';
import { describeBodyError } from './body-errors';

/** Every HTTP error leaves as `{kind, message, suggestion?}` with a status derived from the kind. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(@Inject(GATEWAY_LOGGER) private readonly logger: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const { status, body } = this.describe(error, host.switchToHttp().getRequest<Request>());
    if (status >= 500) this.logger.error({ err: error }, 'request failed');
    response.status(status).json(body);
  }

  private describe(error: unknown, request: Request | undefined): { status: number; body: QuarryErrorBody | Record<string, unknown> } {
    if (isQuarryError(error)) return { status: httpStatusFor(error.kind), body: error.toBody() };
    const bodyError = describeBodyError(error, request);
    if (bodyError) return bodyError;
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const response = error.getResponse();
      // Readiness reports its own body.
      if (typeof response === 'object' && response !== null && 'status' in response && status === 503) return { status, body: response as Record<string, unknown> };
      const kind = status === 404 ? 'not_found' : status === 401 ? 'unauthorized' : status === 403 ? 'forbidden' : status >= 500 ? 'internal' : 'input_invalid';
      return { status, body: { kind, message: error.message } };
    }
    if (isBackendOutage(error)) {
      return {
        status: 503,
        body: { kind: 'unavailable', message: 'The database or queue is not reachable right now.', suggestion: 'Retry shortly; GET /ready tells when the service is back.' },
      };
    }
    return { status: 500, body: { kind: 'internal', message: 'Something went wrong on the server.', suggestion: 'Try again; if it persists, check the gateway logs.' } };
  }
}

/** Connection failures to Postgres (through Prisma or pg) or Redis: the request may succeed later. */
function isBackendOutage(error: unknown): boolean {
  const candidate = error as { name?: string; code?: string; message?: string; cause?: unknown } | null;
  if (!candidate) return false;
  if (candidate.name === 'PrismaClientInitializationError') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'P1001', 'P1002', 'P1017'].includes(candidate.code ?? '')) return true;
  // Postgres going down or starting up: connection exceptions (08xxx), admin/crash shutdown and "starting up" (57P01–57P03).
  if (/^(08[0-9A-Z]{3}|57P0[123])$/.test(candidate.code ?? '')) return true;
  if (/Connection is closed|Can't reach database server|connect ECONNREFUSED|Stream isn't writeable|Connection terminated/i.test(candidate.message ?? '')) return true;
  return candidate.cause !== undefined && candidate.cause !== error && isBackendOutage(candidate.cause);
}
