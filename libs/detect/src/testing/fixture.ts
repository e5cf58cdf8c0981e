import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { detectResultSchema } from '@quarry/contracts';
import type { UniversalBuild } from '../assemble';
import { detectStack, type DetectOptions } from '../detect-stack';

/** Files to create, by POSIX path relative to the tree's root; objects are written as JSON. */
export type Fixture = Record<string, string | object>;

const created: string[] = [];

export async function writeFixture(files: Fixture): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'quarry-detect-'));
  created.push(root);
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, relative);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

/** Runs static detection on a fresh tree and checks the result against the wire schema. */
export async function detectFixture(files: Fixture, options: DetectOptions = { mode: 'static' }): Promise<UniversalBuild[]> {
  const builds = await detectStack(await writeFixture(files), options);
  detectResultSchema.parse(builds);
  return builds;
}

/** The single service of a one-service fixture. */
export async function detectOne(files: Fixture, options?: DetectOptions): Promise<UniversalBuild> {
  const builds = await detectFixture(files, options);
  if (builds.length !== 1) throw new Error(`expected one service, got ${builds.map((b) => b.metadata.path).join(', ')}`);
  return builds[0];
}

export async function removeFixtures(): Promise<void> {
  await Promise.all(created.splice(0).map((root) => rm(root, { recursive: true, force: true })));
}
