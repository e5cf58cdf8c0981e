import type { SnapshotProviderOptions } from '@quarry/snapshot';
import type { BlobFact } from './blob-facts';
import type { ThreadDerivationSpec } from './blob-derivation';
import type { ShardFile } from './plan';
import type { ShardOutcome } from './run-shard';

/** What a shard thread opens: the scan's pinned commit, or its directory. */
export type ThreadShardSource = { git: string; ref: string; commit: string } | { path: string };

/**
 * A thread's own snapshot provider is built from these (the process's settings: data directory,
 * allowed addresses, git limits). Test hooks (a pretend resolver or dialer) are functions and do not
 * cross into a thread: a thread always uses the real network rules.
 */
export type ThreadProviderOptions = { workspaceRoots: readonly string[]; git: Omit<SnapshotProviderOptions['git'], 'resolver' | 'dialer'> };

export type ToThread =
  | { type: 'shard'; id: number; files: ShardFile[]; source: ThreadShardSource; provider: ThreadProviderOptions; worker: string; derive?: ThreadDerivationSpec }
  | { type: 'cancel'; id: number };

export type FromThread =
  /** The thread's first message: its modules are loaded. */
  | { type: 'ready' }
  | { type: 'progress'; id: number; done: number }
  /** Facts to store. The thread does not wait for the write: the executor does, before the shard counts as done. */
  | { type: 'record'; id: number; facts: BlobFact[] }
  /** Derived rows (ThreadDerivationSpec) to store, like facts: the shard is done once they are. */
  | { type: 'derived'; id: number; rows: unknown }
  | { type: 'done'; id: number; outcome: ShardOutcome }
  | { type: 'failed'; id: number; error: { kind?: string; message: string; suggestion?: string; permanent?: boolean } };

/** What a thread says about one shard (every message but `ready`). */
export type ShardMessage = Exclude<FromThread, { type: 'ready' }>;
