import { QuarryError } from './errors';

/**
 * Text Postgres cannot keep in a `jsonb` column: a NUL character, or half of a UTF-16 surrogate
 * pair (JSON can spell `"\ud800"`, but it is not Unicode text). A job input holding one would be
 * refused by the database after it passed validation, so it is refused before, naming the field.
 */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000)';
  if (UNPAIRED_SURROGATE.test(text)) return 'contains half of a UTF-16 surrogate pair, which is not Unicode text';
  return undefined;
}

/** Throws `input_invalid` naming the first string (or key) of `value` that cannot be stored. */
export function assertStorableText(value: unknown, where: string): void {
  const stack: Array<{ value: unknown; where: string }> = [{ value, where }];
  while (stack.length > 0) {
    const { value: current, where: path } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = problemOf(current);
      if (problem) {
        throw new QuarryError('input_invalid', `${path} ${problem}.`, { suggestion: 'Send valid UTF-8 text without NUL characters.' });
      }
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push({ value: item, where: `${path}[${index}]` }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const problem = problemOf(key);
        if (problem) throw new QuarryError('input_invalid', `${path}: a key ${problem}.`, { suggestion: 'Send valid UTF-8 text without NUL characters.' });
        stack.push({ value: item, where: `${path}.${key}` });
      }
    }
  }
}
