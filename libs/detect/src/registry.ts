import type { DetectionMode, DetectorRegistry, DetectorSet } from './model';

export type { DetectionMode, DetectorRegistry, DetectorSet };
import { STATIC_DETECTORS } from './detectors';

export interface RegistryOptions {
  mode?: DetectionMode;
  /**
   * The extension point for LLM-backed implementations (LlmLanguage, LlmBuildSystem, …). They are
   * appended after every deterministic one, so they are only asked when all of those said no.
   * Absent → no LLM is configured.
   */
  fallbacks?: Partial<DetectorSet>;
  /** Replaces the built-in deterministic set (tests, or a caller that wants fewer detectors). */
  deterministic?: DetectorSet;
}

const EMPTY: DetectorSet = { orchestrators: [], languages: [], buildSystems: [], frameworks: [], runtimes: [] };

export function buildRegistry(options: RegistryOptions = {}): DetectorRegistry {
  const mode = options.mode ?? 'full';
  const deterministic = options.deterministic ?? STATIC_DETECTORS;
  const fallbacks = options.fallbacks && hasAny(options.fallbacks) ? { ...EMPTY, ...options.fallbacks } : undefined;
  const discoveryLanguages = mode === 'llm-only' ? [] : deterministic.languages;
  if (mode === 'static') return { mode, ...deterministic, discoveryLanguages, warnings: [] };
  if (!fallbacks) {
    const warning =
      mode === 'llm-only'
        ? 'mode llm-only requested but no LLM is configured: nothing but the fallback "unknown" can be detected'
        : 'mode full requested but no LLM is configured: ran static detection only';
    return { mode, ...(mode === 'llm-only' ? EMPTY : deterministic), discoveryLanguages, warnings: [warning] };
  }
  if (mode === 'llm-only') return { mode, ...fallbacks, discoveryLanguages, warnings: [] };
  return { mode, ...concat(deterministic, fallbacks), discoveryLanguages, warnings: [] };
}

function concat(first: DetectorSet, last: DetectorSet): DetectorSet {
  return {
    orchestrators: [...first.orchestrators, ...last.orchestrators],
    languages: [...first.languages, ...last.languages],
    buildSystems: [...first.buildSystems, ...last.buildSystems],
    frameworks: [...first.frameworks, ...last.frameworks],
    runtimes: [...first.runtimes, ...last.runtimes],
  };
}

function hasAny(set: Partial<DetectorSet>): boolean {
  return Object.values(set).some((list) => (list?.length ?? 0) > 0);
}
