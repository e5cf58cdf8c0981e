/*
 * A block's body as a list of lines, so it can be measured, cut at line boundaries and credited
 * back to the mentions that asked for each line.
 */

export interface BodyLine {
  /** Without its newline; rendered as `text + '\n'`. */
  text: string;
  /** UTF-8 bytes as rendered, newline included. */
  bytes: number;
  /** 1-based line number in the source; undefined for markers the augmenter writes. */
  line?: number;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Lines of `text` (a final newline ends the last line rather than starting an empty one). */
export function splitLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function bodyLine(text: string, line?: number): BodyLine {
  return { text, bytes: utf8Bytes(text) + 1, line };
}

/** Numbered lines `first..last` (1-based, inclusive) of `lines`. */
export function numberedLines(lines: readonly string[], first = 1, last = lines.length): BodyLine[] {
  const out: BodyLine[] = [];
  for (let n = first; n <= last; n++) out.push(bodyLine(lines[n - 1], n));
  return out;
}

export function totalBytes(body: readonly BodyLine[]): number {
  let sum = 0;
  for (const line of body) sum += line.bytes;
  return sum;
}

function elisionText(elided: readonly BodyLine[]): string {
  const numbered = elided.filter((line) => line.line !== undefined);
  if (numbered.length === 0) return '… elided …';
  const first = numbered[0].line;
  const last = numbered[numbered.length - 1].line;
  return numbered.length === 1 ? `… 1 line elided (line ${first}) …` : `… ${numbered.length} lines elided (lines ${first}-${last}) …`;
}

/**
 * The most an elision marker for `body` can take: every number written with as many digits as
 * the largest line number, so the bound holds whatever gets elided.
 */
export function elisionBound(body: readonly BodyLine[]): number {
  let largest = body.length;
  for (const line of body) if (line.line !== undefined && line.line > largest) largest = line.line;
  const digits = '9'.repeat(String(largest).length);
  return utf8Bytes(`… ${digits} lines elided (lines ${digits}-${digits}) …`) + 1;
}

/**
 * Keeps the head and the tail of `body` within `allowance` bytes, replacing the middle with one
 * elision marker. Head and tail share the room evenly; whatever one half cannot use goes to the
 * other. Needs `allowance >= elisionBound(body)`; cuts only at line boundaries.
 */
export function keepHeadAndTail(body: readonly BodyLine[], allowance: number): BodyLine[] {
  if (totalBytes(body) <= allowance) return [...body];
  const room = allowance - elisionBound(body);
  let used = 0;
  let head = 0;
  let tail = 0;
  const fits = (line: BodyLine, limit: number) => used + line.bytes <= limit;
  while (head < body.length && fits(body[head], Math.floor(room / 2))) used += body[head++].bytes;
  while (tail < body.length - head && fits(body[body.length - 1 - tail], room)) used += body[body.length - 1 - tail++].bytes;
  while (head < body.length - tail && fits(body[head], room)) used += body[head++].bytes;
  const elided = body.slice(head, body.length - tail);
  return [...body.slice(0, head), bodyLine(elisionText(elided)), ...body.slice(body.length - tail)];
}

/**
 * Keeps the head of a ranked body within `allowance` bytes (best first: its end is what matters
 * least), ending at a blank line — between two spans — when the kept part has one, then one
 * elision marker. Needs `allowance >= elisionBound(body)`; cuts only at line boundaries.
 */
export function keepHead(body: readonly BodyLine[], allowance: number): BodyLine[] {
  if (totalBytes(body) <= allowance) return [...body];
  const room = allowance - elisionBound(body);
  let used = 0;
  let head = 0;
  while (head < body.length && used + body[head].bytes <= room) used += body[head++].bytes;
  let boundary = head;
  while (boundary > 0 && body[boundary - 1].text !== '') boundary--;
  if (boundary > 0) head = boundary;
  return [...body.slice(0, head), bodyLine(elisionText(body.slice(head)))];
}
