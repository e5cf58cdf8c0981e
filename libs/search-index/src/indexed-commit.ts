import { DocKind, type SegmentReader } from './segment';

/** One file of an indexed commit: its path, its blob, and whether git lists it as a symlink. */
export interface CommitFile {
  path: string;
  blob: string;
  symlink?: boolean;
}

/** What the index says about the files a query's trigrams did not select. */
export interface NotRead {
  /** Text files: searched, without a match. */
  text: string[];
  /** A NUL in their first 8 KiB: skipped as binary by every search. */
  binary: string[];
  /** Over the search's size cap. */
  tooLarge: string[];
}

export interface Candidates {
  /** Files the search must read and match: selected by the trigrams, or not indexed. */
  read: string[];
  notRead: NotRead;
}

interface Located {
  segment: number;
  doc: number;
}

/**
 * A commit whose every blob is in one of its segments: its file listing and the segments, opened.
 * Built once per commit and process (a few MB for the Linux tree), queried many times.
 */
export class IndexedCommit {
  private readonly located: Array<Located | undefined>;

  constructor(
    readonly commit: string,
    readonly files: readonly CommitFile[],
    private readonly segments: readonly SegmentReader[],
  ) {
    const where = new Map<string, Located>();
    segments.forEach((segment, index) => segment.blobs.forEach((blob, doc) => where.set(blob, { segment: index, doc })));
    this.located = files.map((file) => where.get(file.blob));
  }

  /**
   * The files that may hold a line with every one of `trigrams`: those whose document the postings
   * select, plus those the index cannot rule out (not indexed, a late NUL, a symlink, which the
   * search reads to refuse). The rest are sorted by what a cold search would have made of them.
   */
  candidates(trigrams: readonly number[], maxFileBytes: number): Candidates {
    const selected = this.segments.map((segment) => {
      const docs = segment.candidates(trigrams);
      const set = new Uint8Array(segment.blobs.length);
      for (let index = 0; index < docs.length; index++) set[docs[index]] = 1;
      return set;
    });
    const read: string[] = [];
    const notRead: NotRead = { text: [], binary: [], tooLarge: [] };
    this.files.forEach((file, index) => {
      const at = this.located[index];
      if (at === undefined || file.symlink) {
        read.push(file.path);
        return;
      }
      const segment = this.segments[at.segment];
      const kind = segment.kinds[at.doc];
      if (segment.sizes[at.doc] > maxFileBytes) notRead.tooLarge.push(file.path);
      else if (kind === DocKind.Binary) notRead.binary.push(file.path);
      else if (kind === DocKind.AlwaysRead || selected[at.segment][at.doc] === 1) read.push(file.path);
      else notRead.text.push(file.path);
    });
    return { read, notRead };
  }

  close(): void {
    for (const segment of this.segments) segment.close();
  }
}
