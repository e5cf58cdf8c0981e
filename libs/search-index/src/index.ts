/**
 * @quarry/search-index — a trigram index of blobs, built by the scan's shards, that answers
 * `quarry search`, `@search`/`@grep` and `search_text` on an indexed commit: postings choose the
 * candidate files, the cold search's matcher verifies them, so results equal the cold search's.
 */
export { SegmentBuilder, SegmentSeries, MAX_SEGMENT_PAIRS, SegmentReader, DocKind, MAX_INDEXED_BLOB_BYTES, type BuiltSegment } from './segment';
export { trigramsOf, TrigramCollector } from './trigrams';
export { planQuery } from './query-plan';
export { IndexedCommit, type CommitFile, type Candidates } from './indexed-commit';
export { searchIndexed, type MaybeIndexedResult, type IndexOverlay } from './indexed-search';
export { MemorySearchIndexStore, type SearchIndexStore, type CommitManifest } from './store';
export { SegmentCache } from './segment-cache';
export { SegmentThread, inThreadSegments, type SegmentSink, type SegmentSinks } from './segment-builder-thread';
export { IndexBuild, indexFiles, indexCommit, indexCommitChanges, ScanIndexing, type ScannedChanges, type IndexStates, listCommit, type CommitIndexState, type CommitIndexChanges, IndexedCommits, shardIndexer, snapshotSearch, answerSourceSearch, type IndexFile, type IndexBuildStats, type IndexBuildOptions, SEGMENT_TEXT_BYTES } from './build';
export { FileSearchIndexStore } from './file-store';
export { CheckoutIndexes, indexCheckout, type CheckoutIndexStatus, type CheckoutIndexProgress, type CheckoutBuildResult, type CheckoutIndexesOptions } from './checkout-index';
