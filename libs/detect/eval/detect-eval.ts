import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { UniversalBuild } from '../src/assemble';
import { detectStack } from '../src/detect-stack';

/*
 * The detection eval: labelled examples from other projects' public fixtures (corpus.json, built
 * by build-corpus.mjs from examples.yaml), each written to a temporary tree and detected
 * statically. A third of the examples — chosen by the hash of their id, before any result was
 * seen — is held out: the detectors are never tuned against it, so its figures are the honest ones.
 */

export interface Expectation {
  /** The service to score when the example has several; default the root or the only one. */
  path?: string;
  language: string;
  build_system: string;
  framework: string | null;
  /** The start command the example implies (scored where labelled). */
  start?: string;
  /** Every service directory (scored where labelled). */
  services?: string[];
}

export interface Example {
  id: string;
  source: { repo: string; path: string; commit: string };
  expect: Expectation;
  files: Record<string, string>;
}

export const FIELDS = ['language', 'build_system', 'framework', 'start', 'services'] as const;
export type Field = (typeof FIELDS)[number];

/** What the held-out part must reach; the unit test fails below them. */
export const HELD_OUT_TARGETS: Partial<Record<Field, number>> = { language: 0.97, build_system: 0.95, framework: 0.9 };

export const EXAMPLES: readonly Example[] = (JSON.parse(readFileSync(corpusPath(), 'utf8')) as { examples: Example[] }).examples;

/** corpus.json beside this file in the sources; from dist/, the same file in the source tree. */
function corpusPath(): string {
  const beside = path.join(__dirname, 'corpus.json');
  if (existsSync(beside)) return beside;
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'libs', 'detect', 'eval', 'corpus.json');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('libs/detect/eval/corpus.json not found');
}

/** One example in three is held out: the first byte of sha256(id) modulo 3 is 0. Fixed before any result was seen. */
export function isHeldOut(id: string): boolean {
  return createHash('sha256').update(id).digest()[0] % 3 === 0;
}

export interface Miss {
  id: string;
  field: Field;
  expected: string;
  got: string;
}

export interface SplitScore {
  examples: number;
  /** Per field: how many were scored and how many were right. */
  fields: Record<Field, { scored: number; correct: number; accuracy: number }>;
  misses: Miss[];
}

export interface EvalReport {
  development: SplitScore;
  heldOut: SplitScore;
}

export async function evaluateCorpus(examples: readonly Example[] = EXAMPLES): Promise<EvalReport> {
  const development = emptyScore();
  const heldOut = emptyScore();
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'quarry-detect-eval-'));
  try {
    for (const [index, example] of examples.entries()) {
      const root = path.join(scratch, String(index));
      await writeTree(root, example.files);
      const services = await detectStack(root, { mode: 'static' });
      score(isHeldOut(example.id) ? heldOut : development, example, services);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return { development: finish(development), heldOut: finish(heldOut) };
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  await mkdir(root, { recursive: true });
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/** The service the label speaks of: the labelled path, else the root, else the only service. */
export function serviceUnderTest(expect: Expectation, services: UniversalBuild[]): UniversalBuild | undefined {
  const wanted = expect.path ?? '.';
  return services.find((service) => service.metadata.path === wanted) ?? (expect.path ? undefined : services.length === 1 ? services[0] : undefined);
}

function score(split: SplitScore, example: Example, services: UniversalBuild[]): void {
  split.examples++;
  const { expect } = example;
  const service = serviceUnderTest(expect, services);
  const paths = services.map((found) => found.metadata.path).sort();
  const got: Record<Field, string | undefined> = {
    language: service?.metadata.language,
    build_system: service?.metadata.build_system,
    framework: service ? (service.metadata.framework ?? '~') : undefined,
    start: service?.runtime.command,
    services: paths.join(' '),
  };
  const wanted: Record<Field, string | undefined> = {
    language: expect.language,
    build_system: expect.build_system,
    framework: expect.framework ?? '~',
    start: expect.start,
    services: expect.services ? [...expect.services].sort().join(' ') : undefined,
  };
  for (const field of FIELDS) {
    if (wanted[field] === undefined) continue;
    const entry = split.fields[field];
    entry.scored++;
    if (got[field] === wanted[field]) entry.correct++;
    else split.misses.push({ id: example.id, field, expected: wanted[field]!, got: got[field] ?? (service ? '(none)' : `(no service at ${expect.path ?? '.'}; found ${paths.join(', ')})`) });
  }
}

function emptyScore(): SplitScore {
  const fields = Object.fromEntries(FIELDS.map((field) => [field, { scored: 0, correct: 0, accuracy: 0 }])) as SplitScore['fields'];
  return { examples: 0, fields, misses: [] };
}

function finish(split: SplitScore): SplitScore {
  for (const entry of Object.values(split.fields)) entry.accuracy = entry.scored ? entry.correct / entry.scored : 1;
  return split;
}
