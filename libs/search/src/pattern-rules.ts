import RE2 from 're2';
import { QuarryError } from '@quarry/contracts';
import type { SearchMode } from './search-types';

export const MAX_PATTERN_LENGTH = 1_000;

/** A construct RE2 refuses, how to recognise it in a pattern, and what to write instead. */
interface UnsupportedFeature {
  name: string;
  /** Tested on the pattern with character classes blanked out, so `[(?=]` is not a lookahead. */
  test: RegExp;
  suggestion: string;
}

const LOOKAROUND_ADVICE =
  'RE2 has no lookaround: match the neighbouring text as part of the pattern (`foo(?=bar)` → `foobar`), or drop the condition and check the matches by eye.';
const NO_BACKTRACKING_ADVICE = 'RE2 never backtracks, so it is not needed: use a plain group `(?:…)` or quantifier (`a+` instead of `a++`).';

// These regexes run on the trusted, fixed shapes below over a pattern capped at 1,000 characters;
// none of them has nested quantifiers, so they stay linear.
const UNSUPPORTED_FEATURES: readonly UnsupportedFeature[] = [
  {
    name: 'backreferences (\\1, \\k<name>)',
    test: /\\(?:[1-9]|k[<{'])/,
    suggestion: 'RE2 has no backreferences: write the repeated text out (`(\\w+) \\1` → search for the word itself), or use @search for a fixed string.',
  },
  { name: 'lookbehind (?<=…)', test: /\(\?<=/, suggestion: LOOKAROUND_ADVICE },
  { name: 'negative lookbehind (?<!…)', test: /\(\?<!/, suggestion: LOOKAROUND_ADVICE },
  { name: 'lookahead (?=…)', test: /\(\?=/, suggestion: LOOKAROUND_ADVICE },
  { name: 'negative lookahead (?!…)', test: /\(\?!/, suggestion: LOOKAROUND_ADVICE },
  { name: 'atomic groups (?>…)', test: /\(\?>/, suggestion: NO_BACKTRACKING_ADVICE },
  { name: 'possessive quantifiers (*+, ++, ?+, {n}+)', test: /(?:[*+?]|\{\d+(?:,\d*)?\})\+/, suggestion: NO_BACKTRACKING_ADVICE },
  { name: 'conditionals (?(…)…)', test: /\(\?\(/, suggestion: 'RE2 has no conditionals: use an alternation `(?:a|b)`.' },
  { name: 'recursion (?R), (?1)', test: /\(\?(?:R|[+-]?\d)/, suggestion: 'RE2 cannot match nested structures: search for the opening construct instead.' },
  { name: 'the extended-mode flag (?x)', test: /\(\?[imsU-]*x/, suggestion: 'RE2 supports the flags i, m, s and U only: remove the `x` flag and the free-form whitespace.' },
  { name: 'the anchors \\Z, \\G and \\K', test: /\\[ZGK]/, suggestion: 'Use `$` for the end of a line (matches are line by line) and drop `\\G`/`\\K`.' },
];

/**
 * Throws a QuarryError (`pattern_invalid` or `regex_invalid`) for a pattern the search cannot
 * run; synchronous so an HTTP handler can answer 4xx before queueing anything.
 */
export function validatePattern(mode: SearchMode, pattern: string): void {
  if (pattern.length === 0) {
    throw new QuarryError('pattern_invalid', `The ${mode === 'regex' ? 'regular expression' : 'search text'} is empty.`, {
      suggestion: 'Give the text to look for, e.g. @search:"TODO".',
    });
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new QuarryError('pattern_invalid', `The pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed.`, {
      suggestion: 'Search for a shorter, distinctive part of it.',
    });
  }
  if (/[\r\n]/.test(pattern)) {
    throw new QuarryError('pattern_invalid', 'The pattern contains a line break; searches match within one line.', {
      suggestion: 'Search for one line of the text.',
    });
  }
  if (mode === 'regex') compileUserRegex(pattern);
}

/** Compiles with RE2 or throws `regex_invalid` naming the construct RE2 refused. Never falls back to RegExp. */
export function compileUserRegex(pattern: string): RE2 {
  try {
    return new RE2(pattern, 'm');
  } catch (error) {
    throw describeRejection(pattern, error);
  }
}

function describeRejection(pattern: string, error: unknown): QuarryError {
  const reason = error instanceof Error ? error.message : String(error);
  const outsideClasses = blankCharacterClasses(pattern);
  const feature = UNSUPPORTED_FEATURES.find((candidate) => candidate.test.test(outsideClasses));
  if (feature) {
    return new QuarryError('regex_invalid', `RE2 does not support ${feature.name} (in ${JSON.stringify(pattern)}).`, {
      suggestion: feature.suggestion,
      cause: error,
    });
  }
  return new QuarryError('regex_invalid', `Invalid RE2 regular expression ${JSON.stringify(pattern)}: ${reason}.`, {
    suggestion: 'Check the syntax (RE2 is like PCRE without backreferences or lookaround), or use @search for a fixed string.',
    cause: error,
  });
}

/** The pattern with the insides of `[...]` replaced by spaces, escapes kept whole. */
function blankCharacterClasses(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      const escaped = pattern.slice(index, index + 2);
      out += inClass ? '  ' : escaped;
      index++;
      continue;
    }
    if (!inClass && char === '[') {
      inClass = true;
      out += char;
      // A `]` right after `[` or `[^` is a literal member, not the end of the class.
      if (pattern[index + 1] === '^') out += pattern[++index];
      if (pattern[index + 1] === ']') (out += ' '), index++;
      continue;
    }
    if (inClass && char === '[' && pattern[index + 1] === ':') {
      const end = pattern.indexOf(':]', index + 2);
      if (end !== -1) {
        out += ' '.repeat(end + 2 - index);
        index = end + 1;
        continue;
      }
    }
    if (inClass && char === ']') inClass = false;
    out += inClass ? ' ' : char;
  }
  return out;
}
