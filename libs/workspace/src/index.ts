export { resolveWorkspaceRoot, isInside } from './workspace-root';
export { BINARY_SNIFF_BYTES, isBinaryContent } from './binary';
export { walkFiles, partialWalkOver, type PartialWalk, type WalkOptions, type WalkResult, type WalkSkipped, type WalkTree, type WalkEntry } from './file-walker';
export { languageOf, KNOWN_LANGUAGES, OTHER_LANGUAGE } from './languages';
export { measureFile, measureContent, type ExpectedStat, type FileMeasure } from './file-measure';
export { measureFiles, type MeasureFilesOptions } from './adaptive-reader';
export { type ReadStrategy } from './adaptive-reader';
export { ScanTotals, MAX_LARGEST_FILES, type ScanSource } from './scan-totals';
export { resolveInsideRoot, type ResolveOptions, type ResolvedPath } from './safe-path';
export {
  readWorkspaceFile,
  countLines,
  DEFAULT_MAX_FILE_BYTES,
  type LineRange,
  type ReadFileOptions,
  type WorkspaceFile,
} from './read-workspace-file';
export { FileCache, DEFAULT_FILE_CACHE_BYTES, fileVersionOf, type CachedFile, type FileVersion, type FileCacheStats } from './file-cache';
export { secretPathReason, redactSecrets, findSecrets, applySecretRedactions, type Redaction, type SecretFinding } from './secrets';
export { suggestPaths, formatSuggestion, DEFAULT_SUGGESTION_LIMIT, type SuggestOptions } from './path-suggestions';
export {
  listDirectory,
  DEFAULT_MAX_ENTRIES,
  DEFAULT_DEPTH,
  DEFAULT_RECURSIVE_DEPTH,
  type ListOptions,
  type DirectoryEntry,
  type DirectoryListing,
} from './list-directory';
export { findFiles, DEFAULT_MAX_RESULTS, type FindOptions, type FoundFiles } from './find-files';
export { compileGlob, isGlob, MAX_GLOB_LENGTH, type PathMatcher, type GlobOptions } from './glob';
