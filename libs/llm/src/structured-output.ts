import { z } from 'zod';
import { QuarryError } from '@quarry/contracts';

/**
 * Turning a model's text into a typed value. The server's JSON-schema enforcement is a hint, not
 * a guarantee: many OpenAI-compatible servers ignore `response_format`, some wrap the JSON in a
 * Markdown fence, and small models drift from the schema. So the answer is always parsed and
 * validated again here, and every failure says what came back and where it went wrong.
 */

/** How much of a bad answer an error message quotes: enough to recognise it, not a log flood. */
const QUOTE_CHARS = 160;

/**
 * The JSON Schema sent as `response_format.json_schema.schema`. `$schema` is dropped because
 * OpenAI's strict mode accepts a subset of JSON Schema and some servers reject unknown keywords.
 */
export function toResponseSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

/** The text between the first ```json (or bare ```) fence and its closing fence; the text itself when there is none. */
export function stripJsonFence(text: string): string {
  const fenced = /```[ \t]*(?:json5?|JSON)?[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  return (fenced ? fenced[1] : text).trim();
}

/** A one-line excerpt of an answer for an error message. */
export function clip(text: string, max = QUOTE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

/** `a.b[2].c`, or `(root)` for a problem with the whole value. */
export function issuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/** Parses and validates one answer; throws `llm_invalid_output` (permanent: asking again at temperature 0 gives the same answer). */
export function parseStructuredAnswer<T>(raw: string, schema: z.ZodType<T>, schemaName: string): T {
  const text = stripJsonFence(raw);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new QuarryError('llm_invalid_output', `The LLM's answer for ${schemaName} is not JSON (${(error as Error).message}): ${clip(raw)}`, {
      suggestion: 'Use a model that supports structured output (JSON schema), or one that follows JSON instructions more closely.',
      cause: error,
    });
  }
  const checked = schema.safeParse(json);
  if (!checked.success) {
    const problems = checked.error.issues.slice(0, 3).map((issue) => `at ${issuePath(issue.path)}: ${issue.message}`);
    const more = checked.error.issues.length > 3 ? ` (+${checked.error.issues.length - 3} more)` : '';
    throw new QuarryError('llm_invalid_output', `The LLM's answer does not match ${schemaName} ${problems.join('; ')}${more}: ${clip(raw)}`, {
      suggestion: 'The model drifted from the schema; a larger model or one with strict JSON-schema support is more reliable.',
      cause: checked.error,
    });
  }
  return checked.data;
}
