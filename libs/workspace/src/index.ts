export { resolveWorkspaceRoot, isInside } from './workspace-root';
export { walkFiles, type WalkOptions, type WalkResult, type WalkSkipped } from './file-walker';
export { languageOf, KNOWN_LANGUAGES, OTHER_LANGUAGE } from './languages';
export { measureFile, type FileMeasure } from './file-measure';
export { type ReadStrategy } from './adaptive-reader';
export { scanRepository, MAX_LARGEST_FILES, type ScanOptions } from './scan-repository';
