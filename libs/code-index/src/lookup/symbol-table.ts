import { QuarryError, editDistance } from '@quarry/contracts';
import type { Definition, SymbolKind } from '../symbols/symbol-types';

/** What a lookup needs of each file: its path and two fields of its `BlobIndex`. */
export interface SymbolSource {
  path: string;
  definitions: readonly Definition[];
  references: readonly (readonly [string, number])[];
}

export interface SymbolMatch {
  path: string;
  definition: Definition;
  /** Uses of the name across all files (a name's uses cannot be told apart between its definitions). */
  references: number;
  /** The name (and container) matched in exact case; case-insensitive matches rank after. */
  exactCase: boolean;
}

export interface SymbolQuery {
  name: string;
  container?: string;
}

export const MAX_SYMBOL_LENGTH = 256;
export const DEFAULT_MATCH_LIMIT = 20;
const DID_YOU_MEAN = 5;
/**
 * Identifier characters of the indexed languages, plus the separators of qualified names
 * (`Class.method`, `Ns::fn`, `App\Foo`) and `~` for C++ destructors. Anything else (spaces,
 * brackets, regex syntax) cannot be part of a name, so it is refused rather than searched for.
 */
const SYMBOL_SYNTAX = /^[\p{L}\p{N}_$~!?\\.:#]+$/u;
/** Definitions of types and functions outrank constants and macros of the same name. */
const KIND_RANK: Partial<Record<SymbolKind, number>> = { class: 0, interface: 0, struct: 0, trait: 0, function: 1, method: 1, enum: 2, type: 2 };

/**
 * The symbol table of a set of files: definitions by name and how often each name is used.
 * Built from `BlobIndex` rows; the lookup behind `@symbol:Name` and `@symbol:Class.method`.
 */
export class SymbolTable {
  private readonly byName = new Map<string, { path: string; definition: Definition }[]>();
  private readonly byLowerName = new Map<string, Set<string>>();
  private readonly referenceCounts = new Map<string, number>();

  static from(files: Iterable<SymbolSource>): SymbolTable {
    const table = new SymbolTable();
    for (const file of files) table.add(file);
    return table;
  }

  add(file: SymbolSource): void {
    for (const definition of file.definitions) {
      let list = this.byName.get(definition.name);
      if (list === undefined) {
        list = [];
        this.byName.set(definition.name, list);
        const lower = definition.name.toLowerCase();
        let names = this.byLowerName.get(lower);
        if (names === undefined) this.byLowerName.set(lower, (names = new Set()));
        names.add(definition.name);
      }
      list.push({ path: file.path, definition });
    }
    for (const [name, count] of file.references) this.referenceCounts.set(name, (this.referenceCounts.get(name) ?? 0) + count);
  }

  get size(): number {
    return this.byName.size;
  }

  referencesOf(name: string): number {
    return this.referenceCounts.get(name) ?? 0;
  }

  /**
   * Definitions matching `Name` or `Container.Name`, best first: exact case before any other case,
   * then the most used names, then classes and functions before the rest, then by path and line.
   * Throws `symbol_invalid` for a query that cannot be a name and `symbol_not_found` (with the
   * closest names) when nothing matches.
   */
  lookup(query: string, options: { limit?: number } = {}): SymbolMatch[] {
    const parsed = parseSymbolQuery(query);
    const matches: SymbolMatch[] = [];
    for (const name of this.byLowerName.get(parsed.name.toLowerCase()) ?? []) {
      for (const { path, definition } of this.byName.get(name)!) {
        const container = containerMatch(definition.container, parsed.container);
        if (container === 'none') continue;
        matches.push({ path, definition, references: this.referencesOf(name), exactCase: name === parsed.name && container === 'exact' });
      }
    }
    if (matches.length === 0) throw this.notFound(query, parsed);
    matches.sort(
      (a, b) =>
        Number(b.exactCase) - Number(a.exactCase) ||
        b.references - a.references ||
        (KIND_RANK[a.definition.kind] ?? 3) - (KIND_RANK[b.definition.kind] ?? 3) ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
        a.definition.line - b.definition.line,
    );
    return matches.slice(0, options.limit ?? DEFAULT_MATCH_LIMIT);
  }

  /** Up to five defined names closest to the query's name, the most used first among equals. */
  suggest(name: string): string[] {
    const limit = Math.max(1, Math.floor(name.length / 3));
    const lower = name.toLowerCase();
    const scored: { name: string; distance: number; references: number }[] = [];
    for (const candidate of this.byName.keys()) {
      if (Math.abs(candidate.length - name.length) > limit) continue;
      const distance = editDistance(lower, candidate.toLowerCase());
      if (distance <= limit) scored.push({ name: candidate, distance, references: this.referencesOf(candidate) });
    }
    scored.sort((a, b) => a.distance - b.distance || b.references - a.references || (a.name < b.name ? -1 : 1));
    return scored.slice(0, DID_YOU_MEAN).map((entry) => entry.name);
  }

  /** Names defined directly inside a container (any case). */
  private membersOf(container: string): string[] {
    const members = new Set<string>();
    for (const [name, list] of this.byName) {
      if (list.some(({ definition }) => containerMatch(definition.container, container) !== 'none')) members.add(name);
    }
    return [...members];
  }

  private notFound(query: string, parsed: SymbolQuery): QuarryError {
    const sameName = this.byLowerName.get(parsed.name.toLowerCase());
    if (parsed.container !== undefined && sameName !== undefined) {
      // The name exists, in other containers: say where.
      const containers = [...sameName].flatMap((name) => this.byName.get(name)!.map(({ definition }) => definition.container ?? '(top level)'));
      const unique = [...new Set(containers)].slice(0, DID_YOU_MEAN);
      return new QuarryError('symbol_not_found', `No definition of "${parsed.name}" in "${parsed.container}".`, {
        suggestion: `"${parsed.name}" is defined in ${unique.map((c) => `"${c}"`).join(', ')}. Did you mean ${unique.map((c) => `@symbol:${c === '(top level)' ? '' : `${c}.`}${parsed.name}`).join(' or ')}?`,
      });
    }
    if (parsed.container !== undefined) {
      // The container exists but has no such member: offer its members, closest first.
      const members = this.membersOf(parsed.container)
        .map((name) => ({ name, distance: editDistance(name.toLowerCase(), parsed.name.toLowerCase()) }))
        .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : 1))
        .slice(0, DID_YOU_MEAN);
      if (members.length > 0) {
        return new QuarryError('symbol_not_found', `"${parsed.container}" has no member "${parsed.name}".`, {
          suggestion: `Did you mean ${members.map((member) => `@symbol:${parsed.container}.${member.name}`).join(', ')}?`,
        });
      }
    }
    const suggestions = this.suggest(parsed.name);
    return new QuarryError('symbol_not_found', `No definition of "${query}" in this repository.`, {
      suggestion:
        suggestions.length > 0
          ? `Did you mean ${suggestions.map((name) => `@symbol:${name}`).join(', ')}?`
          : 'Check the spelling; only definitions in indexed languages are known (use @search: for text).',
    });
  }
}

/** `Name`, `Class.method`, `Ns::Class::method`, `App\\Models\\User`: the last part is the name. */
export function parseSymbolQuery(query: string): SymbolQuery {
  const trimmed = query.trim();
  if (trimmed.length === 0) {
    throw new QuarryError('symbol_invalid', 'The symbol name is empty.', { suggestion: 'Write a name after @symbol:, e.g. @symbol:parseMentions or @symbol:Server.start.' });
  }
  if (trimmed.length > MAX_SYMBOL_LENGTH) {
    throw new QuarryError('symbol_invalid', `The symbol name is ${trimmed.length} characters long; names are at most ${MAX_SYMBOL_LENGTH}.`, {
      suggestion: 'Give the name of one definition, e.g. @symbol:Server.start.',
    });
  }
  if (!SYMBOL_SYNTAX.test(trimmed)) {
    throw new QuarryError('symbol_invalid', `"${trimmed.slice(0, 60)}" is not a symbol name: names are letters, digits, _ and $, with . or :: between a container and a member.`, {
      suggestion: 'To find text or a pattern, use @search:"…" or @grep:"…" instead.',
    });
  }
  const parts = trimmed.split(/::|\.|\\|#/).filter((part) => part.length > 0);
  if (parts.length === 0) throw new QuarryError('symbol_invalid', `"${trimmed}" has no name in it.`, { suggestion: 'e.g. @symbol:Server.start' });
  const name = parts[parts.length - 1];
  return parts.length === 1 ? { name } : { name, container: parts[parts.length - 2] };
}

/** A definition's container matches a query's: exactly, in another case, or not at all. */
function containerMatch(container: string | undefined, wanted: string | undefined): 'exact' | 'other-case' | 'none' {
  if (wanted === undefined) return 'exact';
  if (container === undefined) return 'none';
  // Containers can be qualified (`Example.Shop`); the query names the innermost part.
  const innermost = container.split(/::|\.|\\/).pop()!;
  if (innermost === wanted) return 'exact';
  return innermost.toLowerCase() === wanted.toLowerCase() ? 'other-case' : 'none';
}
