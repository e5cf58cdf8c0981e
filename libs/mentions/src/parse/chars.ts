/*
 * Character classes of the mention grammar, on UTF-16 code units. Everything the grammar treats
 * specially is ASCII, so Unicode paths pass through as ordinary characters.
 */

export const Code = {
  Tab: 9,
  Newline: 10,
  CarriageReturn: 13,
  Space: 32,
  DoubleQuote: 34,
  Hash: 35,
  SingleQuote: 39,
  OpenParen: 40,
  CloseParen: 41,
  Colon: 58,
  Less: 60,
  Greater: 62,
  At: 64,
  OpenBracket: 91,
  Backslash: 92,
  CloseBracket: 93,
  Backtick: 96,
  OpenBrace: 123,
  Pipe: 124,
  CloseBrace: 125,
  Tilde: 126,
  LeftDoubleQuote: 0x201c,
  RightDoubleQuote: 0x201d,
} as const;

/** ASCII controls and space, plus the Unicode spaces a pasted prompt may carry. */
export function isWhitespace(code: number): boolean {
  if (code <= Code.Space) return true;
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Characters after which an `@` may start a mention (besides whitespace and the start of the text). */
export function opensMentionContext(code: number): boolean {
  return code === Code.OpenParen || code === Code.OpenBracket || code === Code.OpenBrace || code === Code.DoubleQuote || code === Code.SingleQuote;
}

/** `\` before one of these escapes it (CommonMark's backslash escapes), so `\@` and `` \` `` are plain text. */
export function isAsciiPunctuation(code: number): boolean {
  return (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126);
}

/** Sentence punctuation that ends a mention rather than belonging to it: `see @notes.md.` */
export function isTrailingPunctuation(code: number): boolean {
  return code === 46 /* . */ || code === 44 /* , */ || code === 59 /* ; */ || code === Code.Colon || code === 33 /* ! */ || code === 63 /* ? */;
}

export function isSmartDoubleQuote(code: number): boolean {
  return code === Code.LeftDoubleQuote || code === Code.RightDoubleQuote;
}

export function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Index of the end of the line containing `from` (the `\n`, or a `\r` right before it, or the text's end). */
export function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  const end = newline < 0 ? text.length : newline;
  return end > from && text.charCodeAt(end - 1) === Code.CarriageReturn ? end - 1 : end;
}
