import { Code, isAsciiPunctuation, isWhitespace, opensMentionContext } from './chars';
import { InlineCodeSkipper, skipFencedBlock } from './code-regions';
import { readMention } from './mention-reader';
import type { ParseResult } from './types';

/**
 * Finds the mentions in a prompt in one pass, a scanner with states: fenced blocks and inline
 * code are skipped whole, `\` escapes the next punctuation character (so `\@` is plain text), and
 * an `@` is read as a mention only where a mention may start. Pure and total: any string parses,
 * and what was meant as a mention but is malformed comes back in `errors`, never thrown.
 */
export function parseMentions(text: string): ParseResult {
  const out: ParseResult = { mentions: [], errors: [] };
  const inlineCode = new InlineCodeSkipper(text);
  // Only four characters change the scanner's state; a native search jumps over the prose between them.
  const special = /[\n@\\`]/g;
  let p = 0;
  let atLineStart = true;
  while (p < text.length) {
    if (atLineStart) {
      atLineStart = false;
      const afterFence = skipFencedBlock(text, p);
      if (afterFence > p) {
        p = afterFence;
        atLineStart = true;
        continue;
      }
    }
    special.lastIndex = p;
    if (!special.test(text)) break;
    p = special.lastIndex - 1;
    const code = text.charCodeAt(p);
    if (code === Code.Newline) {
      atLineStart = true;
      p++;
    } else if (code === Code.Backslash) {
      p += p + 1 < text.length && isAsciiPunctuation(text.charCodeAt(p + 1)) ? 2 : 1;
    } else if (code === Code.Backtick) {
      p = inlineCode.skip(p);
    } else if (mayStartMention(text, p)) {
      p = readMention(text, p, out);
    } else {
      p++;
    }
  }
  return out;
}

/** At the start of the text, after whitespace, or after an opening bracket or quote: `user@example.com` is no mention. */
function mayStartMention(text: string, at: number): boolean {
  if (at === 0) return true;
  const before = text.charCodeAt(at - 1);
  return isWhitespace(before) || opensMentionContext(before);
}
