/**
 * Real BPE token counts with `gpt-tokenizer` (pure JavaScript, the same library and call Repomix
 * makes, so totals agree with it exactly on the same text). Text is counted as ordinary text:
 * `<|endoftext|>` written in a file is five ordinary tokens, never a special one, as tiktoken's
 * `encode_ordinary` does. Encodings load lazily: o200k_base costs ~0.4 s and ~60 MB the first time.
 */

export const TOKEN_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];
/** The encoding of GPT-4o and later OpenAI models; cl100k_base is GPT-4's and GPT-3.5's. */
export const DEFAULT_TOKEN_ENCODING: TokenEncoding = 'o200k_base';

/** Counts the tokens of a text in one encoding. */
export type TokenCounter = (text: string) => number;

interface EncodingModule {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  clearMergeCache(): void;
}

/**
 * gpt-tokenizer caches up to 100k merged pieces, keyed by substrings of the texts it counted — and
 * a V8 substring keeps its whole parent string alive. Over a kernel's worth of files the cache held
 * ~200 MB of old file texts (a 192 MB heap ran out while packing Linux's 390 MB of register
 * headers). Clearing it after every few MB of text bounds what it retains; refilling costs little.
 */
const CLEAR_CACHE_AFTER_CHARACTERS = 4 * 1024 * 1024;

// Special-token text is neither allowed (as a special token) nor refused: it is ordinary text.
const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };
const counters = new Map<TokenEncoding, TokenCounter>();

export function isTokenEncoding(name: string): name is TokenEncoding {
  return (TOKEN_ENCODINGS as readonly string[]).includes(name);
}

/** The counter for an encoding, loaded once per process. */
export function tokenCounter(encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING): TokenCounter {
  let counter = counters.get(encoding);
  if (counter === undefined) {
    const module = loadEncoding(encoding);
    let sinceClear = 0;
    counter = (text: string) => {
      if (text.length === 0) return 0;
      const count = module.countTokens(text, ORDINARY_TEXT);
      sinceClear += text.length;
      if (sinceClear >= CLEAR_CACHE_AFTER_CHARACTERS) {
        module.clearMergeCache();
        sinceClear = 0;
      }
      return count;
    };
    counters.set(encoding, counter);
  }
  return counter;
}

export function countTokens(text: string, encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING): number {
  return tokenCounter(encoding)(text);
}

function loadEncoding(encoding: TokenEncoding): EncodingModule {
  // Literal requires, one per encoding, so bundlers and `npm ls` see exactly what is used.
  switch (encoding) {
    case 'o200k_base':
      return require('gpt-tokenizer/cjs/encoding/o200k_base') as EncodingModule;
    case 'cl100k_base':
      return require('gpt-tokenizer/cjs/encoding/cl100k_base') as EncodingModule;
  }
}
