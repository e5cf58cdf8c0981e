import { requiredLiteral, type SearchMode } from '@quarry/search';
import { trigramsOf } from './trigrams';

/**
 * Letters whose Unicode case fold leaves ASCII (`s` ~ `ſ` U+017F, `k` ~ the Kelvin sign U+212A),
 * and every non-ASCII character: under case folding a match may hold other bytes there than the
 * pattern, so a folded literal is cut at them and only the ASCII runs between give trigrams.
 */
const WIDE_FOLDS = /[sSkK]|[^\x00-\x7f]/u;

/**
 * The trigrams every matching line must hold (folded as the index folds them), or undefined when
 * the pattern proves none: then the index cannot narrow anything and the search reads every file.
 *
 * A literal gives its own trigrams; a regex those of its required literal (required-literal.ts,
 * the same proof the cold search's line prefilter relies on). Under case folding the literal is
 * cut at WIDE_FOLDS first. A superset of the true candidates is always safe: the real matcher
 * verifies every candidate.
 */
export function planQuery(mode: SearchMode, pattern: string, ignoreCase: boolean): number[] | undefined {
  const literal = mode === 'literal' ? pattern : requiredLiteral(pattern);
  if (literal === undefined) return undefined;
  const runs = ignoreCase ? literal.split(WIDE_FOLDS).filter(Boolean) : [literal];
  const trigrams = new Set<number>();
  for (const run of runs) for (const trigram of trigramsOf(run)) trigrams.add(trigram);
  return trigrams.size === 0 ? undefined : [...trigrams].sort((a, b) => a - b);
}
