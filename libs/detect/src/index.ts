export { detectStack, registryFor, type DetectOptions } from './detect-stack';
export * from './llm';
export { buildRegistry, type DetectionMode, type DetectorRegistry, type DetectorSet, type RegistryOptions } from './registry';
export { STATIC_DETECTORS } from './detectors';
export * from './ids';
export type {
  Answer, BuildPlan, BuildSystem, DetectedBy, Framework, FrameworkPlan, Language, Orchestrator, RootFacts, Runtime, RuntimePlan,
  ServiceContext, StackSoFar, Verdict, WorkspaceLayout, WorkspaceMember,
} from './model';
export { readManifestTree, diskReader, PRUNED_DIRECTORIES, MAX_DEPTH, type RepoScan, type RepoReader, type DirectoryEntry } from './scan';
export { SIDE_FOLDERS } from './phases';
export { OVERRIDE_FILE } from './override';
export { UNIVERSAL_BUILD_VERSION, type UniversalBuild } from './assemble';
export { parseToml, type TomlTable, type TomlValue } from './toml';
export { detectRemembering, recordReads, readsTouched, type DetectionStates, type ReadSet, type TreeChanges } from './remembered-detection';
