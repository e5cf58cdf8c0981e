import type { IndexedTree } from '@quarry/code-index';
import type { SearchFunction } from '@quarry/search';
import type { IndexedCommits } from '@quarry/search-index';
import type { Snapshot } from '@quarry/snapshot';
import type { CodeIndexReader } from './code-index-reader';
import type { JobRun } from './job-run';
import type { CheckoutSearch } from './ports';

/** What the file, listing and search tools of mentions and interpret read of a snapshot. */
export interface WorkspaceView {
  /** A directory of the snapshot's files: the directory itself, or a checkout of the commit in the cache. */
  root: string;
  /** Searches `root` through a trigram index (the commit's, when a scan built one; a watched checkout's HEAD's, the edits beside it); absent: every file is read. */
  search?: SearchFunction;
  /** The snapshot's indexed tree, for @symbol: (built on first use). */
  symbolIndex: () => Promise<IndexedTree>;
}

export async function workspaceOf(snapshot: Snapshot, ports: { codeIndex?: CodeIndexReader; indexedCommits?: IndexedCommits; checkoutSearch?: CheckoutSearch }, run: JobRun): Promise<WorkspaceView> {
  const codeIndex = ports.codeIndex;
  const symbolIndex = () => {
    if (!codeIndex) throw new Error('this kind reads no code index');
    return codeIndex.tree(snapshot, { signal: run.signal });
  };
  if (snapshot.kind === 'directory' && ports.checkoutSearch) {
    // A checkout this process watches: its HEAD's index with the edits beside it, once built.
    const root = await snapshot.workingTree(run.signal);
    return { root, search: await ports.checkoutSearch(root), symbolIndex };
  }
  // In-process there is no search index to read: nothing of it is loaded.
  if (!ports.indexedCommits) return { root: await snapshot.workingTree(run.signal), symbolIndex };
  const { snapshotSearch } = await import('@quarry/search-index');
  const { root, search } = await snapshotSearch(snapshot, ports.indexedCommits, run.signal);
  return { root, search, symbolIndex };
}
