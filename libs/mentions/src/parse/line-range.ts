import { isDigit } from './chars';
import type { LineRange } from './types';

export type RangeParse = { range: LineRange } | { message: string; suggestion: string };

const MAX_DIGITS = 9;
const RANGE_FORMS = '#L10 (one line), #L10-20 or #L10-L20 (inclusive), #L10- (to the end)';

/**
 * Reads the text after `#` (`L10`, `L10-20`, `L10-L20`, `L100-`; `l` is accepted for `L`) into a
 * 1-based inclusive range. A range that is out of order, starts at 0, lacks the `L` or is not a
 * range at all is an error with the corrected mention as the suggestion, never dropped.
 * `mentionHead` is the mention up to the `#` (`@src/app.ts`), used to write suggestions.
 */
export function parseLineRange(rangeText: string, mentionHead: string): RangeParse {
  const written = `${mentionHead}#${rangeText}`;
  const form = readRangeForm(rangeText);
  if (!form || form.tooLong) {
    return {
      message: form?.tooLong ? `"#${rangeText}" has a line number with more than ${MAX_DIGITS} digits` : `"#${rangeText}" is not a line range`,
      suggestion: `Line ranges are written ${RANGE_FORMS}, e.g. ${mentionHead}#L10-20`,
    };
  }
  const { start, end, hasL } = form;
  const fixed = `${mentionHead}#${formatRange(normalize(start, end))}`;
  if (!hasL) return { message: `"#${rangeText}" needs an L before the line number`, suggestion: `Did you mean ${fixed}?` };
  if (start < 1 || (end !== undefined && end < 1)) return { message: `Line numbers start at 1, not 0: ${written}`, suggestion: `Did you mean ${fixed}?` };
  if (end !== undefined && end < start) return { message: `The range in ${written} ends before it starts`, suggestion: `Did you mean ${fixed}?` };
  return { range: end === undefined ? { start } : { start, end } };
}

interface RangeForm {
  start: number;
  /** undefined: open range (`#L100-`) */
  end: number | undefined;
  hasL: boolean;
  tooLong: boolean;
}

function readRangeForm(text: string): RangeForm | undefined {
  let p = 0;
  const hasL = text[p] === 'L' || text[p] === 'l';
  if (hasL) p++;
  const first = readNumber(text, p);
  if (!first) return undefined;
  p = first.end;
  if (p === text.length) return { start: first.value, end: first.value, hasL, tooLong: first.tooLong };
  if (text[p] !== '-') return undefined;
  p++;
  if (p === text.length) return { start: first.value, end: undefined, hasL, tooLong: first.tooLong };
  if (text[p] === 'L' || text[p] === 'l') p++;
  const second = readNumber(text, p);
  if (!second || second.end !== text.length) return undefined;
  return { start: first.value, end: second.value, hasL, tooLong: first.tooLong || second.tooLong };
}

function readNumber(text: string, from: number): { value: number; end: number; tooLong: boolean } | undefined {
  let p = from;
  while (p < text.length && isDigit(text.charCodeAt(p))) p++;
  if (p === from) return undefined;
  const digits = text.slice(from, p);
  return { value: Number(digits), end: p, tooLong: digits.replace(/^0+/, '').length > MAX_DIGITS };
}

/** The range the user most likely meant: ordered, starting at 1 at the least. */
function normalize(start: number, end: number | undefined): LineRange {
  if (end === undefined) return { start: Math.max(1, start) };
  const low = Math.max(1, Math.min(start, end));
  return { start: low, end: Math.max(low, start, end) };
}

/** `L10`, `L10-20`, `L10-`: the canonical spelling of a range. */
export function formatRange(range: LineRange): string {
  if (range.end === undefined) return `L${range.start}-`;
  return range.end === range.start ? `L${range.start}` : `L${range.start}-${range.end}`;
}
