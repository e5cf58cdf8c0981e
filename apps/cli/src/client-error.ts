import type { QuarryErrorBody } from '@quarry/contracts';

/** A failure the server reported as a typed error (or a transport failure dressed as one). */
export class ClientError extends Error {
  constructor(
    readonly body: QuarryErrorBody,
    readonly status?: number,
  ) {
    super(body.message);
  }
}
