import { NAVIGATION_DEFAULT_LIMIT, NAVIGATION_MAX_LIMIT, QuarryError, type DefinitionResult, type Reference, type ReferencesResult } from '@quarry/contracts';
import { nthWordColumn } from '@quarry/code-index';
import type { NavigationIndex } from '../navigation-index';
import { findUses } from './reference-search';
import { LineCache, MAX_LINE_TEXT, symbolOf } from './symbol-output';
import { resolveTarget } from './target';

export interface ReferencesOptions {
  /** The most uses listed (default 1,000); `total` counts them all. */
  limit?: number;
  /**
   * false: leave out the uses guessed from a file's evidence (a member reached through a value of
   * unknown type); they are still counted in `guessed`. Default true: listed, `resolution: 'member'`.
   */
  guessed?: boolean;
}

/** Every use of the definition a query names (`Name`, `Class.method`, `path:line`), with its line's text and enclosing definition. */
export async function references(index: NavigationIndex, target: string, options: ReferencesOptions = {}): Promise<ReferencesResult> {
  const limit = validateLimit(options.limit);
  const { graph } = index;
  const resolved = await resolveTarget(index, target);
  const found = findUses(index, resolved.id);
  const guessed = found.filter((use) => use.resolution === 'member' && !use.declaration).length;
  const uses = options.guessed === false ? found.filter((use) => use.resolution !== 'member' || use.declaration) : found;
  const lines = new LineCache(index.read);
  const shown = uses.slice(0, limit);
  const references: Reference[] = [];
  for (const use of shown) {
    const text = (await lines.lines(use.file.path))?.[use.occurrence.line - 1] ?? '';
    const column = use.occurrence.column !== -1 ? use.occurrence.column : nthWordColumn(text, use.name, use.ordinal);
    const enclosing = graph.enclosing(use.file, use.occurrence.line);
    const reference: Reference = {
      path: use.file.path,
      line: use.occurrence.line,
      column: Math.max(0, column) + 1,
      text: text.length > MAX_LINE_TEXT ? `${text.slice(0, MAX_LINE_TEXT - 1)}…` : text.replace(/\r$/, ''),
      call: use.occurrence.call,
      resolution: use.resolution,
      ambiguous: use.ambiguous,
      ...(use.declaration ? { declaration: true } : {}),
    };
    if (enclosing !== undefined) {
      const { definition } = graph.definition(enclosing);
      reference.enclosing = { name: definition.name, kind: definition.kind, line: definition.line, ...(definition.container === undefined ? {} : { container: definition.container }) };
    }
    references.push(reference);
  }
  return {
    symbol: symbolOf(graph, resolved.id),
    alternatives: resolved.alternatives.slice(0, 10).map((id) => symbolOf(graph, id)),
    references,
    total: uses.length,
    guessed,
    truncated: uses.length > limit,
    files: new Set(uses.map((use) => use.file.id)).size,
  };
}

/** Where the definition a query names is: for a name, its definitions best first; for a use (`path:line`), what that use resolves to. */
export async function definition(index: NavigationIndex, target: string): Promise<DefinitionResult> {
  const resolved = await resolveTarget(index, target);
  const definitions = [resolved.id, ...resolved.alternatives].slice(0, 20).map((id, position) => ({
    ...symbolOf(index.graph, id),
    ...(position === 0 && resolved.via !== undefined ? { resolution: resolved.via.kind } : {}),
  }));
  const ambiguous = resolved.via !== undefined ? resolved.via.score === 0 || resolved.alternatives.length > 0 : resolved.alternatives.length > 0;
  return { definitions, ambiguous };
}

export function validateLimit(limit: number | undefined): number {
  if (limit === undefined) return NAVIGATION_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > NAVIGATION_MAX_LIMIT) {
    throw new QuarryError('input_invalid', `The limit must be a whole number from 1 to ${NAVIGATION_MAX_LIMIT}; got ${limit}.`, { suggestion: `Leave it out for ${NAVIGATION_DEFAULT_LIMIT}.` });
  }
  return limit;
}
