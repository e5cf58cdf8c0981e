import { DocKind, type SegmentReader } from './segment';

/** One file of an indexed commit: its path, its blob, and whether git lists it as a symlink. */
export interface CommitFile {
  path: string;
  blob: string;
  symlink?: boolean;
}

/** How many in-scope files of each kind the search did not need to read. */
export interface NotRead {
  /** Text files: searched, without a match. */
  text: number;
  /** Binary (a NUL in their first 8,000 bytes): skipped by every search. */
  binary: number;
  /** Over the search's size cap. */
  tooLarge: number;
}

export interface Candidates {
  /** Files the search must read and match: selected by the trigrams, or not indexed (not yet filtered by the scope). */
  read: string[];
  notRead: NotRead;
}

/** The request's scope: a key naming it (for the per-scope counts) and the filter itself. */
export interface CandidateScope {
  key: string;
  inScope: (files: readonly string[]) => string[];
}

/** What a file is to the index. */
const TEXT = 0;
const BINARY = 1;
/** Not indexed (no segment holds its blob, a NUL past the first 8,000 bytes, a symlink): read by every query. */
const ALWAYS = 2;
const SCOPES_REMEMBERED = 16;

/**
 * A commit whose every blob is in one of its segments: its file listing and the segments, opened.
 * Built once per commit and process (a few MB for the Linux tree), queried many times: a query
 * walks only the postings of its trigrams and the files of the selected blobs, and takes the
 * counts of the files it did not read from per-scope totals, so its cost follows the matches, not
 * the size of the tree.
 */
export class IndexedCommit {
  private readonly kinds: Uint8Array;
  /** Bytes per file (-1: unknown, the blob is in no segment). */
  private readonly sizes: Float64Array;
  /** Per segment and document, the first file with that blob (-1: none in this commit); `nextFile` chains the others. */
  private readonly firstFile: Int32Array[];
  private readonly nextFile: Int32Array;
  private readonly always: number[] = [];
  private readonly scopeTotals = new Map<string, NotRead>();
  private byPath: Map<string, number> | undefined;

  constructor(
    readonly commit: string,
    readonly files: readonly CommitFile[],
    private readonly segments: readonly SegmentReader[],
  ) {
    const where = new Map<string, number>();
    segments.forEach((segment, index) => segment.blobs.forEach((blob, doc) => where.has(blob) || where.set(blob, index * 2 ** 20 + doc)));
    this.kinds = new Uint8Array(files.length);
    this.sizes = new Float64Array(files.length).fill(-1);
    this.firstFile = segments.map((segment) => new Int32Array(segment.blobs.length).fill(-1));
    this.nextFile = new Int32Array(files.length).fill(-1);
    files.forEach((file, index) => {
      const at = where.get(file.blob);
      if (at === undefined || file.symlink) {
        this.kinds[index] = ALWAYS;
        if (at === undefined) return;
      }
      const segment = Math.floor(at / 2 ** 20);
      const doc = at % 2 ** 20;
      this.sizes[index] = segments[segment].sizes[doc];
      const kind = segments[segment].kinds[doc];
      if (!file.symlink) this.kinds[index] = kind === DocKind.Binary ? BINARY : kind === DocKind.AlwaysRead ? ALWAYS : TEXT;
      this.nextFile[index] = this.firstFile[segment][doc];
      this.firstFile[segment][doc] = index;
    });
    this.kinds.forEach((kind, index) => kind === ALWAYS && this.always.push(index));
  }

  /**
   * The files that may hold a line with every one of `trigrams`: those of the documents the
   * postings select, plus those the index cannot rule out. The in-scope files left unread are
   * counted as a cold search would have counted them (searched, binary, over the size cap).
   * `excluded` paths (a working tree's changed, deleted and renamed files, read or dropped by the
   * caller) are neither returned nor counted.
   */
  candidates(trigrams: readonly number[], maxFileBytes: number, scope: CandidateScope, excluded?: ReadonlySet<string>): Candidates {
    const read: string[] = [];
    const selectedText: string[] = [];
    const tooLarge = (index: number) => this.sizes[index] > maxFileBytes;
    const left = (index: number) => excluded !== undefined && excluded.size > 0 && excluded.has(this.files[index].path);
    this.segments.forEach((segment, position) => {
      const docs = segment.candidates(trigrams);
      const first = this.firstFile[position];
      for (let index = 0; index < docs.length; index++) {
        for (let file = first[docs[index]]; file !== -1; file = this.nextFile[file]) {
          if (this.kinds[file] !== TEXT || tooLarge(file) || left(file)) continue;
          read.push(this.files[file].path);
          selectedText.push(this.files[file].path);
        }
      }
    });
    for (const file of this.always) if (!tooLarge(file) && !left(file)) read.push(this.files[file].path);
    const totals = { ...this.totalsFor(maxFileBytes, scope) };
    if (excluded && excluded.size > 0) {
      // Files the overlay takes out are not this commit's any more: neither read nor counted here.
      for (const path of scope.inScope([...excluded])) {
        const index = this.indexOf(path);
        if (index === undefined) continue;
        if (tooLarge(index)) totals.tooLarge--;
        else if (this.kinds[index] === BINARY) totals.binary--;
        else if (this.kinds[index] === TEXT) totals.text--;
      }
    }
    return { read, notRead: { text: totals.text - scope.inScope(selectedText).length, binary: totals.binary, tooLarge: totals.tooLarge } };
  }

  /** A file's position by path (the table is made on first use: only overlays ask). */
  private indexOf(path: string): number | undefined {
    this.byPath ??= new Map(this.files.map((file, index) => [file.path, index]));
    return this.byPath.get(path);
  }

  /** In-scope files by kind (ALWAYS files are read, so not counted), computed once per scope and cap. */
  private totalsFor(maxFileBytes: number, scope: CandidateScope): NotRead {
    const key = `${maxFileBytes}\0${scope.key}`;
    let totals = this.scopeTotals.get(key);
    if (totals) return totals;
    const byKind: Record<keyof NotRead, string[]> = { text: [], binary: [], tooLarge: [] };
    this.files.forEach((file, index) => {
      if (this.sizes[index] > maxFileBytes) byKind.tooLarge.push(file.path);
      else if (this.kinds[index] === BINARY) byKind.binary.push(file.path);
      else if (this.kinds[index] === TEXT) byKind.text.push(file.path);
    });
    totals = { text: scope.inScope(byKind.text).length, binary: scope.inScope(byKind.binary).length, tooLarge: scope.inScope(byKind.tooLarge).length };
    if (this.scopeTotals.size >= SCOPES_REMEMBERED) this.scopeTotals.delete(this.scopeTotals.keys().next().value as string);
    this.scopeTotals.set(key, totals);
    return totals;
  }

  close(): void {
    for (const segment of this.segments) segment.close();
  }
}
