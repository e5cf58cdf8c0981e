import type { LanguageId } from './ids';
import { directoryName, NO_ROOT_FACTS, serviceContext } from './context';
import type { Answer, BuildPlan, FrameworkPlan, Language, RootFacts, RuntimePlan, ServiceAnalysis, ServiceContext, Verdict, WorkspaceLayout } from './model';
import type { DetectorRegistry } from './registry';
import { memberAt } from './assemble';
import type { RepoScan } from './scan';

/*
 * Phases 2–4. They only iterate the registry: which manifests mean what is the detectors'
 * business, so adding a language never touches this file, and neither will the LLM fallbacks.
 */

/** Folders that hold side projects (docs sites, examples, edge functions); never the primary service. */
export const SIDE_FOLDERS = new Set([
  'docs', 'doc', 'documentation', 'website', 'examples', 'example', 'samples', 'e2e', 'test', 'tests',
  'fixtures', 'supabase', 'scripts', 'benchmarks', 'bench', '.github', 'tools',
]);
/** How deep service discovery looks when the root is neither a service nor a workspace. */
const DISCOVERY_DEPTH = 2;

// ── Phase 2: WorkspaceStructure ────────────────────────────────────────────────────────────────

export async function findWorkspace(scan: RepoScan, registry: DetectorRegistry): Promise<WorkspaceLayout | undefined> {
  const root = serviceContext(scan, '.', NO_ROOT_FACTS);
  const members = await firstVerdict(registry.orchestrators.filter((o) => o.role === 'members'), (o) => o.detect(root));
  if (!members || members.value.members.length === 0) return undefined;
  const tasks = await firstVerdict(registry.orchestrators.filter((o) => o.role === 'tasks'), (o) => o.detect(root));
  const layout: WorkspaceLayout = { root: '.', ...members.value };
  if (!tasks) return layout;
  return {
    ...layout,
    orchestrator: tasks.value.orchestrator ?? layout.orchestrator,
    buildCommand: tasks.value.buildCommand ?? layout.buildCommand,
    cache: [...(layout.cache ?? []), ...(tasks.value.cache ?? [])],
  };
}

/**
 * Services of a repository that is not a workspace: the root if it is one, else the shallowest
 * service folders. Manifests first; only when no manifest marks a service anywhere near the top
 * are source files asked (a lone `main.py`), so a `scripts/deploy.sh` never competes with a real
 * service.
 */
export async function findServiceDirectories(scan: RepoScan, registry: DetectorRegistry): Promise<string[]> {
  const manifests = registry.discoveryLanguages.filter((language) => !language.fromSources);
  const found = await discover(scan, manifests);
  return found.length > 0 || manifests.length === registry.discoveryLanguages.length ? found : discover(scan, registry.discoveryLanguages);
}

async function discover(scan: RepoScan, languages: readonly Language[]): Promise<string[]> {
  if (await isService(scan, '.', languages)) return ['.'];
  const candidates: string[] = [];
  let asked = 0;
  for (const dir of shallowDirectories(scan)) {
    if (++asked % YIELD_EVERY === 0) await yieldToEventLoop();
    if (candidates.some((found) => dir.startsWith(`${found}/`))) continue;
    if (await isService(scan, dir, languages)) candidates.push(dir);
  }
  const primary = candidates.filter((dir) => !isSideFolder(dir));
  return primary.length > 0 ? primary : candidates;
}

/**
 * Services of another ecosystem beside a workspace (a Go API next to a pnpm monorepo's apps).
 * Folders of the workspace's own ecosystem that it does not list were left out on purpose
 * (`!packages/legacy`) and stay out.
 */
export async function findServicesBesideWorkspace(scan: RepoScan, registry: DetectorRegistry, layout: WorkspaceLayout): Promise<string[]> {
  const ownLanguages = new Set(registry.buildSystems.filter((system) => system.id === layout.manager).flatMap((system) => system.languages));
  const memberDirs = new Set(layout.members.map((member) => member.dir));
  // A folder is covered when it is a member, lies inside one, or holds one (`apps` holds `apps/web`).
  const holders = new Set([...memberDirs].flatMap(ancestorsOf));
  const covered = (dir: string) => memberDirs.has('.') || holders.has(dir) || [dir, ...ancestorsOf(dir)].some((path) => memberDirs.has(path));
  const extras: string[] = [];
  let asked = 0;
  for (const dir of shallowDirectories(scan)) {
    if (++asked % YIELD_EVERY === 0) await yieldToEventLoop();
    if (isSideFolder(dir) || covered(dir)) continue;
    if (extras.some((found) => dir.startsWith(`${found}/`))) continue;
    const language = await discoveredLanguage(scan, dir, registry.discoveryLanguages.filter((candidate) => !candidate.fromSources));
    if (language !== undefined && !ownLanguages.has(language)) extras.push(dir);
  }
  return extras;
}

/**
 * Detectors answer from cached reads, so asking thousands of folders is one long chain of
 * microtasks that never lets timers run — in a worker, BullMQ's lock renewal among them. Every
 * YIELD_EVERY folders the chain steps aside for a macrotask turn.
 */
const YIELD_EVERY = 256;
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Directories at depth 1..DISCOVERY_DEPTH, computed once per scan (a 20,000-directory tree is walked twice by discovery). */
const shallow = new WeakMap<RepoScan, string[]>();
function shallowDirectories(scan: RepoScan): string[] {
  let dirs = shallow.get(scan);
  if (!dirs) {
    dirs = scan.directories.filter((dir) => dir !== '.' && dir.split('/').length <= DISCOVERY_DEPTH);
    shallow.set(scan, dirs);
  }
  return dirs;
}

function ancestorsOf(dir: string): string[] {
  const parts = dir.split('/');
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('/'));
}

async function isService(scan: RepoScan, dir: string, languages: readonly Language[]): Promise<boolean> {
  return (await discoveredLanguage(scan, dir, languages)) !== undefined;
}

async function discoveredLanguage(scan: RepoScan, dir: string, languages: readonly Language[]): Promise<LanguageId | undefined> {
  const service = serviceContext(scan, dir, NO_ROOT_FACTS);
  return (await firstVerdict(languages, (language) => language.detect(service)))?.value;
}

function isSideFolder(dir: string): boolean {
  return dir.split('/').some((segment) => SIDE_FOLDERS.has(segment));
}

// ── Phase 3: RootCache ─────────────────────────────────────────────────────────────────────────

export function rootFacts(scan: RepoScan, layout: WorkspaceLayout | undefined, registry: DetectorRegistry): RootFacts {
  const warnings = [...registry.warnings];
  if (scan.truncated) warnings.push('repository too large: the manifest scan stopped early');
  return { files: scan.files.get('.') ?? [], cache: layout?.cache ?? [], warnings };
}

// ── Phase 4: ServiceAnalysis ───────────────────────────────────────────────────────────────────

export type { ServiceAnalysis };

export async function analyseService(service: ServiceContext, registry: DetectorRegistry): Promise<ServiceAnalysis> {
  const language = (await firstVerdict(registry.languages, (l) => l.detect(service))) ?? unknownLanguage();
  const id = language.value;
  const build =
    (await firstVerdict(registry.buildSystems.filter(serves(id)), (b) => b.detect(service, id))) ?? unknownBuild();
  const stack = { language: id, build: build.value };
  const framework = await firstVerdict(registry.frameworks.filter(serves(id)), (f) => f.detect(service, stack));
  const withFramework = { ...stack, framework: framework?.value };
  const runtime = (await firstVerdict(registry.runtimes.filter(serves(id)), (r) => r.detect(service, withFramework))) ?? unknownRuntime();
  const name = build.value.projectName ?? memberName(service) ?? directoryName(service);
  return { service, name, language, build, framework, runtime };
}

function serves(language: LanguageId) {
  return (detector: { languages: readonly LanguageId[] }) => detector.languages.length === 0 || detector.languages.includes(language);
}

function memberName(service: ServiceContext): string | undefined {
  return service.workspace && memberAt(service.workspace, service.dir)?.name;
}

/** Asks each detector in order and returns the first answer: registry order is priority order. */
export async function firstVerdict<D, T>(detectors: readonly D[], ask: (detector: D) => Answer<T>): Promise<Verdict<T> | undefined> {
  for (const detector of detectors) {
    const answer = ask(detector);
    const verdict = answer instanceof Promise ? await answer : answer;
    if (verdict) return verdict;
  }
  return undefined;
}

const UNKNOWN_REASON = 'no detector recognised this directory (no known manifest)';

function unknownLanguage(): Verdict<LanguageId> {
  return { value: 'unknown', confidence: 0, detectedBy: 'static', warnings: [UNKNOWN_REASON] };
}

function unknownBuild(): Verdict<BuildPlan> {
  return { value: { id: 'unknown', install: [], build: [], cache: [] }, confidence: 0, detectedBy: 'static' };
}

function unknownRuntime(): Verdict<RuntimePlan> {
  return { value: { name: 'unknown', version: { source: 'unknown' }, ports: [] }, confidence: 0, detectedBy: 'static' };
}
