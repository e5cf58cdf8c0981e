import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { z } from 'zod';
import { isQuarryError } from '@quarry/contracts';
import type { Completion, CompletionRequest, LlmAnswerCache } from '@quarry/llm';
import type { ServiceContext } from '../model';
import type { RepoScan } from '../scan';
import { SERVICE_SYSTEM_PROMPT, WORKSPACE_SYSTEM_PROMPT, serviceQuestion, workspaceQuestion, type ManifestExcerpt } from './prompts';

/*
 * One question per service, not one per detector kind: the five LLM implementations (language,
 * build system, framework, runtime, orchestrator) read their part of the same answer. Answers are
 * keyed by the manifests' names and content, so two services with the same unknown manifest — in
 * one run or across runs, through the Postgres cache — cost one call.
 */

/** Anything that answers a structured question; `LlmClient` from @quarry/llm is one. */
export interface StructuredCompleter {
  readonly model: string;
  complete<T>(request: CompletionRequest<T>): Promise<Completion<T>>;
}

/** Bumped when a prompt or schema changes meaning, so cached answers to the old one are not reused. */
const PROMPT_VERSION = 1;

export const serviceAnswerSchema = z.object({
  language: z.string(),
  build_system: z.string().nullable(),
  framework: z.string().nullable(),
  runtime: z.string().nullable(),
  runtime_version: z.string().nullable(),
  runtime_version_source: z.string().nullable(),
  install_commands: z.array(z.string()),
  build_commands: z.array(z.string()),
  start_command: z.string().nullable(),
  ports: z.array(z.number().int()),
  cache: z.array(z.string()),
  confidence: z.number(),
  reasoning: z.string(),
});
export type ServiceAnswer = z.infer<typeof serviceAnswerSchema>;

export const workspaceAnswerSchema = z.object({
  orchestrator: z.string().nullable(),
  members: z.array(z.string()),
  /** A command with `{member}` where the member's directory goes, e.g. `bazel build //{member}/...`. */
  build_command: z.string().nullable(),
  confidence: z.number(),
  reasoning: z.string(),
});
export type WorkspaceAnswer = z.infer<typeof workspaceAnswerSchema>;

/** Either the model's answer or why there is none; failures are never cached. */
export type Asked<T> = { answer: T; fromCache: boolean } | { failure: string };

export interface OracleOptions {
  cache?: LlmAnswerCache;
  signal?: AbortSignal;
}

/** Files never worth sending: sources say less about the stack than manifests, and lock files are huge. */
const SOURCE_OR_LOCK = /\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|scala|c|h|cc|cpp|hpp|cs|rb|php|ex|exs|zig|odin|nim|swift|dart|hs|md|txt|lock|png|jpg|svg|ico)$|(^|-)lock\.|\.lockb$/i;
const MAX_MANIFESTS = 8;
const MAX_MANIFEST_BYTES = 12_000;
const MAX_LISTED = 120;

export class StackOracle {
  private readonly inFlight = new Map<string, Promise<Asked<unknown>>>();
  private readonly askedDirs = new Set<string>();
  /** Requests actually sent to the model in this run (cache hits excluded). */
  calls = 0;

  constructor(
    private readonly llm: StructuredCompleter,
    private readonly options: OracleOptions = {},
  ) {}

  /** True once this run asked about the service (its language or build came from the LLM). */
  askedAbout(service: ServiceContext): boolean {
    return this.askedDirs.has(service.dir);
  }

  async service(service: ServiceContext): Promise<Asked<ServiceAnswer>> {
    this.askedDirs.add(service.dir);
    const manifests = await manifestExcerpts(service.scan, service.dir);
    const listing = listingOf(service.scan, service.dir);
    const subject = manifests.map((m) => m.name).join(', ') || `files of ${service.dir}`;
    const key = this.key('detect.service', { listing, manifests: manifests.map(({ name, text }) => [name, sha256(text)]) });
    return this.ask(key, subject, 'detect.service', {
      system: SERVICE_SYSTEM_PROMPT,
      user: serviceQuestion(service.dir, listing, manifests),
      schema: serviceAnswerSchema,
      schemaName: 'service_stack',
      signal: this.options.signal,
    });
  }

  async workspace(scan: RepoScan): Promise<Asked<WorkspaceAnswer>> {
    const manifests = await manifestExcerpts(scan, '.');
    const directories = scan.directories.filter((dir) => dir !== '.' && dir.split('/').length <= 3).slice(0, 300);
    const subject = manifests.map((m) => m.name).join(', ') || 'repository root';
    const key = this.key('detect.workspace', { directories, manifests: manifests.map(({ name, text }) => [name, sha256(text)]) });
    return this.ask(key, subject, 'detect.workspace', {
      system: WORKSPACE_SYSTEM_PROMPT,
      user: workspaceQuestion(listingOf(scan, '.'), directories, manifests),
      schema: workspaceAnswerSchema,
      schemaName: 'workspace_layout',
      signal: this.options.signal,
    });
  }

  private key(purpose: string, inputs: unknown): string {
    return sha256(JSON.stringify({ purpose, version: PROMPT_VERSION, model: this.llm.model, inputs }));
  }

  private ask<T>(key: string, subject: string, purpose: string, request: CompletionRequest<T>): Promise<Asked<T>> {
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.askOnce(key, subject, purpose, request);
      this.inFlight.set(key, pending);
    }
    return pending as Promise<Asked<T>>;
  }

  private async askOnce<T>(key: string, subject: string, purpose: string, request: CompletionRequest<T>): Promise<Asked<T>> {
    const cached = await this.options.cache?.get(key);
    const parsedCache = cached === undefined ? undefined : request.schema.safeParse(cached);
    if (parsedCache?.success) return { answer: parsedCache.data, fromCache: true };
    this.calls++;
    try {
      const { value } = await this.llm.complete(request);
      await this.options.cache?.set(key, { purpose, model: this.llm.model, subject, answer: value });
      return { answer: value, fromCache: false };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      // A model that is down or answers nonsense must not sink the detection: the service stays
      // unknown and the result says why. Anything else is a bug and propagates.
      if (isQuarryError(error) && (error.kind === 'llm_unavailable' || error.kind === 'llm_invalid_output')) {
        return { failure: `${error.kind}: ${error.message}` };
      }
      throw error;
    }
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The directory's own files, then its subdirectories with a slash, capped. */
function listingOf(scan: RepoScan, dir: string): string[] {
  const prefix = dir === '.' ? '' : `${dir}/`;
  const subdirectories = scan.directories
    .filter((candidate) => candidate !== dir && candidate.startsWith(prefix) && !candidate.slice(prefix.length).includes('/'))
    .map((candidate) => `${path.posix.basename(candidate)}/`);
  return [...(scan.files.get(dir) ?? []), ...subdirectories].sort().slice(0, MAX_LISTED);
}

/** Small non-source files of the directory: the manifests the model should read. */
async function manifestExcerpts(scan: RepoScan, dir: string): Promise<ManifestExcerpt[]> {
  const names = (scan.files.get(dir) ?? []).filter((name) => !SOURCE_OR_LOCK.test(name)).sort().slice(0, MAX_MANIFESTS);
  const excerpts: ManifestExcerpt[] = [];
  for (const name of names) {
    const text = await scan.read(dir, name);
    if (text === undefined || text.includes('\u0000')) continue;
    excerpts.push({ name, text: text.length > MAX_MANIFEST_BYTES ? `${text.slice(0, MAX_MANIFEST_BYTES)}\n… (truncated)` : text });
  }
  return excerpts;
}
