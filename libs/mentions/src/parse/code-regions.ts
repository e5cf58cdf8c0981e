import { Code, lineEnd } from './chars';

/*
 * Markdown code is left alone: mentions inside inline code spans and fenced blocks are examples,
 * not requests. The rules follow CommonMark where it matters to prompts, and are lenient where
 * prompts are sloppier than documents: a fence may be indented by any amount, an unterminated
 * fence runs to the end of the text, an inline span cannot cross a blank line or a fence.
 */

interface Fence {
  char: number;
  length: number;
}

/** The fence opened by the line starting at `lineStart`, or undefined if that line opens none. */
function fenceOpenedAt(text: string, lineStart: number): Fence | undefined {
  let p = lineStart;
  while (p < text.length && (text.charCodeAt(p) === Code.Space || text.charCodeAt(p) === Code.Tab)) p++;
  const char = text.charCodeAt(p);
  if (char !== Code.Backtick && char !== Code.Tilde) return undefined;
  const runEnd = endOfRun(text, p, char);
  if (runEnd - p < 3) return undefined;
  // A backtick in the info string means this is inline code (```a```), not a fence.
  if (char === Code.Backtick) {
    const tick = text.indexOf('`', runEnd);
    if (tick >= 0 && tick < lineEnd(text, runEnd)) return undefined;
  }
  return { char, length: runEnd - p };
}

function closesFence(text: string, lineStart: number, fence: Fence): boolean {
  let p = lineStart;
  while (p < text.length && (text.charCodeAt(p) === Code.Space || text.charCodeAt(p) === Code.Tab)) p++;
  const runEnd = endOfRun(text, p, fence.char);
  if (runEnd - p < fence.length) return false;
  return isBlank(text, runEnd, lineEnd(text, runEnd));
}

/**
 * If a fenced code block opens on the line starting at `lineStart`, the index just after its
 * closing fence line (or the end of the text); otherwise `lineStart` itself.
 */
export function skipFencedBlock(text: string, lineStart: number): number {
  const fence = fenceOpenedAt(text, lineStart);
  if (!fence) return lineStart;
  let next = nextLineStart(text, lineStart);
  while (next < text.length) {
    const after = nextLineStart(text, next);
    if (closesFence(text, next, fence)) return after;
    next = after;
  }
  return text.length;
}

/**
 * Finds the ends of inline code spans. Remembers, per backtick-run length, up to where no closing
 * run exists, so a prompt full of unmatched backticks is still scanned in linear time.
 */
export class InlineCodeSkipper {
  private readonly noCloserBefore = new Map<number, number>();
  private paragraph = { from: -1, end: -1 };

  constructor(private readonly text: string) {}

  /** `at` is the first backtick of a run: the index after the span it opens, or after the run if it opens none. */
  skip(at: number): number {
    const text = this.text;
    const runEnd = endOfRun(text, at, Code.Backtick);
    const length = runEnd - at;
    if (runEnd < (this.noCloserBefore.get(length) ?? -1)) return runEnd;
    const limit = this.paragraphEnd(runEnd);
    let tick = text.indexOf('`', runEnd);
    while (tick >= 0 && tick < limit) {
      const closerEnd = endOfRun(text, tick, Code.Backtick);
      if (closerEnd - tick === length) return closerEnd;
      tick = text.indexOf('`', closerEnd);
    }
    this.noCloserBefore.set(length, limit);
    return runEnd;
  }

  /** Where the paragraph holding `from` ends: a blank line, a fence line, or the end of the text. */
  private paragraphEnd(from: number): number {
    if (from >= this.paragraph.from && from <= this.paragraph.end) return this.paragraph.end;
    const text = this.text;
    let end = text.length;
    for (let newline = text.indexOf('\n', from); newline >= 0; newline = text.indexOf('\n', newline + 1)) {
      const next = newline + 1;
      if (isBlank(text, next, lineEnd(text, next)) || fenceOpenedAt(text, next)) {
        end = newline;
        break;
      }
    }
    this.paragraph = { from, end };
    return end;
  }
}

function endOfRun(text: string, from: number, char: number): number {
  let p = from;
  while (p < text.length && text.charCodeAt(p) === char) p++;
  return p;
}

function nextLineStart(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline < 0 ? text.length : newline + 1;
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let p = from; p < to; p++) {
    const code = text.charCodeAt(p);
    if (code !== Code.Space && code !== Code.Tab && code !== Code.CarriageReturn) return false;
  }
  return true;
}
