import type { ContextCorpus, DefinitionRef } from '../corpus/context-corpus';
import { nameKey } from '@quarry/code-index';
import type { GraphNeighbour, GraphNode, GraphRelation, NeighbourOptions, ReferenceGraph } from './reference-graph';

/** A name with more definitions than this (`get`, `__init__`) joins nothing in particular. */
const MAX_DEFINERS = 20;
/** Names used by more chunks than this are not followed backwards (the callers of `Symbol`). */
const MAX_USERS = 400;
const DEFAULT_LIMIT = 50;

/**
 * The definition/reference graph by name: a definition uses what the names in its chunk define,
 * and is used by the chunks naming it; a file uses the files defining the names it references.
 * Edges weigh the uses by how specific the name is (a name defined once weighs most). It cannot
 * tell `a.foo` from `b.foo` — the navigation index will — so it stays a weak, spreading signal.
 */
export class NameReferenceGraph implements ReferenceGraph {
  constructor(private readonly corpus: ContextCorpus) {}

  neighbours(node: GraphNode, options: NeighbourOptions = {}): GraphNeighbour[] {
    const file = this.corpus.fileOf(node.path);
    if (file === undefined) return [];
    const relations = new Set<GraphRelation>(options.relations ?? ['uses', 'usedBy']);
    const found = node.line === undefined ? this.fileNeighbours(file, relations) : this.definitionNeighbours(file, node.line, relations);
    return found.sort((a, b) => b.weight - a.weight).slice(0, options.limit ?? DEFAULT_LIMIT);
  }

  private definitionNeighbours(file: number, line: number, relations: ReadonlySet<GraphRelation>): GraphNeighbour[] {
    const corpus = this.corpus;
    const chunkIndex = corpus.chunkAt(file, line);
    if (chunkIndex === undefined) return [];
    const chunk = corpus.chunk(chunkIndex);
    const result: GraphNeighbour[] = [];
    if (relations.has('uses')) {
      const byChunk = new Map<number, { entry: DefinitionRef; weight: number }>();
      for (const term of corpus.chunkNameTerms(chunkIndex)) {
        const count = this.definitionCountOf(term);
        if (count === 0 || count > MAX_DEFINERS) continue;
        const definitions = this.definitionsOf(term);
        const weight = Math.sqrt(corpus.termCountIn(term, chunkIndex)) / definitions.length;
        for (const entry of definitions) {
          if (entry.chunk === chunkIndex) continue;
          const known = byChunk.get(entry.chunk);
          if (known) known.weight += weight;
          else byChunk.set(entry.chunk, { entry, weight });
        }
      }
      for (const { entry, weight } of byChunk.values()) result.push(this.definitionNeighbour(entry, 'uses', weight));
    }
    if (relations.has('usedBy') && chunk.symbol !== undefined) {
      const term = corpus.termId(nameKey(chunk.symbol));
      const postings = term === -1 ? undefined : corpus.postingsOf(term);
      const definers = this.definitionCountOf(term);
      if (postings !== undefined && postings.chunks.length <= MAX_USERS && definers > 0 && definers <= MAX_DEFINERS) {
        for (let index = 0; index < postings.chunks.length; index++) {
          const user = postings.chunks[index];
          if (user === chunkIndex) continue;
          if (!corpus.chunkNameTerms(user).includes(term)) continue;
          const row = corpus.chunk(user);
          const userFile = corpus.chunkFile[user];
          result.push({
            path: corpus.paths[userFile],
            startLine: row.startLine,
            endLine: row.endLine,
            ...(row.symbol === undefined ? {} : { symbol: row.symbol }),
            relation: 'usedBy',
            weight: Math.sqrt(postings.counts[index]) / definers,
          });
        }
      }
    }
    return result;
  }

  private fileNeighbours(file: number, relations: ReadonlySet<GraphRelation>): GraphNeighbour[] {
    const corpus = this.corpus;
    const weights = new Map<string, number>(); // `${relation}\0${file}` → weight
    const add = (relation: GraphRelation, other: number, weight: number) => {
      if (other === file) return;
      const key = `${relation}\0${other}`;
      weights.set(key, (weights.get(key) ?? 0) + weight);
    };
    if (relations.has('uses')) {
      const references = corpus.referencesOf(file);
      for (let index = 0; index < references.names.length; index++) {
        const name = references.names[index];
        const count = corpus.definitionCount(name);
        if (count === 0 || count > MAX_DEFINERS) continue;
        const definers = corpus.definersOf(name);
        for (const other of definers) add('uses', other, Math.sqrt(references.counts[index]) / definers.length);
      }
    }
    if (relations.has('usedBy')) {
      for (const name of new Set(corpus.definitionNamesOf(file))) {
        const definers = corpus.definerCount(name);
        if (definers === 0 || definers > MAX_DEFINERS) continue;
        const users = corpus.usersOf(name);
        if (users.files.length > MAX_USERS) continue;
        for (let index = 0; index < users.files.length; index++) add('usedBy', users.files[index], Math.sqrt(users.counts[index]) / definers);
      }
    }
    return [...weights].map(([key, weight]) => {
      const [relation, other] = key.split('\0');
      return { path: corpus.paths[Number(other)], relation: relation as GraphRelation, weight };
    });
  }

  /** Definitions whose `nameKey` is the term (by id). */
  private definitionsOf(term: number): DefinitionRef[] {
    const found: DefinitionRef[] = [];
    for (const name of this.corpus.nameIdsWithKey(term)) found.push(...this.corpus.definitionsOfName(name));
    return found;
  }

  private definitionCountOf(term: number): number {
    let count = 0;
    for (const name of this.corpus.nameIdsWithKey(term)) count += this.corpus.definitionCount(name);
    return count;
  }

  private definitionNeighbour(entry: DefinitionRef, relation: GraphRelation, weight: number): GraphNeighbour {
    const row = this.corpus.chunk(entry.chunk);
    return {
      path: this.corpus.paths[entry.file],
      startLine: row.startLine,
      endLine: row.endLine,
      symbol: entry.definition.name,
      relation,
      weight,
    };
  }
}
