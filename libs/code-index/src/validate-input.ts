import { parseSymbolQuery } from './lookup/symbol-table';
import { validateBudget } from './map/repo-map';
import { packLayout } from './pack/pack-styles';
import { compilePathFilter, validatePatterns } from './pack/path-filter';
import { MAX_PACK_TOKENS } from './pack/write-pack';

/**
 * Checks what can be checked without reading the tree, so a bad request gets its typed 4xx at
 * submission: the budget (`budget_invalid`), the style (`style_unknown`), the globs
 * (`pattern_invalid`) and the symbol name (`symbol_invalid`).
 */
export function validateCodeIndexInput(kind: 'symbols' | 'map' | 'pack', input: Record<string, unknown>): void {
  if (kind === 'symbols') {
    if (typeof input.name === 'string') parseSymbolQuery(input.name);
    if (typeof input.path === 'string') compilePathFilter({ include: [input.path] });
  } else if (kind === 'map') {
    validateBudget(input.tokens as number);
  } else {
    packLayout(input.style as string);
    if (input.maxTokens !== undefined) validateBudget(input.maxTokens as number, MAX_PACK_TOKENS);
    compilePathFilter({ include: validatePatterns(input.include as unknown[] | undefined, 'include'), ignore: validatePatterns(input.ignore as unknown[] | undefined, 'ignore') });
  }
}
