import { SymbolTable } from '../lookup/symbol-table';
import type { BlobIndex } from './blob-index';

/** One indexed file of a tree. */
export interface IndexedFile {
  path: string;
  index: BlobIndex;
}

/** A tree at one state with every file indexed; its symbol table is built on first use. */
export interface IndexedTree {
  root: string;
  state: string;
  files: IndexedFile[];
  /** Files left out because their names mark them as credentials. */
  secretFiles: number;
  symbolTable(): SymbolTable;
  /**
   * The stored chunk rows of the files whose index came from a store without them (`load` leaves
   * them out: a symbol look-up needs none), by path: what the retrieval corpus reads instead of
   * the files. Absent for trees indexed in this process (their indexes carry `chunks`).
   */
  storedChunks?(): Promise<ReadonlyMap<string, Uint8Array>>;
}

/** A tree of indexed files (a directory's, or a snapshot's from the per-blob rows), its symbol table built on first use. */
export function indexedTree(root: string, state: string, files: IndexedFile[], secretFiles: number, storedChunks?: () => Promise<ReadonlyMap<string, Uint8Array>>): IndexedTree {
  let table: SymbolTable | undefined;
  return {
    root,
    state,
    files,
    secretFiles,
    symbolTable: () => (table ??= SymbolTable.from(files.map((file) => ({ path: file.path, definitions: file.index.definitions, references: file.index.references })))),
    ...(storedChunks === undefined ? {} : { storedChunks }),
  };
}
