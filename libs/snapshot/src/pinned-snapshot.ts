import type { Snapshot, ResolvedSource } from './snapshot';
import type { SnapshotProvider, SourceInput } from './snapshot-provider';
import { LocalSnapshot } from './local-snapshot';

export interface PinnedSnapshot {
  snapshot: Snapshot;
  /** The source as pinned: known at once for a git URL, computed beside the work for a directory. */
  source(): Promise<ResolvedSource>;
}

/**
 * Opens what a job names. A git ref is resolved now, unless the job row already pinned a commit
 * on an earlier attempt (a retry reads the same commit). A directory's identity (HEAD, or a
 * content hash) is computed beside and after the work, from what the work read.
 */
export async function openPinned(
  provider: SnapshotProvider,
  input: SourceInput,
  pinned: ResolvedSource | undefined,
  signal?: AbortSignal,
  /** `prepareIdentity: false`: a directory's identity is not started beside the work (a caller that may never ask for it). */
  options: { prepareIdentity?: boolean } = {},
): Promise<PinnedSnapshot> {
  if ('git' in input) {
    const source = pinned && 'git' in pinned ? pinned : await provider.resolve(input, signal);
    const snapshot = await provider.open(source, signal);
    return { snapshot, source: async () => source };
  }
  const snapshot = await provider.openLocal(input.path);
  // git's view of the directory is asked for now, beside the work; the content hash of a
  // directory outside git is taken after it, from what the work read.
  if (options.prepareIdentity !== false) snapshot.prepareIdentity(signal);
  return { snapshot, source: () => snapshot.identify(signal) };
}

/** What detection reads (the RepoReader of @quarry/detect), over any snapshot. */
export function repoReaderOf(snapshot: Snapshot): {
  root: string;
  readDirectory(relative: string): Promise<readonly { name: string; isFile(): boolean; isDirectory(): boolean }[]>;
  readText(relative: string, maxBytes: number): Promise<string | undefined>;
} {
  return {
    // The project name of a service at the root is this basename: a checkout's directory name.
    root: snapshot instanceof LocalSnapshot ? snapshot.root : snapshot.root.replace(/\.git$/, ''),
    readDirectory: async (relative) => {
      const entries = await snapshot.readDirectory(relative);
      if (!entries) throw Object.assign(new Error(`${relative} is not a directory of the snapshot`), { code: 'ENOENT' });
      return entries;
    },
    readText: async (relative, maxBytes) => (await snapshot.readFile(relative, { maxBytes }))?.toString('utf8'),
  };
}
