/**
 * @quarry/snapshot — the one way job code reads a repository: a directory on the worker or a
 * commit of a git URL fetched into the worker's own cache, through the SSRF-guarded proxy.
 */
export { type Snapshot, type SnapshotEntry, type SnapshotChanges, type BlobPath, type ResolvedSource, shortCommit, describeSource } from './snapshot';
export { LocalSnapshot, blobId, isCheckoutTop } from './local-snapshot';
export { GitSnapshot } from './git-snapshot';
export {
  GitRepositoryCache,
  CachedRepository,
  DEFAULT_GIT_CACHE_BYTES,
  DEFAULT_GIT_MAX_BYTES,
  DEFAULT_GIT_MAX_FILES,
  DEFAULT_GIT_TIMEOUT_MS,
  type GitCacheOptions,
  type GitCacheStats,
  type GitCredential,
  type ResolvedGitSource,
} from './git-repository-cache';
export { SnapshotProvider, snapshotProviderFor, sourceOf, isGitSource, type SourceInput, type SnapshotProviderOptions, type SnapshotSettings } from './snapshot-provider';
export { checkGitUrl } from './git-url';
export { parseLsRemote, resolveRef, type RemoteRefs } from './remote-refs';
export { GuardedGitProxy, ProxySession } from './guarded-git-proxy';
export { openPinned, repoReaderOf, type PinnedSnapshot } from './pinned-snapshot';
export { WorkingTree, WorkingTrees, type WorkingTreeChange, type WorkingTreeState, type WorkingTreeOptions } from './working-tree';
export { checkoutMayConvert, readCheckoutBlob } from './checkout-blobs';
export type { GitEnvironment } from './git-process';
