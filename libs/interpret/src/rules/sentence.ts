/**
 * A cleaned query as tokens with their offsets, and which of them a part of the parse has already
 * claimed. Location and filter phrases are taken out of the sentence as they are recognised, so
 * that what is left over is the object ("TODO" in "any TODOs in src, first 5?"), and no word that
 * belonged to a phrase leaks into an argument.
 */

export interface Token {
  /** As written, minus sentence punctuation around it (quotes removed for a quoted token). */
  text: string;
  lower: string;
  /** Offsets in the sentence text, quotes included for a quoted token. */
  start: number;
  end: number;
  /** From "…", '…', `…` or “…”: taken literally, never a keyword. */
  quoted: boolean;
  /** Position among the tokens. */
  index: number;
}

const QUOTED = /"([^"]+)"|'([^']+)'|`([^`]+)`|“([^”]+)”/g;
const WORD = /\S+/g;

export class Sentence {
  readonly tokens: Token[];
  private readonly claimed: boolean[];
  /** The text with quoted strings blanked out, offsets kept: patterns run on this. */
  private openText: string;

  constructor(readonly text: string) {
    const tokens: Array<Omit<Token, 'index'>> = [];
    let open = text;
    for (const match of text.matchAll(QUOTED)) {
      const start = match.index ?? 0;
      const inner = match[1] ?? match[2] ?? match[3] ?? match[4];
      // An apostrophe inside a word ("what's", "don't") opens no quote.
      if (match[0][0] === "'" && /\w/.test(text[start - 1] ?? '')) continue;
      if (open.slice(start, start + match[0].length).trim() !== match[0]) continue;
      tokens.push({ text: inner, lower: inner.toLowerCase(), start, end: start + match[0].length, quoted: true });
      open = open.slice(0, start) + ' '.repeat(match[0].length) + open.slice(start + match[0].length);
    }
    for (const match of open.matchAll(WORD)) {
      const raw = match[0];
      const start = match.index ?? 0;
      // An opening bracket goes unless the word closes it itself ("(foo|bar)Service" is one regex).
      const opened = /^[(<“"'`]+(?=\w)/.exec(raw)?.[0] ?? '';
      const balanced = opened.startsWith('(') && (raw.match(/\(/g)?.length ?? 0) <= (raw.match(/\)/g)?.length ?? 0);
      const lead = balanced ? 0 : opened.length;
      const body = raw.slice(lead);
      const word = body.slice(0, body.length - trailingPunctuation(body));
      if (word.length === 0) continue;
      tokens.push({ text: word, lower: word.toLowerCase(), start: start + lead, end: start + lead + word.length, quoted: false });
    }
    tokens.sort((a, b) => a.start - b.start);
    this.tokens = tokens.map((token, index) => ({ ...token, index }));
    this.claimed = this.tokens.map(() => false);
    this.openText = open;
  }

  /** Runs a pattern (with the `g` flag off) over the unclaimed, unquoted text; the match is claimed. */
  take(pattern: RegExp): RegExpExecArray | undefined {
    const match = pattern.exec(this.openText);
    if (!match) return undefined;
    this.claim(match.index, match.index + match[0].length);
    return match;
  }

  /** The unclaimed, unquoted text (offsets as in `text`). */
  get open(): string {
    return this.openText;
  }

  /**
   * The first match of a pattern over the unclaimed text (or over the whole text with quotes, for
   * phrases whose term may be quoted) that `accept` agrees with; it is claimed.
   */
  takeFirst(pattern: RegExp, accept: (match: RegExpMatchArray) => boolean = () => true, over: 'open' | 'text' = 'open'): RegExpMatchArray | undefined {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
    const subject = over === 'open' ? this.openText : this.text;
    // A rejected match is retried one character later, so overlapping candidates ("of 'x' in docs") are all seen.
    for (let match = global.exec(subject); match; global.lastIndex = match.index + 1, match = global.exec(subject)) {
      const start = match.index;
      // Never from the middle of a word ("his folder" inside "this folder").
      if (start > 0 && /[\w@.~/-]/.test(subject[start - 1]) && /[\w@.~/-]/.test(subject[start])) continue;
      if (over === 'text' && this.tokens.some((token) => token.start <= start && start < token.end && (this.claimed[token.index] || (token.quoted && token.start !== start)))) continue;
      if (!accept(match)) continue;
      this.claim(start, start + match[0].length);
      return match;
    }
    return undefined;
  }

  /** Like take, without claiming. */
  test(pattern: RegExp): RegExpExecArray | undefined {
    return pattern.exec(this.openText) ?? undefined;
  }

  /** Marks the tokens inside [start, end) as used by a phrase (blank edges, such as a quote blanked out, stay unclaimed). */
  claim(start: number, end: number): void {
    while (start < end && this.openText[start].trim() === '') start++;
    while (end > start && this.openText[end - 1].trim() === '') end--;
    if (start >= end) return;
    for (const token of this.tokens) {
      if (token.start < end && token.end > start) this.claimToken(token);
    }
    this.openText = this.openText.slice(0, start) + ' '.repeat(end - start) + this.openText.slice(end);
  }

  claimToken(token: Token): void {
    this.claimed[token.index] = true;
    this.openText = this.openText.slice(0, token.start) + ' '.repeat(token.end - token.start) + this.openText.slice(token.end);
  }

  isClaimed(token: Token): boolean {
    return this.claimed[token.index];
  }

  /** Tokens no phrase has claimed, in order. */
  rest(): Token[] {
    return this.tokens.filter((token) => !this.claimed[token.index]);
  }

  /** The sentence text from one token to another, as written (spaces inside a regex kept). */
  span(first: Token, last: Token): string {
    return first.quoted && first === last ? first.text : this.text.slice(first.start, last.end);
  }
}

const REGEX_CHARACTERS = /[\\([|^$*{]/;

/**
 * How many closing characters end a word as sentence punctuation: "src?" and "folder," lose them,
 * a call keeps its parentheses ("unwrap()", "open("), a regex keeps its own "?" and ":" ("err(or)?:").
 */
function trailingPunctuation(word: string): number {
  const regexy = REGEX_CHARACTERS.test(word);
  let count = 0;
  for (let at = word.length - 1; at > 0; at--) {
    const char = word[at];
    const kept = word.slice(0, at);
    if (char === ')') {
      if ((kept.match(/\(/g)?.length ?? 0) > (kept.match(/\)/g)?.length ?? 0)) break;
    } else if ((regexy ? !/[,;!"'`”>]/.test(char) : !/[,;!?:."'`”>]/.test(char)) || !/[\w"'`”)\]>,;!?:.]/.test(word[at - 1])) {
      // Punctuation after a symbol is the symbol's own ("#!").
      break;
    }
    count++;
  }
  return count;
}
