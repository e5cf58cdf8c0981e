import type { z } from 'zod';
import { QuarryError } from './errors';

/** Parse with a schema; a mismatch becomes a typed `input_invalid` naming the first bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what = 'input'): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${what}.${issue.path.join('.')}` : what;
  throw new QuarryError('input_invalid', `${where}: ${issue?.message ?? 'invalid value'}`, {
    suggestion: describeExpected(parsed.error.issues.length),
  });
}

function describeExpected(issueCount: number): string {
  return issueCount > 1
    ? `Fix this field and ${issueCount - 1} more; see /docs for the schema.`
    : 'See /docs for the schema of each job kind.';
}
