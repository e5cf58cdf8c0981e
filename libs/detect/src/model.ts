import type { BuildSystemId, FrameworkId, LanguageId, OrchestratorId, RuntimeId } from './ids';
import type { RepoScan } from './scan';

/*
 * The small interfaces every implementation — deterministic now, LLM-backed later — satisfies.
 * A detector answers with a Verdict or `undefined` ("not mine"); the phases take the first
 * answer in registry order, which is why LLM implementations are registered last.
 */

export type DetectedBy = 'static' | 'llm';

/**
 * A detector's answer. One that can say "not mine" from the file names alone answers at once;
 * one that reads a manifest answers with a promise. The phases await only promises: a thousand
 * services asking two dozen detectors would otherwise pay for fifty thousand empty awaits.
 */
export type Answer<T> = Verdict<T> | undefined | Promise<Verdict<T> | undefined>;

export interface Verdict<T> {
  value: T;
  /** 1.0 for a manifest fact; below 1 for a heuristic (e.g. a convention guessed from file names). */
  confidence: number;
  detectedBy: DetectedBy;
  warnings?: string[];
  reasoning?: string;
}

/** One directory under analysis, with the scan and the facts shared by the whole repository. */
export interface ServiceContext {
  readonly scan: RepoScan;
  /** Root-relative POSIX path, '.' for the root. */
  readonly dir: string;
  readonly root: RootFacts;
  /** The workspace this directory is a member of, if any. */
  readonly workspace?: WorkspaceLayout;
  has(name: string): boolean;
  /** File names directly in `dir`. */
  files(): readonly string[];
  read(name: string): Promise<string | undefined>;
  json<T = unknown>(name: string): Promise<T | undefined>;
  toml(name: string): ReturnType<RepoScan['toml']>;
}

/** What phase 3 (RootCache) computes once and every service reuses. */
export interface RootFacts {
  /** Files at the repository root (version files, lock files of a workspace). */
  readonly files: readonly string[];
  /** Caches shared by all members (a workspace's root node_modules, cargo's target/). */
  readonly cache: readonly string[];
  /** Warnings from registry assembly (mode) and the scan, copied to every service. */
  readonly warnings: readonly string[];
}

export interface WorkspaceMember {
  /** Root-relative directory. */
  dir: string;
  /** The member's own name (package name, crate name, module); defaults to its directory name. */
  name: string;
}

export interface WorkspaceLayout {
  /** Directory holding the workspace manifest, '.' for the root. */
  root: string;
  orchestrator?: OrchestratorId;
  /** Package manager that owns installs for all members. */
  manager?: BuildSystemId;
  /** True when one install at the workspace root serves every member (npm/pnpm workspaces, cargo). */
  sharedInstall?: boolean;
  /** The orchestrator's own install (`rush install`), replacing the members' package manager's. */
  install?: string[];
  members: WorkspaceMember[];
  /** Command that builds one member from the workspace root, when the orchestrator knows it. */
  buildCommand?(member: WorkspaceMember): string;
  /** Caches at the workspace root (e.g. `.turbo`, `.nx/cache`). */
  cache?: string[];
}

/**
 * Orchestrators come in two roles: `members` ones (npm/pnpm workspaces, cargo workspace, go.work,
 * maven modules) list the services; `tasks` ones (turborepo, nx, lerna) sit on top and only own
 * the build command. The first answer of each role is used.
 */
export interface Orchestrator {
  readonly id: OrchestratorId;
  readonly role: 'members' | 'tasks';
  detect(root: ServiceContext): Answer<Omit<WorkspaceLayout, 'root'>>;
}

export interface Language {
  readonly id: LanguageId;
  /**
   * True for detectors that read source file names rather than a manifest. Service discovery
   * asks them only when no manifest marks a service near the top of the repository.
   */
  readonly fromSources?: boolean;
  detect(service: ServiceContext): Answer<LanguageId>;
}

export interface BuildPlan {
  id: BuildSystemId;
  /** Dependency installation; in a workspace it runs once at the workspace root. */
  install: string[];
  /** Compile/bundle steps for this service alone (replaced by the orchestrator's command in a workspace). */
  build: string[];
  /** Cache paths: `~/…` in the home directory, anything else relative to the service directory. */
  cache: string[];
  /** The name the manifest gives the project (package name, crate, module). */
  projectName?: string;
  env?: Record<string, string>;
  /** Prefix that runs a command inside the build system's environment (`poetry run `, `uv run `). */
  runPrefix?: string;
  /** The command that runs a package script (`npm run`, `pnpm run`), for JS start scripts. */
  scriptRunner?: string;
  /** The start command the sources imply when no manifest names one (`python main.py`, `./app`). */
  start?: string;
}

export interface BuildSystem {
  readonly id: BuildSystemId;
  /** Languages this build system serves; an empty list (LLM fallbacks) serves any. */
  readonly languages: readonly LanguageId[];
  detect(service: ServiceContext, language: LanguageId): Answer<BuildPlan>;
}

export interface FrameworkPlan {
  id: FrameworkId;
  /** Conventional start command when the manifest names none. */
  start?: string;
  ports?: number[];
  /** Framework caches, relative to the service directory. */
  cache?: string[];
  health?: string;
  /** The bundler beneath it when the project declares one (`vite`, `webpack`), reported beside the framework. */
  bundler?: string;
}

export interface Framework {
  readonly id: FrameworkId;
  readonly languages: readonly LanguageId[];
  detect(service: ServiceContext, stack: StackSoFar): Answer<FrameworkPlan>;
}

export interface RuntimePlan {
  name: RuntimeId;
  version: { requested?: string; source: string };
  command?: string;
  ports: number[];
  base_image?: string;
  health?: string;
}

export interface Runtime {
  readonly id: RuntimeId;
  readonly languages: readonly LanguageId[];
  detect(service: ServiceContext, stack: StackSoFar): Answer<RuntimePlan>;
}

/** What ServiceAnalysis has settled before it asks the next kind of detector. */
export interface StackSoFar {
  language: LanguageId;
  build: BuildPlan;
  framework?: FrameworkPlan;
}

export type DetectionMode = 'full' | 'static' | 'llm-only';

/** Every implementation the phases iterate, in the order they are asked. */
export interface DetectorRegistry {
  readonly mode: DetectionMode;
  readonly orchestrators: readonly Orchestrator[];
  readonly languages: readonly Language[];
  readonly buildSystems: readonly BuildSystem[];
  readonly frameworks: readonly Framework[];
  readonly runtimes: readonly Runtime[];
  /**
   * Languages asked while looking for service folders (every folder near the top). Only the
   * deterministic ones: fallbacks are asked once per service that nothing else recognised, never
   * once per folder.
   */
  readonly discoveryLanguages: readonly Language[];
  /** Said once per result (e.g. "full mode without an LLM ran static only"). */
  readonly warnings: readonly string[];
}

export type DetectorSet = Omit<DetectorRegistry, 'mode' | 'warnings' | 'discoveryLanguages'>;

/** What the phases found for one service, before it is assembled into a UniversalBuild. */
export interface ServiceAnalysis {
  service: ServiceContext;
  name: string;
  language: Verdict<LanguageId>;
  build: Verdict<BuildPlan>;
  framework?: Verdict<FrameworkPlan>;
  runtime: Verdict<RuntimePlan>;
}
