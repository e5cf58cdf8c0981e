/**
 * Stack detection benchmark (issue 5): in-process `detectStack` (static mode, no LLM) on
 *   - a single-service Next.js app (target: median < 5 ms),
 *   - a generated pnpm + turbo monorepo with 1,000 packages (target: median < 500 ms),
 * each next to a plain gitignore-aware walk of the same tree (`walkFiles`), measured in the same
 * run (target: detection ≤ 2× the walk).
 *
 *   node dist/bench/detect.bench.js        (after the tsc build), or `npm run bench -- --only e`
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { detectStack } from '../libs/detect/src';
import { walkFiles } from '../libs/workspace/src';
import { latencyStats, ms, printTable } from './support';

const TREE_VERSION = 1;

export interface DetectBenchRow {
  tree: string;
  files: number;
  services: number;
  detectMedianMs: number;
  walkMedianMs: number;
  ratio: number;
}

export interface DetectBenchReport {
  single: DetectBenchRow;
  monorepo: DetectBenchRow;
}

export async function runDetectBench(options: { quick?: boolean } = {}): Promise<DetectBenchReport> {
  const runs = options.quick ? 15 : 60;
  const single = await measure('single-service Next.js app', ensureTree('single', writeSingleService), runs * 5);
  const monorepo = await measure('pnpm + turbo monorepo, 1,000 packages', ensureTree('monorepo-1000', writeMonorepo), runs);
  printTable(
    'stack detection (static, in-process) vs a gitignore-aware walk of the same tree',
    ['tree', 'files', 'services', 'detect median', 'walk median', 'detect / walk'],
    [single, monorepo].map((row) => [row.tree, String(row.files), String(row.services), ms(row.detectMedianMs, 2), ms(row.walkMedianMs, 2), `${row.ratio.toFixed(2)}x`]),
    [`medians of ${runs * 5} and ${runs} warm runs; the walk is walkFiles (.gitignore at every level), the peer every scan pays`],
  );
  return { single, monorepo };
}

async function measure(name: string, root: string, runs: number): Promise<DetectBenchRow> {
  const services = (await detectStack(root, { mode: 'static' })).length;
  const files = (await walkFiles(root)).files.length;
  const detect: number[] = [];
  const walk: number[] = [];
  // Interleaved, so both see the same machine state (page cache, CPU frequency, other load).
  for (let run = 0; run < runs; run++) {
    detect.push(await timed(() => detectStack(root, { mode: 'static' })));
    walk.push(await timed(() => walkFiles(root)));
  }
  const detectMedianMs = latencyStats(detect).p50;
  const walkMedianMs = latencyStats(walk).p50;
  return { tree: name, files, services, detectMedianMs, walkMedianMs, ratio: detectMedianMs / walkMedianMs };
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

function ensureTree(name: string, write: (root: string) => void): string {
  const root = path.join(os.tmpdir(), `quarry-bench-detect-${name}`);
  const marker = path.join(root, '.quarry-bench-version');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === String(TREE_VERSION)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  write(root);
  fs.writeFileSync(marker, String(TREE_VERSION));
  return root;
}

function put(root: string, relative: string, content: string | object): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

/** A typical app: manifest, lock file, configs, ~40 source files in a few folders. */
function writeSingleService(root: string): void {
  put(root, 'package.json', { name: 'shop', scripts: { dev: 'next dev', build: 'next build', start: 'next start' }, dependencies: { next: '14.2.3', react: '18.3.1', 'react-dom': '18.3.1' }, devDependencies: { typescript: '5.4.5' } });
  put(root, 'package-lock.json', { name: 'shop', lockfileVersion: 3, packages: {} });
  put(root, '.gitignore', 'node_modules\n.next\n');
  put(root, '.nvmrc', '20.12.2\n');
  put(root, 'tsconfig.json', { compilerOptions: { strict: true } });
  put(root, 'next.config.js', 'module.exports = {};\n');
  put(root, 'README.md', '# shop\n');
  for (const folder of ['app', 'components', 'lib', 'public']) {
    for (let i = 0; i < 10; i++) put(root, `${folder}/file${i}.tsx`, `export const x${i} = ${i};\n`);
  }
}

/** pnpm workspace + turbo, 1,000 packages in apps/ and packages/, each with a manifest and sources. */
function writeMonorepo(root: string): void {
  put(root, 'package.json', { name: 'mono', private: true, packageManager: 'pnpm@9.1.0', scripts: { build: 'turbo run build' }, devDependencies: { turbo: '2.0.0' } });
  put(root, 'pnpm-workspace.yaml', 'packages:\n  - "apps/*"\n  - "packages/*"\n');
  put(root, 'pnpm-lock.yaml', "lockfileVersion: '9.0'\n");
  put(root, 'turbo.json', { tasks: { build: { dependsOn: ['^build'] } } });
  put(root, '.gitignore', 'node_modules\ndist\n.turbo\n');
  put(root, '.nvmrc', '20.12.2\n');
  const frameworks = [{ next: '14' }, { express: '4' }, { '@nestjs/core': '10' }, { vite: '5' }, {}];
  for (let i = 0; i < 1_000; i++) {
    const dir = i < 100 ? `apps/app-${i}` : `packages/pkg-${i}`;
    put(root, `${dir}/package.json`, { name: i < 100 ? `app-${i}` : `@mono/pkg-${i}`, version: '1.0.0', scripts: { build: 'tsc -b' }, dependencies: frameworks[i % frameworks.length] });
    put(root, `${dir}/tsconfig.json`, '{}');
    put(root, `${dir}/src/index.ts`, `export const id = ${i};\n`);
    put(root, `${dir}/src/util.ts`, `export const util = ${i};\n`);
  }
}

if (require.main === module) {
  runDetectBench({ quick: process.argv.includes('--quick') }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
