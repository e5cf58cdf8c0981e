import { occurrenceSections, unpackSection, type BlobIndex, type Definition, type ImportEntry, type Occurrence } from '@quarry/code-index';

/** What the graph needs of one file: its path and these fields of its per-blob index. */
export interface GraphFileInput {
  path: string;
  index: Pick<BlobIndex, 'language' | 'definitions' | 'references' | 'occurrences' | 'imports' | 'package'>;
}

/** One file of the graph. Its definitions have the ids `firstDefinition … firstDefinition + definitions.length - 1`. */
export interface GraphFile {
  id: number;
  path: string;
  /** The directory (`''` for the root), POSIX. */
  directory: string;
  language?: string;
  definitions: readonly Definition[];
  firstDefinition: number;
  /** The file's referenced names as graph name ids, in the order of its occurrence sections. */
  names: Int32Array;
  /** The packed occurrences (code-index `symbols/occurrences.ts`). */
  occurrences: string;
  imports: readonly ImportEntry[];
  package?: string;
}

/** A definition with the file it is in. */
export interface GraphDefinition {
  id: number;
  file: GraphFile;
  definition: Definition;
}

/** Inverted lists as one array: the entries of key k are `values[offsets[k]] … values[offsets[k + 1] - 1]`. */
interface Postings {
  offsets: Int32Array;
  values: Int32Array;
}

const SECTION_CACHE = 4096;

/**
 * The definition/reference graph of one tree (a commit, or a working tree), assembled from the
 * per-blob indexes of its files: definitions by name, the files that use each name, and each
 * file's occurrences, read on demand from their packed form. A commit's graph is a function of
 * its files' rows, so a one-file commit changes one file's contribution; assembling is one pass
 * over the rows (names interned, inverted lists built as flat arrays), and name resolution happens
 * per query (see resolve/), memoised.
 */
export class CodeGraph {
  readonly files: readonly GraphFile[];
  private readonly fileIds = new Map<string, number>();
  private readonly definitionFiles: Int32Array;
  private readonly names: string[] = [];
  private readonly nameIds = new Map<string, number>();
  private readonly referencing: Postings;
  private readonly defining: Postings;
  private readonly sections = new Map<number, Int32Array>();

  private constructor(files: GraphFile[], definitionCount: number) {
    this.files = files;
    files.forEach((file) => this.fileIds.set(file.path, file.id));
    this.definitionFiles = new Int32Array(definitionCount);
    for (const file of files) this.definitionFiles.fill(file.id, file.firstDefinition, file.firstDefinition + file.definitions.length);
    this.referencing = { offsets: new Int32Array(1), values: new Int32Array(0) };
    this.defining = { offsets: new Int32Array(1), values: new Int32Array(0) };
  }

  /** The graph of these files (any order; paths must be distinct). Inputs are not kept, only what the graph needs of them. */
  static build(inputs: Iterable<GraphFileInput>): CodeGraph {
    return CodeGraph.buildSorted([...inputs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
  }

  /**
   * The graph of files given in path order, read one at a time: a caller can decode each stored
   * row as it is asked for and drop it (a kernel's rows never need to be decoded all at once).
   */
  static buildSorted(sorted: Iterable<GraphFileInput>): CodeGraph {
    const names: string[] = [];
    const nameIds = new Map<string, number>();
    const intern = (name: string) => {
      let id = nameIds.get(name);
      if (id === undefined) {
        id = names.length;
        names.push(name);
        nameIds.set(name, id);
      }
      return id;
    };
    const files: GraphFile[] = [];
    let definitionCount = 0;
    let id = -1;
    let previous: string | undefined;
    for (const input of sorted) {
      id++;
      if (previous !== undefined && input.path <= previous) throw new Error(`CodeGraph.buildSorted: "${input.path}" after "${previous}": paths must be distinct and sorted`);
      previous = input.path;
      const { index } = input;
      const slash = input.path.lastIndexOf('/');
      const fileNames = new Int32Array(index.references.length);
      index.references.forEach(([name], position) => (fileNames[position] = intern(name)));
      for (const definition of index.definitions) intern(definition.name);
      files.push({
        id,
        path: input.path,
        directory: slash === -1 ? '' : input.path.slice(0, slash),
        ...(index.language === undefined ? {} : { language: index.language }),
        definitions: index.definitions,
        firstDefinition: definitionCount,
        names: fileNames,
        occurrences: index.occurrences ?? '',
        imports: index.imports ?? [],
        ...(index.package === undefined ? {} : { package: index.package }),
      });
      definitionCount += index.definitions.length;
    }
    const graph = new CodeGraph(files, definitionCount);
    // Millions of names on a kernel: assigned, not spread into a call.
    Object.assign(graph, {
      names,
      nameIds,
      referencing: postings(names.length, (emit) => files.forEach((file) => file.names.forEach((nameId) => emit(nameId, file.id)))),
      defining: postings(names.length, (emit) => files.forEach((file) => file.definitions.forEach((definition, index) => emit(nameIds.get(definition.name)!, file.firstDefinition + index)))),
    });
    return graph;
  }

  get definitionCount(): number {
    return this.definitionFiles.length;
  }

  file(path: string): GraphFile | undefined {
    const id = this.fileIds.get(path);
    return id === undefined ? undefined : this.files[id];
  }

  definition(id: number): GraphDefinition {
    const file = this.files[this.definitionFiles[id]];
    return { id, file, definition: file.definitions[id - file.firstDefinition] };
  }

  /** Every definition id named `name` (exact case). */
  definitionsNamed(name: string): number[] {
    const id = this.nameIds.get(name);
    return id === undefined ? [] : [...slice(this.defining, id)];
  }

  /** The ids of the files that use `name`. */
  filesReferencing(name: string): Int32Array {
    const id = this.nameIds.get(name);
    return id === undefined ? new Int32Array(0) : slice(this.referencing, id);
  }

  /** Whether `file` uses `name` anywhere (a binary search of its sorted names). */
  references(file: GraphFile, name: string): boolean {
    return this.sectionOf(file, name) !== -1;
  }

  /** The occurrences of `name` in `file`, columns found in `lineText` when given. */
  occurrences(file: GraphFile, name: string, lineText?: (line: number) => string | undefined): Occurrence[] {
    const section = this.sectionOf(file, name);
    if (section === -1) return [];
    const bounds = this.boundsOf(file);
    const nameAt = (position: number) => (position < file.names.length ? this.names[file.names[position]] : undefined);
    return unpackSection(file.occurrences, bounds[section * 2], bounds[section * 2 + 1], name, nameAt, lineText);
  }

  /** Every referenced name of `file` with its occurrences (in name order). */
  *allOccurrences(file: GraphFile): Generator<[string, Occurrence[]]> {
    for (let section = 0; section < file.names.length; section++) {
      const name = this.names[file.names[section]];
      yield [name, this.occurrences(file, name)];
    }
  }

  /**
   * The innermost definition of `file` whose lines hold `line`, as a definition id; with
   * `within`, one that holds those whole lines (the scope of a definition: `except` is itself, and
   * of two with the same lines the earlier, its parent, holds the later).
   */
  enclosing(file: GraphFile, line: number, options: { except?: number; within?: { startLine: number; endLine: number } } = {}): number | undefined {
    let best: number | undefined;
    let bestSpan = Infinity;
    const from = options.within?.startLine ?? line;
    const to = options.within?.endLine ?? line;
    const definitions = file.definitions;
    for (let index = 0; index < definitions.length; index++) {
      const definition = definitions[index];
      if (definition.startLine > from) break;
      const id = file.firstDefinition + index;
      if (id === options.except || to > definition.endLine) continue;
      if (options.within !== undefined && options.except !== undefined && id > options.except && definition.startLine === from && definition.endLine === to) continue;
      const span = definition.endLine - definition.startLine;
      // Inner definitions come after their parents: the later of two equal spans is the inner one.
      if (span <= bestSpan) {
        best = id;
        bestSpan = span;
      }
    }
    return best;
  }

  /** Every defined name (for did-you-mean). */
  definedNames(): string[] {
    const defined: string[] = [];
    for (let id = 0; id < this.names.length; id++) if (this.defining.offsets[id + 1] > this.defining.offsets[id]) defined.push(this.names[id]);
    return defined;
  }

  private sectionOf(file: GraphFile, name: string): number {
    let low = 0;
    let high = file.names.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const candidate = this.names[file.names[middle]];
      if (candidate === name) return middle;
      if (candidate < name) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  private boundsOf(file: GraphFile): Int32Array {
    let bounds = this.sections.get(file.id);
    if (bounds === undefined) {
      bounds = occurrenceSections(file.occurrences, file.names.length);
      if (this.sections.size >= SECTION_CACHE) this.sections.delete(this.sections.keys().next().value as number);
      this.sections.set(file.id, bounds);
    } else {
      this.sections.delete(file.id);
      this.sections.set(file.id, bounds);
    }
    return bounds;
  }
}

function postings(keys: number, each: (emit: (key: number, value: number) => void) => void): Postings {
  const counts = new Int32Array(keys + 1);
  each((key) => counts[key + 1]++);
  for (let key = 0; key < keys; key++) counts[key + 1] += counts[key];
  const offsets = counts.slice();
  const values = new Int32Array(counts[keys]);
  const cursor = counts.slice(0, keys);
  each((key, value) => (values[cursor[key]++] = value));
  return { offsets, values };
}

function slice(postings: Postings, key: number): Int32Array {
  return postings.values.subarray(postings.offsets[key], postings.offsets[key + 1]);
}
