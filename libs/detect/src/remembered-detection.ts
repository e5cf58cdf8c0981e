import type { RepoReader } from './scan';

/** What a detection read of a repository: the directories it listed and the files it read, tried ones included. */
export interface ReadSet {
  directories: string[];
  files: string[];
}

/** What changed between two commits, as a reader of their trees sees it (`Snapshot.treeChangesSince`). */
export interface TreeChanges {
  /** The commit compared with. */
  base: string;
  /** Files whose content, kind or presence changed. */
  files: readonly string[];
  /** Directories whose entries changed (a name came or went, or changed kind). */
  directories: readonly string[];
}

/** A root-relative path as the snapshot names it: '' for the root, no `./`, no trailing slash. */
function normalized(relative: string): string {
  if (relative === '.' || relative === './') return '';
  return relative.replace(/^\.\//, '').replace(/\/+$/, '');
}

/** `reader`, recording every directory listed and file read through it (`reads`). */
export function recordReads(reader: RepoReader): { reader: RepoReader; reads(): ReadSet } {
  const directories = new Set<string>();
  const files = new Set<string>();
  return {
    reader: {
      root: reader.root,
      readDirectory: (relative) => {
        directories.add(normalized(relative));
        return reader.readDirectory(relative);
      },
      readText: (relative, maxBytes) => {
        files.add(normalized(relative));
        return reader.readText(relative, maxBytes);
      },
    },
    reads: () => ({ directories: [...directories], files: [...files] }),
  };
}

/** Whether `changes` touch anything `reads` looked at: a detection that read the same would find the same. */
export function readsTouched(reads: ReadSet, changes: Pick<TreeChanges, 'files' | 'directories'>): boolean {
  const directories = new Set(reads.directories);
  const files = new Set(reads.files);
  return changes.directories.some((directory) => directories.has(directory)) || changes.files.some((file) => files.has(file));
}

/** Where remembered detections are kept (`@quarry/blob-scan`'s StateMemory: memory, and Postgres for every worker). */
export interface DetectionStates {
  take<T>(key: { repository: string; kind: string; commit: string }, decode: (json: unknown) => T | undefined): Promise<T | undefined>;
  keep<T>(key: { repository: string; kind: string; commit: string }, state: T, encode: (state: T) => unknown): Promise<void>;
}

interface RememberedDetection<R> {
  reads: ReadSet;
  result: R;
}

/**
 * A detection of a commit's stack that reuses the detection of the commit it changed from when
 * the change touched nothing that detection read (a re-scan after an edit to a source file: the
 * kernel's detection lists 4,400 directories and reads its manifests, for the same answer).
 * Every detection made is remembered, with what it read, for the next commit's.
 */
export async function detectRemembering<R>(options: {
  states: DetectionStates;
  repository: string;
  /** What else the answer depends on (the detection mode). */
  kind: string;
  commit: string;
  changes: TreeChanges | undefined;
  reader: RepoReader;
  detect: (reader: RepoReader) => Promise<R>;
}): Promise<{ result: R; reused: boolean }> {
  const { states, repository, commit, changes } = options;
  const kind = `stack ${options.kind}`;
  const decode = (json: unknown) => {
    const state = json as Partial<RememberedDetection<R>>;
    return state.reads && Array.isArray(state.reads.directories) && Array.isArray(state.reads.files) && state.result !== undefined ? (state as RememberedDetection<R>) : undefined;
  };
  const encode = (state: RememberedDetection<R>) => state;
  const base = changes && (await states.take({ repository, kind, commit: changes.base }, decode));
  if (base && !readsTouched(base.reads, changes)) {
    await states.keep({ repository, kind, commit }, base, encode);
    return { result: base.result, reused: true };
  }
  const recording = recordReads(options.reader);
  const result = await options.detect(recording.reader);
  await states.keep({ repository, kind, commit }, { reads: recording.reads(), result }, encode);
  return { result, reused: false };
}
