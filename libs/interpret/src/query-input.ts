import { MAX_QUERY_LENGTH, QuarryError } from '@quarry/contracts';

/**
 * The query as the planners may see it. An empty or blank query has nothing to plan, and one past
 * MAX_QUERY_LENGTH is a pasted document rather than a question: both are refused with a typed
 * `input_invalid` before any planner or tool runs (the gateway's schema says the same with a 400).
 */
export function checkQuery(query: unknown): string {
  if (typeof query !== 'string' || query.trim().length === 0) {
    throw new QuarryError('input_invalid', 'The query is empty.', { suggestion: 'Ask a question about the workspace, e.g. "where is fetchUser defined?".' });
  }
  if (query.length > MAX_QUERY_LENGTH) {
    throw new QuarryError('input_invalid', `The query is ${query.length.toLocaleString('en-US')} characters long; at most ${MAX_QUERY_LENGTH.toLocaleString('en-US')} are accepted.`, {
      suggestion: 'Ask a shorter question; to work on a long text, put it in a file of the workspace and name the file.',
    });
  }
  return query;
}
