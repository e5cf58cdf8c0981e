import { createHash } from 'node:crypto';
import { QuarryError } from '@quarry/contracts';

/**
 * Where the next page of an answer starts, handed to the agent as an opaque string and read back
 * by any process of any transport, after any restart: everything a continuation needs is inside
 * it — the tool, the arguments it belongs to (as a hash), the tool's own position (a line and
 * column, an item's ordinal), the identity of the content that position refers to (a file's blob
 * id, or a hash of every item before it), and for a git URL the commit the first page read.
 *
 * It is checksummed, not signed: a cursor grants nothing. The continued call is checked like a
 * fresh one (the same key, the same workspace roots) and reads the content again; a forged
 * position could only ask for a page the caller may ask for with startLine anyway. The checksum
 * catches what does happen: a cursor cut short or altered when a model copies it.
 */
export interface AnswerCursor {
  tool: string;
  /** Hash of the call's arguments, cursor and maxTokens aside. */
  call: string;
  /** The tool's position of the next page's first item (JSON). */
  at: unknown;
  /** The content the position refers to; a continuation that finds other content is stale. */
  version: string;
  /** The job whose result is paged (a job-backed tool): read back instead of running it again when it is still kept. */
  job?: string;
  /** For a git URL: the commit the first page read, which every later page reads too. */
  commit?: string;
  /**
   * The call's arguments when they are short (a path, a pattern): then `{"cursor": …}` alone
   * continues, the agent need not repeat them. Longer ones (a task, a prompt) travel as the hash
   * only, and are passed again.
   */
  args?: Record<string, unknown>;
}

/** Arguments longer than this (as JSON) are not carried in the cursor. */
const CARRIED_ARGUMENTS_BYTES = 400;

const PREFIX = 'q1.';
const CHECKSUM_CHARACTERS = 10;
/** A cursor is an argument a model writes back: generous, but bounded. */
export const MAX_CURSOR_LENGTH = 2_048;

interface Encoded {
  t: string;
  c: string;
  a: unknown;
  v: string;
  j?: string;
  k?: string;
  r?: Record<string, unknown>;
}

export function encodeCursor(cursor: AnswerCursor): string {
  const carried = cursor.args && Buffer.byteLength(JSON.stringify(cursor.args)) <= CARRIED_ARGUMENTS_BYTES ? cursor.args : undefined;
  const encoded: Encoded = {
    t: cursor.tool,
    c: cursor.call,
    a: cursor.at,
    v: cursor.version,
    ...(cursor.job ? { j: cursor.job } : {}),
    ...(cursor.commit ? { k: cursor.commit } : {}),
    ...(carried ? { r: carried } : {}),
  };
  const payload = Buffer.from(JSON.stringify(encoded)).toString('base64url');
  return `${PREFIX}${payload}.${checksum(payload)}`;
}

/**
 * The cursor `text` holds, checked to belong to this tool and these arguments; `cursor_invalid`
 * (with what to do) for anything else.
 */
export function decodeCursor(text: string, tool: string, call: string): AnswerCursor {
  const encoded = readCursor(text);
  if (encoded.t !== tool) throw invalid(`The cursor continues a ${encoded.t} answer, not a ${tool} one.`, `Call ${encoded.t} with it, with the same arguments as before.`);
  if (encoded.c !== call) throw invalid(`The cursor belongs to a ${tool} call with other arguments.`, 'Pass the same arguments as the call whose answer gave the cursor (only maxTokens may change), or leave cursor out to start over.');
  return {
    tool: encoded.t,
    call: encoded.c,
    at: encoded.a,
    version: encoded.v,
    ...(encoded.j ? { job: encoded.j } : {}),
    ...(encoded.k ? { commit: encoded.k } : {}),
    ...(encoded.r ? { args: encoded.r } : {}),
  };
}

/**
 * The arguments a cursor of this tool carries, if any: what `{"cursor": …}` alone stands for
 * (the call's arguments are then checked against it by decodeCursor). A string that is not a
 * cursor carries none, and is left for decodeCursor to refuse.
 */
export function argumentsOf(text: string, tool: string): Record<string, unknown> {
  try {
    const encoded = readCursor(text);
    return encoded.t === tool && encoded.r && typeof encoded.r === 'object' && !Array.isArray(encoded.r) ? encoded.r : {};
  } catch {
    return {};
  }
}

function invalid(message: string, suggestion = 'Pass nextCursor exactly as the previous answer gave it, with the same arguments; or leave cursor out to start from the beginning.'): QuarryError {
  return new QuarryError('cursor_invalid', message, { suggestion });
}

function readCursor(text: string): Encoded {
  const match = /^q1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(text.trim());
  if (!match || checksum(match[1]) !== match[2]) throw invalid('The cursor is not one this server handed out (or it was cut short when copied).');
  let encoded: Encoded;
  try {
    encoded = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8')) as Encoded;
  } catch {
    throw invalid('The cursor is not one this server handed out.');
  }
  if (typeof encoded?.t !== 'string' || typeof encoded.c !== 'string' || typeof encoded.v !== 'string') throw invalid('The cursor is not one this server handed out.');
  return encoded;
}

/** The identity of a call's arguments: key order and the paging arguments do not matter. */
export function callKey(args: Record<string, unknown>): string {
  const { cursor: _cursor, maxTokens: _maxTokens, ...rest } = args;
  return createHash('sha256').update(canonicalJson(rest)).digest('base64url').slice(0, 16);
}

/** The identity of a sequence of items (those before a position): a continuation finds the same ones or is stale. */
export function itemsKey(items: Iterable<unknown>): string {
  const hash = createHash('sha256');
  for (const item of items) hash.update(typeof item === 'string' ? item : canonicalJson(item)).update('\0');
  return hash.digest('base64url').slice(0, 16);
}

export function staleCursor(tool: string, what: string): QuarryError {
  return new QuarryError('cursor_stale', `The ${what} changed since the cursor was handed out, so its page would skip or repeat items.`, {
    suggestion: `Call ${tool} again without cursor (the same arguments) to start from the beginning of the current content.`,
  });
}

function checksum(payload: string): string {
  return createHash('sha256').update('quarry answer cursor\0').update(payload).digest('base64url').slice(0, CHECKSUM_CHARACTERS);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
