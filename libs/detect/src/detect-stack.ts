import { serviceContext } from './context';
import { assemble, type UniversalBuild } from './assemble';
import { applyOverride, readOverride } from './override';
import type { WorkspaceLayout } from './model';
import { analyseService, findServiceDirectories, findServicesBesideWorkspace, findWorkspace, rootFacts, yieldToEventLoop } from './phases';
import type { LlmAnswerCache } from '@quarry/llm';
import { llmFallbacks } from './llm/llm-detectors';
import { StackOracle, type StructuredCompleter } from './llm/stack-oracle';
import { buildRegistry, type DetectionMode, type DetectorRegistry } from './registry';
import { readManifestTree, type RepoReader, type RepoScan } from './scan';

export interface DetectOptions {
  /** Default 'full'; without LLM fallbacks registered, full runs static and says so in the warnings. */
  mode?: DetectionMode;
  signal?: AbortSignal;
  /** A prepared registry; overrides `mode` and `llm`. */
  registry?: DetectorRegistry;
  /** The model behind the LLM fallbacks (an LlmClient). Absent → `full` runs static and says so. */
  llm?: StructuredCompleter;
  /** Where LLM answers are kept between runs (Postgres in the worker); absent → this run only. */
  llmCache?: LlmAnswerCache;
}

/** The registry for a run: deterministic detectors, then — unless the mode is static — the LLM fallbacks. */
export function registryFor(options: DetectOptions): DetectorRegistry {
  if (options.registry) return options.registry;
  const mode = options.mode ?? 'full';
  if (!options.llm || mode === 'static') return buildRegistry({ mode });
  const oracle = new StackOracle(options.llm, { cache: options.llmCache, signal: options.signal });
  return buildRegistry({ mode, fallbacks: llmFallbacks(oracle, mode) });
}

/**
 * One UniversalBuild per service under `root`, sorted by path. `root` must already be a checked,
 * real path (resolveWorkspaceRoot from @quarry/workspace); this function does not police it.
 *
 * A repository where nothing is recognised yields one service at '.' with language "unknown",
 * confidence 0 and the reason in its warnings, so callers always learn why nothing was found.
 */
export async function detectStack(root: string | RepoReader, options: DetectOptions = {}): Promise<UniversalBuild[]> {
  const registry = registryFor(options);
  const scan = await readManifestTree(root, options.signal);                          // phase 1: Scan
  const layout = await findWorkspace(scan, registry);                               // phase 2: WorkspaceStructure
  const services = await serviceDirectories(scan, registry, layout);
  const facts = rootFacts(scan, layout, registry);                                  // phase 3: RootCache
  const standalone = { ...facts, cache: [] };
  const override = await readOverride(scan);
  const builds = await mapConcurrently(services, ANALYSIS_CONCURRENCY, async ({ dir, member }) => {
    options.signal?.throwIfAborted();
    const context = member ? serviceContext(scan, dir, facts, layout) : serviceContext(scan, dir, standalone);
    const analysis = await analyseService(context, registry);                      // phase 4: ServiceAnalysis
    return applyOverride(assemble(analysis), override);                              // phase 5: Assemble
  });
  return builds.sort((a, b) => comparePaths(a.metadata.path, b.metadata.path));
}

/** Services analysed at once: their manifest reads overlap instead of queueing one by one. */
const ANALYSIS_CONCURRENCY = 32;

async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      // Analyses answer from cached reads: step aside now and then so timers (lock renewal) run.
      if (index % 64 === 63) await yieldToEventLoop();
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function serviceDirectories(scan: RepoScan, registry: DetectorRegistry, layout: WorkspaceLayout | undefined) {
  if (!layout) {
    const found = await findServiceDirectories(scan, registry);
    return (found.length > 0 ? found : ['.']).map((dir) => ({ dir, member: false }));
  }
  const beside = await findServicesBesideWorkspace(scan, registry, layout);
  return [...layout.members.map((member) => ({ dir: member.dir, member: true })), ...beside.map((dir) => ({ dir, member: false }))];
}

function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '.') return -1;
  if (b === '.') return 1;
  return a < b ? -1 : 1;
}
