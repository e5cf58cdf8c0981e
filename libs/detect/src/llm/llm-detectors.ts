import * as path from 'node:path';
import { custom, type BuildSystemId, type FrameworkId, type LanguageId, type OrchestratorId, type RuntimeId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, Language, Orchestrator, Runtime, ServiceContext, Verdict, WorkspaceLayout } from '../model';
import type { DetectionMode, DetectorSet } from '../registry';
import type { StackOracle, ServiceAnswer } from './stack-oracle';

/*
 * The LLM-backed implementations. They are registered after every deterministic one, so in
 * `full` mode they only run when all of those said no — and even then only where asking makes
 * sense, so that a repository of known tech never costs a call:
 *   - language and build system: asked for a service no deterministic detector recognised;
 *   - framework and runtime: only for a service the LLM already answered for (their part of the
 *     same cached answer), or — framework only — for a web-app layout (routes/, islands/) whose
 *     framework nothing recognised (a Deno Fresh app);
 *   - orchestrator: only when the root holds a build-tool file no deterministic orchestrator reads
 *     (Bazel, Pants, Buck…).
 * In `llm-only` mode every one of them asks.
 */

/** Answers below this confidence are rejected: the service stays unknown, with the reason. */
export const LLM_REJECT_BELOW = 0.5;
/** Answers below this (and at least LLM_REJECT_BELOW) are kept with a warning. */
export const LLM_WARN_BELOW = 0.7;

/** Root files of build orchestrators the deterministic registry does not read. */
export const FOREIGN_WORKSPACE_FILES = ['WORKSPACE', 'WORKSPACE.bazel', 'MODULE.bazel', 'pants.toml', 'BUCK', '.buckconfig', '.plzconfig'];
/** Directories that make a service look like a web app whose framework should be named. */
const WEB_APP_DIRECTORIES = ['routes', 'islands', 'app/routes'];

const ALIASES: Record<string, string> = {
  'c#': 'csharp', 'f#': 'fsharp', 'c++': 'cpp', golang: 'go', 'node.js': 'node', nodejs: 'node', 'next.js': 'nextjs',
  'nuxt.js': 'nuxt', 'spring boot': 'spring-boot', 'asp.net core': 'aspnet-core', 'go modules': 'go', 'zig build': 'zig',
};

/** A model's name for something, as an id: lowercase, known aliases mapped, spaces as dashes. */
export function normaliseId(name: string | null | undefined): string | undefined {
  const lowered = name?.trim().toLowerCase();
  if (!lowered || lowered === 'null' || lowered === 'none') return undefined;
  return (ALIASES[lowered] ?? lowered).replace(/\s+/g, '-');
}

interface Judgement {
  rejected: boolean;
  confidence: number;
  warnings: string[];
}

/** The confidence policy, in one place: < 0.5 rejected, 0.5–0.7 kept with a warning, above kept. */
export function judge(confidence: number, what: string): Judgement {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(confidence) ? confidence : 0));
  const shown = clamped.toFixed(2);
  if (clamped < LLM_REJECT_BELOW) {
    return { rejected: true, confidence: clamped, warnings: [`LLM answer rejected: ${what} with confidence ${shown}, below ${LLM_REJECT_BELOW}`] };
  }
  if (clamped < LLM_WARN_BELOW) {
    return { rejected: false, confidence: clamped, warnings: [`low-confidence LLM answer: ${what} with confidence ${shown}; check it`] };
  }
  return { rejected: false, confidence: clamped, warnings: [] };
}

function unknownLanguage(reason: string): Verdict<LanguageId> {
  return { value: 'unknown', confidence: 0, detectedBy: 'llm', warnings: [reason] };
}

function llmVerdict<T>(value: T, judgement: Judgement, reasoning?: string): Verdict<T> {
  return {
    value,
    confidence: judgement.confidence,
    detectedBy: 'llm',
    ...(judgement.warnings.length ? { warnings: judgement.warnings } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
}

/** The service's answer if there is a usable one (asked, not failed, confident enough). */
async function usableAnswer(oracle: StackOracle, service: ServiceContext): Promise<{ answer: ServiceAnswer; judgement: Judgement } | undefined> {
  const asked = await oracle.service(service);
  if ('failure' in asked) return undefined;
  const judgement = judge(asked.answer.confidence, `"${asked.answer.language}"`);
  return judgement.rejected ? undefined : { answer: asked.answer, judgement };
}

export class LlmLanguage implements Language {
  readonly id = custom('llm');
  constructor(private readonly oracle: StackOracle) {}

  async detect(service: ServiceContext): Promise<Verdict<LanguageId>> {
    const asked = await this.oracle.service(service);
    if ('failure' in asked) return unknownLanguage(`LLM fallback unavailable: ${asked.failure}`);
    const { answer } = asked;
    const language = normaliseId(answer.language);
    if (!language || language === 'unknown') return unknownLanguage(`the LLM could not identify this directory: ${answer.reasoning}`);
    const judgement = judge(answer.confidence, `language "${language}"`);
    if (judgement.rejected) return unknownLanguage(judgement.warnings[0]);
    return llmVerdict(custom(language) as LanguageId, judgement, answer.reasoning);
  }
}

export class LlmBuildSystem implements BuildSystem {
  readonly id = custom('llm');
  readonly languages = [];
  constructor(private readonly oracle: StackOracle) {}

  async detect(service: ServiceContext, language: LanguageId): Promise<Verdict<BuildPlan> | undefined> {
    if (language === 'unknown') return undefined;
    const usable = await usableAnswer(this.oracle, service);
    const id = normaliseId(usable?.answer.build_system);
    if (!usable || !id) return undefined;
    const { answer, judgement } = usable;
    return llmVerdict<BuildPlan>(
      { id: custom(id) as BuildSystemId, install: answer.install_commands, build: answer.build_commands, cache: answer.cache },
      judgement,
    );
  }
}

export class LlmFramework implements Framework {
  readonly id = custom('llm');
  readonly languages = [];
  constructor(
    private readonly oracle: StackOracle,
    private readonly alwaysAsk: boolean,
  ) {}

  async detect(service: ServiceContext) {
    if (!this.alwaysAsk && !this.oracle.askedAbout(service) && !looksLikeWebApp(service)) return undefined;
    const usable = await usableAnswer(this.oracle, service);
    const id = normaliseId(usable?.answer.framework);
    if (!usable || !id) return undefined;
    const { answer, judgement } = usable;
    return llmVerdict({ id: custom(id) as FrameworkId, start: answer.start_command ?? undefined, ports: answer.ports }, judgement);
  }
}

export class LlmRuntime implements Runtime {
  readonly id = custom('llm');
  readonly languages = [];
  constructor(
    private readonly oracle: StackOracle,
    private readonly alwaysAsk: boolean,
  ) {}

  async detect(service: ServiceContext) {
    if (!this.alwaysAsk && !this.oracle.askedAbout(service)) return undefined;
    const usable = await usableAnswer(this.oracle, service);
    const name = normaliseId(usable?.answer.runtime);
    if (!usable || !name) return undefined;
    const { answer, judgement } = usable;
    const version = answer.runtime_version
      ? { requested: answer.runtime_version, source: answer.runtime_version_source ?? 'llm' }
      : { source: 'default' };
    return llmVerdict(
      { name: custom(name) as RuntimeId, version, ...(answer.start_command ? { command: answer.start_command } : {}), ports: answer.ports },
      judgement,
    );
  }
}

export class LlmOrchestrator implements Orchestrator {
  readonly id = custom('llm');
  readonly role = 'members' as const;
  constructor(
    private readonly oracle: StackOracle,
    private readonly alwaysAsk: boolean,
  ) {}

  async detect(root: ServiceContext): Promise<Verdict<Omit<WorkspaceLayout, 'root'>> | undefined> {
    if (!this.alwaysAsk && !FOREIGN_WORKSPACE_FILES.some((name) => root.has(name))) return undefined;
    const asked = await this.oracle.workspace(root.scan);
    if ('failure' in asked) return undefined;
    const { answer } = asked;
    const orchestrator = normaliseId(answer.orchestrator);
    const judgement = judge(answer.confidence, `orchestrator "${orchestrator}"`);
    if (!orchestrator || judgement.rejected) return undefined;
    // Only directories that exist: a member the model made up is dropped, not analysed.
    const directories = new Set(root.scan.directories);
    const members = [...new Set(answer.members.map((dir) => dir.replace(/^\.\/|\/+$/g, '')))]
      .filter((dir) => dir && dir !== '.' && directories.has(dir))
      .map((dir) => ({ dir, name: path.posix.basename(dir) }));
    if (members.length === 0) return undefined;
    const template = answer.build_command;
    return llmVerdict(
      {
        orchestrator: custom(orchestrator) as OrchestratorId,
        members,
        ...(template ? { buildCommand: (member: { dir: string }) => template.replaceAll('{member}', member.dir) } : {}),
      },
      judgement,
      answer.reasoning,
    );
  }
}

function looksLikeWebApp(service: ServiceContext): boolean {
  const prefix = service.dir === '.' ? '' : `${service.dir}/`;
  return WEB_APP_DIRECTORIES.some((dir) => service.scan.files.has(`${prefix}${dir}`));
}

/** The five LLM implementations over one oracle, for `buildRegistry({ fallbacks })`. */
export function llmFallbacks(oracle: StackOracle, mode: DetectionMode): DetectorSet {
  const alwaysAsk = mode === 'llm-only';
  return {
    orchestrators: [new LlmOrchestrator(oracle, alwaysAsk)],
    languages: [new LlmLanguage(oracle)],
    buildSystems: [new LlmBuildSystem(oracle)],
    frameworks: [new LlmFramework(oracle, alwaysAsk)],
    runtimes: [new LlmRuntime(oracle, alwaysAsk)],
  };
}
