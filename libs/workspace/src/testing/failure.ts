import { QuarryError } from '@quarry/contracts/errors';

/** The QuarryError a promise rejects with; fails the test if it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<QuarryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof QuarryError) return error;
    throw error;
  }
  throw new Error('expected a QuarryError, got a result');
}
