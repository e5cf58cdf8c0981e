import { QuarryError } from '@quarry/contracts';
import type { Definition } from '../symbols/symbol-types';
import { DEFAULT_TOKEN_ENCODING, TokenEncoding, tokenCounter } from '../tokens/token-counter';
import { pageRank, WeightedEdge } from './page-rank';

/** What the map needs of each file: its path and two fields of its `BlobIndex`. */
export interface MapFile {
  path: string;
  definitions: readonly Definition[];
  references: readonly (readonly [string, number])[];
}

export interface RepoMapOptions {
  /** The budget: the map's text has at most this many tokens (and as many as fit). */
  maxTokens: number;
  /** Files the caller is working on: the ranking is personalised toward them. */
  focusPaths?: readonly string[];
  /** Names the caller mentions (`Server`, `parseConfig`): their definitions and users rank higher. */
  focusSymbols?: readonly string[];
  encoding?: TokenEncoding;
}

export interface RepoMapFile {
  path: string;
  /** The file's PageRank (sums to 1 over all files). */
  rank: number;
  /** The definitions shown, in line order. */
  definitions: Definition[];
}

export interface RepoMap {
  text: string;
  tokens: number;
  files: RepoMapFile[];
  /** Files and definitions in the input, to say how much the budget left out. */
  totalFiles: number;
  totalDefinitions: number;
}

export const MAX_MAP_TOKENS = 1_000_000;
/** A name defined in more files than this says nothing about which one a user means (`init`, `probe`). */
const MAX_DEFINERS = 100;
const FOCUS_MULTIPLIER = 10;
const FOCUS_FILE_MULTIPLIER = 50;

/**
 * The repo map: files with their most important definitions' signatures, within a token budget.
 *
 * Like Aider's: a graph with a node per file and an edge A → B for every name A uses that B
 * defines, weighted by √(uses) × a multiplier (×10 for names the caller focuses on, ×10 for long
 * snake/camel names, ×0.1 for `_private` names and for names defined in more than five files, ×50
 * for uses in the focus files);
 * PageRank personalised toward the focus files (and the files defining focus names); each file's
 * rank is then shared among the definitions it points at, in proportion to the edge weights, and
 * definitions are taken best first. Unlike Aider's, the cut is exact (the most definitions whose
 * rendering fits the budget, counted with the real tokenizer, not within 15%), files are listed
 * most important first, and each line is the definition's signature with its line number.
 */
export function buildRepoMap(files: readonly MapFile[], options: RepoMapOptions): RepoMap {
  validateBudget(options.maxTokens);
  const countTokens = tokenCounter(options.encoding ?? DEFAULT_TOKEN_ENCODING);
  const totalDefinitions = files.reduce((sum, file) => sum + file.definitions.length, 0);
  const ranked = rankDefinitions(files, options);

  // The largest prefix of the ranked items whose rendering fits, by binary search with exact
  // counts. Rendering grows with the prefix, so the fit is monotonic. Per-line estimates bound the
  // search so no probe renders much more than twice the budget.
  const render = (count: number) => renderMap(ranked.items.slice(0, count));
  const seen = new Set<string>();
  let upper = 0;
  for (let estimate = 0; upper < ranked.items.length && estimate <= 2 * options.maxTokens; upper++) {
    const item = ranked.items[upper];
    if (!seen.has(item.path)) estimate += countTokens(`${item.path}\n`);
    seen.add(item.path);
    if (item.definition !== undefined) estimate += countTokens(item.line);
  }
  let count = 0;
  let text = '';
  let tokens = 0;
  for (let low = 1, high = upper; low <= high; ) {
    const middle = (low + high) >> 1;
    const candidate = render(middle);
    const candidateTokens = countTokens(candidate);
    if (candidateTokens <= options.maxTokens) {
      count = middle;
      text = candidate;
      tokens = candidateTokens;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }

  const shown = new Map<string, Definition[]>();
  for (const item of ranked.items.slice(0, count)) {
    const list = shown.get(item.path) ?? [];
    if (item.definition !== undefined) list.push(item.definition);
    shown.set(item.path, list);
  }
  return {
    text,
    tokens,
    files: [...shown].map(([path, definitions]) => ({ path, rank: ranked.fileRank.get(path) ?? 0, definitions: definitions.sort((a, b) => a.line - b.line) })),
    totalFiles: files.length,
    totalDefinitions,
  };
}

export function validateBudget(maxTokens: number, limit = MAX_MAP_TOKENS): void {
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > limit) {
    throw new QuarryError('budget_invalid', `A token budget must be a whole number from 1 to ${limit.toLocaleString('en-US')}; got ${String(maxTokens)}.`, {
      suggestion: 'e.g. --tokens 2048 (Aider uses 1024 by default).',
    });
  }
}

interface RankedItem {
  path: string;
  definition?: Definition;
  /** The rendered line, for estimating its tokens. */
  line: string;
}

function rankDefinitions(files: readonly MapFile[], options: RepoMapOptions): { items: RankedItem[]; fileRank: Map<string, number> } {
  const index = new Map(files.map((file, position) => [file.path, position]));
  const focusSymbols = new Set(options.focusSymbols ?? []);
  const definers = new Map<string, number[]>();
  files.forEach((file, position) => {
    for (const name of new Set(file.definitions.map((d) => d.name))) {
      const list = definers.get(name);
      if (list === undefined) definers.set(name, [position]);
      else list.push(position);
    }
  });

  // One edge per (from, to, name): the name is needed to share rank among definitions.
  const focusPaths = new Set(options.focusPaths ?? []);
  const edges: (WeightedEdge & { name: string })[] = [];
  files.forEach((file, from) => {
    // What the caller's own files use matters most (Aider: ×50 for the files in the chat).
    const fromFocus = focusPaths.has(file.path) ? FOCUS_FILE_MULTIPLIER : 1;
    for (const [name, uses] of file.references) {
      const targets = definers.get(name);
      if (targets === undefined || targets.length > MAX_DEFINERS) continue;
      const weight = fromFocus * nameWeight(name, targets.length, focusSymbols) * Math.sqrt(uses);
      for (const to of targets) edges.push({ from, to, weight, name });
    }
  });

  const personalization = new Array<number>(files.length).fill(0);
  for (const path of focusPaths) {
    const position = index.get(path);
    if (position !== undefined) personalization[position] = 1;
  }
  for (const name of focusSymbols) for (const position of definers.get(name) ?? []) personalization[position] = 1;
  const rank = pageRank(files.length, edges, { personalization });

  const outWeight = new Float64Array(files.length);
  for (const edge of edges) outWeight[edge.from] += edge.weight;
  const definitionRank = new Map<string, number>(); // `${file}\0${name}` → rank
  for (const edge of edges) {
    const key = `${edge.to}\0${edge.name}`;
    definitionRank.set(key, (definitionRank.get(key) ?? 0) + (rank[edge.from] * edge.weight) / outWeight[edge.from]);
  }

  const items: (RankedItem & { score: number })[] = [];
  files.forEach((file, position) => {
    for (const definition of file.definitions) {
      const focused = focusSymbols.has(definition.name) ? 1 : 0;
      items.push({
        path: file.path,
        definition,
        line: definitionLine(definition),
        // Focus names first, then the shared rank; a tiny share of the file's own rank orders the unreferenced.
        score: focused + (definitionRank.get(`${position}\0${definition.name}`) ?? 0) + rank[position] * 1e-6,
      });
    }
  });
  items.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.definition!.line - b.definition!.line);
  const withoutDefinitions = files
    .map((file, position) => ({ file, position }))
    .filter(({ file }) => file.definitions.length === 0)
    .sort((a, b) => rank[b.position] - rank[a.position] || (a.file.path < b.file.path ? -1 : 1))
    .map(({ file }) => ({ path: file.path, line: `${file.path}\n`, score: 0 }));
  return {
    items: [...items, ...withoutDefinitions],
    fileRank: new Map(files.map((file, position) => [file.path, rank[position]])),
  };
}

/** Aider's multipliers: what a name's use says about the file defining it. */
function nameWeight(name: string, definerCount: number, focus: ReadonlySet<string>): number {
  let weight = 1;
  if (focus.has(name)) weight *= FOCUS_MULTIPLIER;
  const snake = name.includes('_') && /[A-Za-z]/.test(name);
  const camel = /[A-Z]/.test(name) && /[a-z]/.test(name);
  if ((snake || camel) && name.length >= 8) weight *= 10;
  if (name.startsWith('_')) weight *= 0.1;
  if (definerCount > 5) weight *= 0.1;
  return weight;
}

function definitionLine(definition: Definition): string {
  const indent = definition.container === undefined ? '' : '  ';
  return `${String(definition.line).padStart(5)}│ ${indent}${definition.signature}\n`;
}

/**
 * Files in the order of their best item, each with its chosen definitions in line order:
 *
 *     src/server.ts
 *         3│ export class Server
 *         9│   async start(port: number): Promise<void>
 */
function renderMap(items: readonly RankedItem[]): string {
  const order: string[] = [];
  const byPath = new Map<string, Definition[]>();
  for (const item of items) {
    let list = byPath.get(item.path);
    if (list === undefined) {
      byPath.set(item.path, (list = []));
      order.push(item.path);
    }
    if (item.definition !== undefined) list.push(item.definition);
  }
  let text = '';
  for (const path of order) {
    text += `${path}\n`;
    for (const definition of byPath.get(path)!.sort((a, b) => a.line - b.line)) text += definitionLine(definition);
  }
  return text;
}
