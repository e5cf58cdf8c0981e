import { BpeCounter } from './bpe-counter';

/**
 * Real BPE token counts, equal to `gpt-tokenizer`'s `countTokens` (the library and call Repomix
 * makes, so totals agree with it exactly on the same text) but several times faster: our own
 * counter (`bpe-counter.ts`) over gpt-tokenizer's rank data, checked against gpt-tokenizer on this
 * repository, a fuzz and Linux `fs/` (`bpe-counter.spec.ts`). Text is counted as ordinary text:
 * `<|endoftext|>` written in a file is seven ordinary tokens, never a special one, as tiktoken's
 * `encode_ordinary` does. Encodings load lazily, from the tables `npm run build` saves (~20 ms and
 * ~10 MB for o200k_base); without them, from gpt-tokenizer's rank list (~0.3 s and ~55 MB of RSS).
 */

export const TOKEN_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];
/** The encoding of GPT-4o and later OpenAI models; cl100k_base is GPT-4's and GPT-3.5's. */
export const DEFAULT_TOKEN_ENCODING: TokenEncoding = 'o200k_base';

/** Counts the tokens of a text in one encoding. */
export type TokenCounter = (text: string) => number;

/**
 * One counter per encoding and thread. Its cache of piece counts is keyed by copies of the
 * pieces' bytes and bounded (~2 MB), so it keeps no file text alive — gpt-tokenizer's cache,
 * keyed by substrings, once held ~200 MB of old file texts over a kernel's worth of files.
 */
const counters = new Map<TokenEncoding, TokenCounter>();

export function isTokenEncoding(name: string): name is TokenEncoding {
  return (TOKEN_ENCODINGS as readonly string[]).includes(name);
}

/** The counter for an encoding, loaded once per process. */
export function tokenCounter(encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING): TokenCounter {
  let counter = counters.get(encoding);
  if (counter === undefined) {
    const bpe = new BpeCounter(encoding);
    counter = (text: string) => bpe.count(text);
    counters.set(encoding, counter);
  }
  return counter;
}

export function countTokens(text: string, encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING): number {
  return tokenCounter(encoding)(text);
}
