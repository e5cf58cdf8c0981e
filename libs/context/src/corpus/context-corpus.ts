import { type Definition, type SymbolKind, type BlobChunks, nameKey, pathTerms } from '@quarry/code-index';
import { float64Vector, int32Vector, PagedVector, StringTable, uint8Vector } from './compact-tables';
import { fileRole, type FileRole } from './file-roles';

/** One file of a commit as retrieval reads it: its path, two fields of its `BlobIndex`, and its chunk row. */
export interface CorpusFile {
  path: string;
  definitions: readonly CorpusDefinition[];
  references: readonly (readonly [string, number])[];
  chunks: BlobChunks;
}

/** What the corpus keeps of a definition (not its signature). */
export type CorpusDefinition = Pick<Definition, 'kind' | 'name' | 'line' | 'startLine' | 'endLine' | 'container'>;

/** A term's postings: the chunks it occurs in (ascending) and how often (at most 65535). */
export interface Postings {
  chunks: Int32Array;
  counts: Uint16Array;
  /** Distinct files among the chunks. */
  files: number;
}

export interface DefinitionRef {
  file: number;
  definition: CorpusDefinition;
  /** The chunk holding the definition's name line. */
  chunk: number;
}

/** A chunk as the ranking shows it: where it is and what it defines (its terms are in the postings). */
export interface CorpusChunk {
  startLine: number;
  endLine: number;
  symbol?: string;
  container?: string;
  kind?: SymbolKind;
}

/** Counts above what the postings hold (65535) are kept exactly here, by posting index: the graph weighs uses by them. */
const MAX_POSTING_COUNT = 65535;

/**
 * A commit's retrieval statistics, assembled from its files' per-blob rows: the chunks of every
 * file in one numbering, postings per term with document frequencies for chunks and files, the
 * definitions table by name, the references, the string literals, and path indexes to resolve
 * what a task names. Built once per commit (`ContextCorpusBuilder`, a file at a time) and read by
 * every query on it; holds no file text and no per-chunk or per-definition objects.
 *
 * Memory layout (a Linux tree: 78k files, 3.8M chunks, 74M postings, 4.9M terms, 3.4M definitions):
 * terms, names (definitions' and references' identifiers, exact case) and literal words are
 * interned in byte pools (`StringTable`); everything else is typed arrays indexed by file, chunk,
 * term, name or definition id — postings in one CSR (`postingStart[term]..postingStart[term+1]`:
 * chunk ids ascending, counts), each chunk's whole-identifier terms in another, definitions as
 * columns grouped by name, references per file. Objects (`DefinitionRef`, `CorpusChunk`,
 * `Postings`) are made on demand for the few a query looks at.
 */
export class ContextCorpus {
  readonly paths: string[];
  readonly roles: FileRole[];
  /** chunkStart[f]..chunkStart[f+1]-1 are file f's chunks. */
  readonly chunkStart: Int32Array;
  readonly chunkFile: Int32Array;
  /** Sum of the chunk's term counts: its length for BM25. */
  readonly chunkLength: Uint32Array;
  readonly fileLength: Float64Array;
  readonly averageChunkLength: number;
  readonly averageFileLength: number;
  readonly options: Map<string, { file: number; line: number }[]>;
  /** Files by lower-cased base name, for resolving a path written in a task. */
  readonly filesByBaseName: Map<string, number[]>;
  /** Files by module path (`sympy/printing/latex`, `flask/__init__` → `flask`), lower-cased, without extension. */
  readonly filesByModule: Map<string, number[]>;
  readonly pathTermFiles: Map<string, number[]>;
  /** The string literals (messages), in file order. */
  readonly literals: CorpusLiterals;

  private readonly tables: CorpusTables;
  private readonly fileIndex: Map<string, number>;
  private readonly termsWithPostings: number;
  /** Files using each name (the inverse of the references), built on first use. */
  private users: { start: Int32Array; files: Int32Array; counts: Int32Array } | undefined;

  /** Files in any order (sorted by path here; each path once); `ContextCorpusBuilder` builds one a file at a time instead. */
  constructor(source: readonly CorpusFile[] | CorpusTables) {
    let tables: CorpusTables;
    if (Array.isArray(source)) {
      const builder = new ContextCorpusBuilder();
      for (const file of [...(source as readonly CorpusFile[])].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) builder.add(file);
      tables = builder.tables();
    } else {
      tables = source as CorpusTables;
    }
    this.tables = tables;
    this.paths = tables.paths;
    this.roles = tables.roles;
    this.chunkStart = tables.chunkStart;
    this.chunkFile = tables.chunkFile;
    this.chunkLength = tables.chunkLength;
    this.fileLength = tables.fileLength;
    this.options = tables.options;
    this.filesByBaseName = tables.filesByBaseName;
    this.filesByModule = tables.filesByModule;
    this.pathTermFiles = tables.pathTermFiles;
    this.fileIndex = tables.fileIndex;
    this.literals = new CorpusLiterals(tables);
    const chunkTotal = this.chunkFile.length;
    let chunkSum = 0;
    for (let chunk = 0; chunk < chunkTotal; chunk++) chunkSum += this.chunkLength[chunk];
    let fileSum = 0;
    for (let file = 0; file < this.fileLength.length; file++) fileSum += this.fileLength[file];
    this.averageChunkLength = chunkTotal === 0 ? 1 : Math.max(1, chunkSum / chunkTotal);
    this.averageFileLength = this.paths.length === 0 ? 1 : Math.max(1, fileSum / this.paths.length);
    let withPostings = 0;
    for (let term = 0; term < tables.terms.size; term++) if (tables.postingStart[term + 1] > tables.postingStart[term]) withPostings++;
    this.termsWithPostings = withPostings;
  }

  get fileCount(): number {
    return this.paths.length;
  }

  get chunkCount(): number {
    return this.chunkFile.length;
  }

  /** Distinct terms across the commit. */
  get termCount(): number {
    return this.termsWithPostings;
  }

  fileOf(path: string): number | undefined {
    return this.fileIndex.get(path);
  }

  /** The id of a term (lower-cased, as `forEachTerm` emits it), or -1. */
  termId(term: string): number {
    return this.tables.terms.id(term);
  }

  termPostings(term: string): Postings | undefined {
    const id = this.tables.terms.id(term);
    return id === -1 ? undefined : this.postingsOf(id);
  }

  postingsOf(termId: number): Postings | undefined {
    const { postingStart, postingChunk, postingCount, termFiles } = this.tables;
    const start = postingStart[termId];
    const end = postingStart[termId + 1];
    if (end === start) return undefined;
    return { chunks: postingChunk.subarray(start, end), counts: postingCount.subarray(start, end), files: termFiles[termId] };
  }

  /** How often a term occurs in a chunk (exactly, beyond what `Postings.counts` holds); 0 when not. */
  termCountIn(termId: number, chunk: number): number {
    const { postingStart, postingChunk, postingCount, countOverflow } = this.tables;
    let low = postingStart[termId];
    let high = postingStart[termId + 1] - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const at = postingChunk[middle];
      if (at === chunk) return countOverflow.get(middle) ?? postingCount[middle];
      if (at < chunk) low = middle + 1;
      else high = middle - 1;
    }
    return 0;
  }

  chunk(index: number): CorpusChunk {
    const { chunkStartLine, chunkEndLine, chunkSymbol, chunkContainer, chunkKind, names, kinds } = this.tables;
    const chunk: CorpusChunk = { startLine: chunkStartLine[index], endLine: chunkEndLine[index] };
    if (chunkSymbol[index] !== -1) chunk.symbol = names.get(chunkSymbol[index]);
    if (chunkKind[index] !== 0) chunk.kind = kinds[chunkKind[index]] as SymbolKind;
    if (chunkContainer[index] !== -1) chunk.container = names.get(chunkContainer[index]);
    return chunk;
  }

  /** The term ids a chunk uses as whole identifiers (the names it uses), in the order it first uses them. */
  chunkNameTerms(chunk: number): Int32Array {
    return this.tables.chunkNames.subarray(this.tables.chunkNameStart[chunk], this.tables.chunkNameStart[chunk + 1]);
  }

  /** The chunk of `file` holding `line`, or the nearest one before it. */
  chunkAt(file: number, line: number): number | undefined {
    const startLines = this.tables.chunkStartLine;
    return lastAtOrBefore((index) => startLines[index], this.chunkStart[file], this.chunkStart[file + 1], line);
  }

  /** The id of an identifier among the definitions' and references' names, or -1. */
  nameId(name: string): number {
    return this.tables.names.id(name);
  }

  name(id: number): string {
    return this.tables.names.get(id);
  }

  /** The definitions named exactly `name`, in file order; undefined when none. */
  definitionsNamed(name: string): DefinitionRef[] | undefined {
    const id = this.tables.names.id(name);
    if (id === -1 || this.definitionCount(id) === 0) return undefined;
    return this.definitionsOfName(id);
  }

  /** How many definitions a name id has. */
  definitionCount(nameId: number): number {
    return this.tables.defByNameStart[nameId + 1] - this.tables.defByNameStart[nameId];
  }

  /** How many distinct files define a name id. */
  definerCount(nameId: number): number {
    return this.tables.definerCount[nameId];
  }

  definitionsOfName(nameId: number): DefinitionRef[] {
    const { defByNameStart, defByName } = this.tables;
    const found: DefinitionRef[] = [];
    for (let at = defByNameStart[nameId]; at < defByNameStart[nameId + 1]; at++) found.push(this.definition(defByName[at]));
    return found;
  }

  /** The distinct files defining a name id, ascending. */
  definersOf(nameId: number): number[] {
    const { defByNameStart, defByName, defFile } = this.tables;
    const files: number[] = [];
    for (let at = defByNameStart[nameId]; at < defByNameStart[nameId + 1]; at++) {
      const file = defFile[defByName[at]];
      if (files.length === 0 || files[files.length - 1] !== file) files.push(file);
    }
    return files;
  }

  /** The defined names whose `nameKey` is `key` (the whole-identifier term), in the order they were first defined. */
  namesWithKey(key: string): string[] {
    return this.nameIdsWithKey(this.tables.terms.id(key)).map((id) => this.tables.names.get(id));
  }

  /** The defined name ids whose `nameKey` is the term id. */
  nameIdsWithKey(termId: number): number[] {
    if (termId === -1) return [];
    const { keyNameStart, keyNames } = this.tables;
    return Array.from(keyNames.subarray(keyNameStart[termId], keyNameStart[termId + 1]));
  }

  /** Files using a name (the BlobIndex references): how specific a name a task mentions is. */
  filesUsing(name: string): number {
    const id = this.tables.names.id(name);
    return id === -1 ? 0 : this.tables.filesUsing[id];
  }

  /** A file's references: name ids and use counts, in the file's order. */
  referencesOf(file: number): { names: Int32Array; counts: Int32Array } {
    const { refStart, refName, refCount } = this.tables;
    return { names: refName.subarray(refStart[file], refStart[file + 1]), counts: refCount.subarray(refStart[file], refStart[file + 1]) };
  }

  /** The name ids of a file's definitions, in the file's order. */
  definitionNamesOf(file: number): Int32Array {
    const { defStart, defName } = this.tables;
    return defName.subarray(defStart[file], defStart[file + 1]);
  }

  /** The files using a name id, with their counts, in file order (the inverse of the references). */
  usersOf(nameId: number): { files: Int32Array; counts: Int32Array } {
    const users = (this.users ??= invertReferences(this.tables));
    return { files: users.files.subarray(users.start[nameId], users.start[nameId + 1]), counts: users.counts.subarray(users.start[nameId], users.start[nameId + 1]) };
  }

  private definition(id: number): DefinitionRef {
    const { defFile, defChunk, defName, defContainer, defKind, defLine, defStartLine, defEndLine, names, kinds } = this.tables;
    const definition: CorpusDefinition = { kind: kinds[defKind[id]] as SymbolKind, name: names.get(defName[id]), line: defLine[id], startLine: defStartLine[id], endLine: defEndLine[id] };
    if (defContainer[id] !== -1) definition.container = names.get(defContainer[id]);
    return { file: defFile[id], definition, chunk: defChunk[id] };
  }
}

/**
 * The string literals of the commit: literal i is in file `file[i]` at `line[i]`; its fragments
 * are `fragmentStart[i]..fragmentStart[i+1]-1`, fragment j's words `wordStart[j]..wordStart[j+1]-1`
 * of `words` (ids in `wordTable`).
 */
export class CorpusLiterals {
  readonly file: Int32Array;
  readonly line: Int32Array;
  readonly fragmentStart: Int32Array;
  readonly wordStart: Int32Array;
  readonly words: Int32Array;
  readonly wordTable: StringTable;

  constructor(tables: CorpusTables) {
    this.file = tables.literalFile;
    this.line = tables.literalLine;
    this.fragmentStart = tables.literalFragmentStart;
    this.wordStart = tables.fragmentWordStart;
    this.words = tables.fragmentWords;
    this.wordTable = tables.words;
  }

  get count(): number {
    return this.file.length;
  }

  /** A literal's fragments as words. */
  fragments(literal: number): string[][] {
    const fragments: string[][] = [];
    for (let fragment = this.fragmentStart[literal]; fragment < this.fragmentStart[literal + 1]; fragment++) {
      const words: string[] = [];
      for (let word = this.wordStart[fragment]; word < this.wordStart[fragment + 1]; word++) words.push(this.wordTable.get(this.words[word]));
      fragments.push(words);
    }
    return fragments;
  }
}

/** Everything a corpus is made of; what `ContextCorpusBuilder.tables()` hands over. */
export interface CorpusTables {
  paths: string[];
  roles: FileRole[];
  fileIndex: Map<string, number>;
  fileLength: Float64Array;
  chunkStart: Int32Array;
  refStart: Int32Array;
  refName: Int32Array;
  refCount: Int32Array;
  defStart: Int32Array;
  chunkFile: Int32Array;
  chunkLength: Uint32Array;
  chunkStartLine: Int32Array;
  chunkEndLine: Int32Array;
  chunkSymbol: Int32Array;
  chunkContainer: Int32Array;
  chunkKind: Uint8Array;
  chunkNameStart: Int32Array;
  chunkNames: Int32Array;
  terms: StringTable;
  postingStart: Int32Array;
  postingChunk: Int32Array;
  postingCount: Uint16Array;
  countOverflow: Map<number, number>;
  termFiles: Int32Array;
  keyNameStart: Int32Array;
  keyNames: Int32Array;
  names: StringTable;
  kinds: string[];
  filesUsing: Int32Array;
  definerCount: Int32Array;
  defByNameStart: Int32Array;
  defByName: Int32Array;
  defFile: Int32Array;
  defChunk: Int32Array;
  defName: Int32Array;
  defContainer: Int32Array;
  defKind: Uint8Array;
  defLine: Int32Array;
  defStartLine: Int32Array;
  defEndLine: Int32Array;
  words: StringTable;
  literalFile: Int32Array;
  literalLine: Int32Array;
  literalFragmentStart: Int32Array;
  fragmentWordStart: Int32Array;
  fragmentWords: Int32Array;
  options: Map<string, { file: number; line: number }[]>;
  filesByBaseName: Map<string, number[]>;
  filesByModule: Map<string, number[]>;
  pathTermFiles: Map<string, number[]>;
}

/**
 * Builds a corpus a file at a time, in path order, keeping only the compact form of what it is
 * given: a caller can decode each file's rows, add it and drop it, so a commit's rows never all
 * exist as objects at once. Postings are gathered per chunk (term ids and counts, in pages) and
 * inverted once at the end.
 */
export class ContextCorpusBuilder {
  private readonly terms = new StringTable();
  private readonly names = new StringTable();
  private readonly words = new StringTable();
  private readonly kinds: string[] = [''];
  private readonly kindIds = new Map<string, number>();
  private readonly paths: string[] = [];
  private readonly roles: FileRole[] = [];
  private readonly fileIndex = new Map<string, number>();
  private readonly fileLength = float64Vector();
  private readonly chunkStart = int32Vector();
  private readonly refStart = int32Vector();
  private readonly refName = int32Vector();
  private readonly refCount = int32Vector();
  private readonly defStart = int32Vector();
  private readonly chunkFile = int32Vector();
  private readonly chunkLength = int32Vector();
  private readonly chunkStartLine = int32Vector();
  private readonly chunkEndLine = int32Vector();
  private readonly chunkSymbol = int32Vector();
  private readonly chunkContainer = int32Vector();
  private readonly chunkKind = uint8Vector();
  private readonly chunkNameStart = int32Vector();
  private readonly chunkNames = int32Vector();
  /** Every chunk's terms, in chunk order: the postings before inversion. */
  private readonly chunkTermStart = int32Vector();
  private readonly forwardTerm = new PagedVector<Int32Array>((length) => new Int32Array(length));
  private readonly forwardCount = new PagedVector<Uint16Array>((length) => new Uint16Array(length));
  private readonly forwardOverflow = new Map<number, number>();
  private readonly termPostingCount = int32Vector();
  private readonly termFiles = int32Vector();
  private readonly termLastFile = int32Vector();
  private readonly nameDefinitions = int32Vector();
  private readonly filesUsing = int32Vector();
  private readonly definerCount = int32Vector();
  private readonly nameLastDefiner = int32Vector();
  /** (key term, name) for each name when first defined. */
  private readonly keyPairs = int32Vector();
  private readonly defFile = int32Vector();
  private readonly defChunk = int32Vector();
  private readonly defName = int32Vector();
  private readonly defContainer = int32Vector();
  private readonly defKind = uint8Vector();
  private readonly defLine = int32Vector();
  private readonly defStartLine = int32Vector();
  private readonly defEndLine = int32Vector();
  private readonly literalFile = int32Vector();
  private readonly literalLine = int32Vector();
  private readonly literalFragmentStart = int32Vector();
  private readonly fragmentWordStart = int32Vector();
  private readonly fragmentWords = int32Vector();
  private readonly options = new Map<string, { file: number; line: number }[]>();
  private readonly filesByBaseName = new Map<string, number[]>();
  private readonly filesByModule = new Map<string, number[]>();
  private readonly pathTermFiles = new Map<string, number[]>();
  private scratchTerms = new Int32Array(256);
  private built = false;

  get fileCount(): number {
    return this.paths.length;
  }

  /** Adds the next file; files come in path order (JavaScript string order), as the corpus numbers them, each path once. */
  add(file: CorpusFile): void {
    if (this.built) throw new Error('ContextCorpusBuilder: the corpus is already built');
    const index = this.paths.length;
    // Paths are the files' identities, and their order the files' numbering (ties in a ranking go by it).
    if (index > 0 && file.path <= this.paths[index - 1]) {
      throw new Error(file.path === this.paths[index - 1] ? `ContextCorpusBuilder: ${file.path} twice` : `ContextCorpusBuilder: ${file.path} comes after ${this.paths[index - 1]}; add files in path order`);
    }
    this.paths.push(file.path);
    this.roles.push(fileRole(file.path));
    this.fileIndex.set(file.path, index);
    const firstChunk = this.chunkFile.length;
    this.chunkStart.push(firstChunk);
    this.addChunks(file.chunks, index);

    this.defStart.push(this.defFile.length);
    for (const definition of file.definitions) this.addDefinition(definition, index, firstChunk);
    this.refStart.push(this.refName.length);
    for (const [name, count] of file.references) {
      const id = this.nameId(name);
      this.refName.push(id);
      this.refCount.push(count);
      this.filesUsing.add(id, 1);
    }
    for (const literal of file.chunks.literals) {
      this.literalFile.push(index);
      this.literalLine.push(literal.line);
      this.literalFragmentStart.push(this.fragmentWordStart.length);
      for (const fragment of literal.fragments) {
        this.fragmentWordStart.push(this.fragmentWords.length);
        for (const word of fragment) this.fragmentWords.push(this.words.add(word));
      }
    }
    for (const [option, line] of file.chunks.options) push(this.options, option, { file: index, line });
    const lower = file.path.toLowerCase();
    push(this.filesByBaseName, lower.slice(lower.lastIndexOf('/') + 1), index);
    for (const module of modulePaths(lower)) push(this.filesByModule, module, index);
    for (const term of pathTerms(file.path)) push(this.pathTermFiles, term, index);
  }

  /** The corpus of the files added. The builder is spent. */
  build(): ContextCorpus {
    return new ContextCorpus(this.tables());
  }

  /** The tables of the files added (the builder is spent). */
  tables(): CorpusTables {
    if (this.built) throw new Error('ContextCorpusBuilder: the corpus is already built');
    this.built = true;
    this.chunkStart.push(this.chunkFile.length);
    this.defStart.push(this.defFile.length);
    this.refStart.push(this.refName.length);
    this.chunkNameStart.push(this.chunkNames.length);
    this.chunkTermStart.push(this.forwardTerm.length);
    this.literalFragmentStart.push(this.fragmentWordStart.length);
    this.fragmentWordStart.push(this.fragmentWords.length);

    const termCount = this.terms.size;
    const nameCount = this.names.size;
    this.termPostingCount.fill(termCount);
    this.termFiles.fill(termCount);

    // Postings: the chunks' terms inverted, in chunk order, so each term's chunks ascend.
    const postingStart = new Int32Array(termCount + 1);
    for (let term = 0; term < termCount; term++) postingStart[term + 1] = postingStart[term] + this.termPostingCount.get(term);
    const postingTotal = postingStart[termCount];
    const postingChunk = new Int32Array(postingTotal);
    const postingCount = new Uint16Array(postingTotal);
    const countOverflow = new Map<number, number>();
    const next = postingStart.slice(0, termCount);
    const chunkTermStart = this.chunkTermStart.array();
    const chunkTotal = this.chunkFile.length;
    for (let chunk = 0; chunk < chunkTotal; chunk++) {
      for (let at = chunkTermStart[chunk]; at < chunkTermStart[chunk + 1]; at++) {
        const term = this.forwardTerm.get(at);
        const position = next[term]++;
        postingChunk[position] = chunk;
        postingCount[position] = this.forwardCount.get(at);
        const exact = this.forwardOverflow.get(at);
        if (exact !== undefined) countOverflow.set(position, exact);
      }
    }
    // What only the build needed goes now (a caller may keep the builder).
    this.forwardTerm.clear();
    this.forwardCount.clear();
    this.forwardOverflow.clear();
    this.termPostingCount.array();
    this.termLastFile.array();
    this.nameLastDefiner.array();

    // Definitions grouped by name, in definition order.
    this.nameDefinitions.fill(nameCount);
    const defByNameStart = new Int32Array(nameCount + 1);
    for (let name = 0; name < nameCount; name++) defByNameStart[name + 1] = defByNameStart[name] + this.nameDefinitions.get(name);
    this.nameDefinitions.array();
    const defName = this.defName.array();
    const defByName = new Int32Array(defName.length);
    const nameNext = defByNameStart.slice(0, nameCount);
    for (let definition = 0; definition < defName.length; definition++) defByName[nameNext[defName[definition]]++] = definition;

    // Defined names by key term, in the order they were first defined.
    const keyPairs = this.keyPairs.array();
    const keyNameStart = new Int32Array(termCount + 1);
    for (let pair = 0; pair < keyPairs.length; pair += 2) keyNameStart[keyPairs[pair] + 1]++;
    for (let term = 0; term < termCount; term++) keyNameStart[term + 1] += keyNameStart[term];
    const keyNames = new Int32Array(keyPairs.length / 2);
    const keyNext = keyNameStart.slice(0, termCount);
    for (let pair = 0; pair < keyPairs.length; pair += 2) keyNames[keyNext[keyPairs[pair]]++] = keyPairs[pair + 1];

    this.filesUsing.fill(nameCount);
    this.definerCount.fill(nameCount);
    this.terms.trim();
    this.names.trim();
    this.words.trim();
    const chunkLength = this.chunkLength.array();
    return {
      paths: this.paths,
      roles: this.roles,
      fileIndex: this.fileIndex,
      fileLength: this.fileLength.array(),
      chunkStart: this.chunkStart.array(),
      refStart: this.refStart.array(),
      refName: this.refName.array(),
      refCount: this.refCount.array(),
      defStart: this.defStart.array(),
      chunkFile: this.chunkFile.array(),
      chunkLength: new Uint32Array(chunkLength.buffer, chunkLength.byteOffset, chunkLength.length),
      chunkStartLine: this.chunkStartLine.array(),
      chunkEndLine: this.chunkEndLine.array(),
      chunkSymbol: this.chunkSymbol.array(),
      chunkContainer: this.chunkContainer.array(),
      chunkKind: this.chunkKind.array(),
      chunkNameStart: this.chunkNameStart.array(),
      chunkNames: this.chunkNames.array(),
      terms: this.terms,
      postingStart,
      postingChunk,
      postingCount,
      countOverflow,
      termFiles: this.termFiles.array(),
      keyNameStart,
      keyNames,
      names: this.names,
      kinds: this.kinds,
      filesUsing: this.filesUsing.array(),
      definerCount: this.definerCount.array(),
      defByNameStart,
      defByName,
      defFile: this.defFile.array(),
      defChunk: this.defChunk.array(),
      defName,
      defContainer: this.defContainer.array(),
      defKind: this.defKind.array(),
      defLine: this.defLine.array(),
      defStartLine: this.defStartLine.array(),
      defEndLine: this.defEndLine.array(),
      words: this.words,
      literalFile: this.literalFile.array(),
      literalLine: this.literalLine.array(),
      literalFragmentStart: this.literalFragmentStart.array(),
      fragmentWordStart: this.fragmentWordStart.array(),
      fragmentWords: this.fragmentWords.array(),
      options: this.options,
      filesByBaseName: this.filesByBaseName,
      filesByModule: this.filesByModule,
      pathTermFiles: this.pathTermFiles,
    };
  }

  private addChunks(chunks: BlobChunks, file: number): void {
    let fileLength = 0;
    for (const row of chunks.chunks) {
      this.chunkFile.push(file);
      this.chunkLength.push(row.length);
      fileLength += row.length;
      this.chunkStartLine.push(row.startLine);
      this.chunkEndLine.push(row.endLine);
      this.chunkSymbol.push(row.symbol === undefined ? -1 : this.nameId(row.symbol));
      this.chunkContainer.push(row.container === undefined ? -1 : this.nameId(row.container));
      this.chunkKind.push(row.kind === undefined ? 0 : this.kindId(row.kind));
      this.chunkTermStart.push(this.forwardTerm.length);
      if (row.terms.length > this.scratchTerms.length) this.scratchTerms = new Int32Array(row.terms.length * 2);
      const ids = this.scratchTerms;
      for (let index = 0; index < row.terms.length; index++) {
        const [term, count] = row.terms[index];
        const id = this.termId(term);
        ids[index] = id;
        if (count > MAX_POSTING_COUNT) this.forwardOverflow.set(this.forwardTerm.length, count);
        this.forwardTerm.push(id);
        this.forwardCount.push(Math.min(count, MAX_POSTING_COUNT));
        this.termPostingCount.add(id, 1);
        if (this.termLastFile.get(id) !== file) {
          this.termLastFile.set(id, file);
          this.termFiles.add(id, 1);
        }
      }
      this.chunkNameStart.push(this.chunkNames.length);
      for (const termIndex of row.names) this.chunkNames.push(ids[termIndex]);
    }
    this.fileLength.push(fileLength);
  }

  private addDefinition(definition: CorpusDefinition, file: number, firstChunk: number): void {
    const chunkEnd = this.chunkFile.length;
    const startLines = this.chunkStartLine;
    const found = lastAtOrBefore((index) => startLines.get(index), firstChunk, chunkEnd, definition.line);
    const name = this.nameId(definition.name);
    this.defFile.push(file);
    this.defChunk.push(found ?? firstChunk);
    this.defName.push(name);
    this.defContainer.push(definition.container === undefined ? -1 : this.nameId(definition.container));
    this.defKind.push(this.kindId(definition.kind));
    this.defLine.push(definition.line);
    this.defStartLine.push(definition.startLine);
    this.defEndLine.push(definition.endLine);
    if (this.nameDefinitions.get(name) === 0) {
      this.keyPairs.push(this.termId(nameKey(definition.name)));
      this.keyPairs.push(name);
    }
    this.nameDefinitions.add(name, 1);
    if (this.nameLastDefiner.get(name) !== file) {
      this.nameLastDefiner.set(name, file);
      this.definerCount.add(name, 1);
    }
  }

  private termId(term: string): number {
    const id = this.terms.add(term);
    if (id === this.termPostingCount.length) {
      this.termPostingCount.push(0);
      this.termFiles.push(0);
      this.termLastFile.push(-1);
    }
    return id;
  }

  private nameId(name: string): number {
    const id = this.names.add(name);
    if (id === this.nameDefinitions.length) {
      this.nameDefinitions.push(0);
      this.filesUsing.push(0);
      this.definerCount.push(0);
      this.nameLastDefiner.push(-1);
    }
    return id;
  }

  private kindId(kind: string): number {
    let id = this.kindIds.get(kind);
    if (id === undefined) {
      id = this.kinds.length;
      if (id > 255) throw new Error('ContextCorpusBuilder: more than 255 symbol kinds');
      this.kinds.push(kind);
      this.kindIds.set(kind, id);
    }
    return id;
  }
}

/** The last chunk of from..to-1 starting at or before the line (chunks are in line order and never overlap). */
function lastAtOrBefore(startOf: (index: number) => number, from: number, to: number, line: number): number | undefined {
  let low = from;
  let high = to - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (startOf(middle) <= line) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found === -1 ? undefined : found;
}

function invertReferences(tables: CorpusTables): { start: Int32Array; files: Int32Array; counts: Int32Array } {
  const nameCount = tables.names.size;
  const start = new Int32Array(nameCount + 1);
  for (let at = 0; at < tables.refName.length; at++) start[tables.refName[at] + 1]++;
  for (let name = 0; name < nameCount; name++) start[name + 1] += start[name];
  const files = new Int32Array(tables.refName.length);
  const counts = new Int32Array(tables.refName.length);
  const next = start.slice(0, nameCount);
  for (let file = 0; file < tables.paths.length; file++) {
    for (let at = tables.refStart[file]; at < tables.refStart[file + 1]; at++) {
      const position = next[tables.refName[at]]++;
      files[position] = file;
      counts[position] = tables.refCount[at];
    }
  }
  return { start, files, counts };
}

/**
 * The module paths a file answers to, shortest first: `src/flask/config.py` → `config`,
 * `flask/config`, `src/flask/config`; an `__init__.py`, `index.ts` or `mod.rs` also answers to its
 * directory (`flask`). Lower-cased, without extension.
 */
export function modulePaths(lowerPath: string): string[] {
  const extension = /\.([a-z0-9]+)$/.exec(lowerPath)?.[1] ?? '';
  const segments = lowerPath.slice(0, lowerPath.length - (extension ? extension.length + 1 : 0)).split('/');
  const last = segments[segments.length - 1];
  const packageFile = last === '__init__' || (last === 'index' && /^[cm]?[jt]sx?$/.test(extension)) || ((last === 'mod' || last === 'lib') && extension === 'rs');
  if (packageFile && segments.length > 1) segments.pop();
  const paths: string[] = [];
  for (let start = segments.length - 1; start >= 0; start--) paths.push(segments.slice(start).join('/'));
  return paths;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
