/**
 * Walk and scan benchmark: our gitignore-aware walker against `rg --files` on the same
 * 100,000-file tree, then a full scan in a fresh process for its own peak RSS.
 *
 *   node dist/bench/walk.bench.js            (after the tsc build)
 *
 * The tree is generated once under os.tmpdir()/quarry-bench-tree-100k and reused.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { walkFiles } from '../libs/workspace/src';
import { referenceScan } from '../libs/workspace/src/testing/reference-scan';
import { bestOf, mulberry32 } from './support';

export const BENCH_TREE = path.join(os.tmpdir(), 'quarry-bench-tree-100k');
/** Bump when the generator changes so an old cached tree is rebuilt. */
const TREE_VERSION = 3;
const TREE_FILES = 100_000;
const MARKER = path.join('.git', 'quarry-bench-tree.json');
const RUNS = 3;

export interface WalkBenchRow {
  name: string;
  seconds: number | undefined;
  files: number | undefined;
  ratioVsRg: number | undefined;
  note?: string;
}

export interface WalkBenchReport {
  tree: string;
  rows: WalkBenchRow[];
  scanPeakRssMiB: number;
  countsMatch: boolean | undefined;
}

/**
 * rg lists hidden files only with --hidden, and then walks into .git unless told not to; these
 * flags make it list exactly the set git (and walkFiles) sees, so the two do the same work.
 */
const RG_ARGS = ['--files', '--hidden', '--glob', '!.git'];

export async function runWalkBench(): Promise<WalkBenchReport> {
  const tree = ensureBenchTree();
  console.log(`tree: ${tree}`);

  const rg = await timeRipgrep(tree);
  const walk = await bestOf(RUNS, async () => (await walkFiles(tree)).files.length);
  const scan = await scanInFreshProcess(tree);

  const countsMatch = rg === undefined ? undefined : rg.files === walk.value;
  if (countsMatch === false) {
    console.error(`\n!!! FILE COUNT MISMATCH: rg lists ${rg?.files} files, walkFiles lists ${walk.value} !!!\n`);
  }
  const ratio = (seconds: number) => (rg === undefined ? undefined : seconds / rg.seconds);
  const rows: WalkBenchRow[] = [
    {
      name: `rg ${RG_ARGS.join(' ')}`,
      seconds: rg?.seconds,
      files: rg?.files,
      ratioVsRg: rg ? 1 : undefined,
      note: rg ? `best of ${RUNS}` : 'rg not on PATH: apt-get install ripgrep',
    },
    { name: 'walkFiles', seconds: walk.seconds, files: walk.value, ratioVsRg: ratio(walk.seconds), note: `best of ${RUNS}` },
    {
      name: 'referenceScan',
      seconds: scan.seconds,
      files: scan.files,
      ratioVsRg: ratio(scan.seconds),
      note: `${Math.round(scan.files / scan.seconds).toLocaleString('en-US')} files/s, ${scan.binary} binary skipped, fresh process`,
    },
  ];
  printTable(rows);
  const scanPeakRssMiB = scan.maxRssKiB / 1024;
  console.log(`scan peak RSS: ${scanPeakRssMiB.toFixed(0)} MiB (process.resourceUsage().maxRSS of the scan's own process)`);
  return { tree, rows, scanPeakRssMiB, countsMatch };
}

async function timeRipgrep(tree: string): Promise<{ seconds: number; files: number } | undefined> {
  if (spawnSync('rg', ['--version']).error) {
    console.log('rg is not on PATH; skipping the ripgrep row (apt-get install ripgrep)');
    return undefined;
  }
  // Always pass the path: with none and a non-TTY stdin, rg searches stdin.
  const run = () =>
    new Promise<number>((resolve, reject) => {
      execFile('sh', ['-c', 'rg "$@" | wc -l', 'sh', ...RG_ARGS, tree], (error, stdout) =>
        error ? reject(error) : resolve(Number.parseInt(stdout.trim(), 10)),
      );
    });
  await run(); // warm the page cache and dentry cache for both contenders
  const best = await bestOf(RUNS, run);
  return { seconds: best.seconds, files: best.value };
}

interface ScanChildReport {
  seconds: number;
  files: number;
  binary: number;
  maxRssKiB: number;
}

/** The scan runs in its own process, so the peak RSS is the scan's and not this process's. */
function scanInFreshProcess(tree: string): Promise<ScanChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--scan-child', tree], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`scan child exited with ${code}`));
      resolve(JSON.parse(output.trim().split('\n').pop() as string) as ScanChildReport);
    });
  });
}

async function scanChild(tree: string): Promise<void> {
  const started = performance.now();
  const result = await referenceScan(tree);
  const report: ScanChildReport = {
    seconds: (performance.now() - started) / 1000,
    files: result.files,
    binary: result.skipped.binary,
    maxRssKiB: process.resourceUsage().maxRSS,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function printTable(rows: WalkBenchRow[]): void {
  const cells = rows.map((row) => [
    row.name,
    row.seconds === undefined ? '-' : row.seconds.toFixed(3),
    row.files === undefined ? '-' : row.files.toLocaleString('en-US'),
    row.ratioVsRg === undefined ? '-' : `${row.ratioVsRg.toFixed(2)}x`,
    row.note ?? '',
  ]);
  const header = ['name', 'seconds', 'files', 'vs rg', 'note'];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  const line = (row: string[]) => row.map((cell, column) => (column === 0 || column === 4 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of cells) console.log(line(row));
}

// ---------------------------------------------------------------------------------------------
// The tree: a monorepo-like shape, built once. Deterministic (seeded), so every run and every
// machine measures the same tree.

/** Returns the cached tree, building it first if it is missing, partial or from an older generator. */
export function ensureBenchTree(target = BENCH_TREE): string {
  const marker = path.join(target, MARKER);
  if (existsSync(marker)) {
    try {
      if ((JSON.parse(readFileSync(marker, 'utf8')) as { version?: number }).version === TREE_VERSION) return target;
    } catch {
      // unreadable marker: rebuild
    }
  }
  console.log(`building the benchmark tree (${TREE_FILES.toLocaleString('en-US')} files) in ${target} …`);
  const started = performance.now();
  // Built beside the target and renamed into place: a run killed half-way never leaves a tree
  // that looks complete.
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const written = new TreeBuilder(partial, 0x5eed).build();
  const git = spawnSync('git', ['init', '-q', partial]);
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr?.toString() ?? git.error}`);
  writeFileSync(path.join(partial, MARKER), JSON.stringify({ version: TREE_VERSION, files: written }));
  rmSync(target, { recursive: true, force: true });
  renameSync(partial, target);
  console.log(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return target;
}

const SOURCE_EXTENSIONS = ['.ts', '.ts', '.ts', '.tsx', '.js', '.json', '.md', '.css', '.scss', '.yml', '.py', '.go', '.rs', '.java', '.sh', '.html', '.sql', '.c', '.h', '.S'];

class TreeBuilder {
  private written = 0;
  private random: () => number;
  private readonly text: string;

  constructor(private readonly root: string, seed: number) {
    this.random = mulberry32(seed);
    const line = 'export function handler(request: Request): Promise<Response> { return next(request); }\n';
    this.text = line.repeat(Math.ceil(200_000 / line.length));
  }

  build(): number {
    this.rootFiles();
    const packages = 48;
    const ignoredPerPackage = 150;
    // What is left after the fixed parts is shared by the packages' sources.
    const fixed = this.written + packages * ignoredPerPackage + this.servicesAndAssets(true);
    const perPackage = Math.floor((TREE_FILES - fixed) / packages);
    for (let index = 0; index < packages; index++) {
      const base = `packages/pkg-${String(index).padStart(2, '0')}`;
      this.packageTree(base, index, index === packages - 1 ? TREE_FILES - fixed - perPackage * (packages - 1) : perPackage, ignoredPerPackage);
    }
    this.servicesAndAssets(false);
    if (this.written !== TREE_FILES) throw new Error(`generator wrote ${this.written} files, meant ${TREE_FILES}`);
    return this.written;
  }

  private rootFiles(): void {
    this.write(
      '.gitignore',
      [
        '# dependencies and outputs',
        'node_modules/',
        'build/',
        'dist/',
        'coverage/',
        '*.log',
        '!important.log',
        '*.tmp',
        '*.py[cod]',
        '*~',
        '/out',
        '**/generated/**',
        '.cache/',
        '',
      ].join('\n'),
    );
    this.write('.git-blame-ignore-revs', 'abc123\n');
    this.write('.editorconfig', 'root = true\n[*]\nindent_style = space\n');
    this.write('.github/workflows/ci.yml', 'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n');
    this.write('.github/workflows/release.yml', 'on: release\n');
    this.write('package.json', '{ "name": "bench-monorepo", "private": true }\n');
    this.write('README.md', '# Bench monorepo\n\nGenerated for the walk benchmark.\n');
    this.write('Makefile', 'all:\n\tnpm run build\n');
    this.write('Dockerfile', 'FROM node:20\nCOPY . .\n');
    this.write('important.log', 'kept by a negation\n');
    this.write('debug.log', 'ignored\n');
    this.write('out/result.txt', 'ignored: anchored /out\n');
    this.write('docs/out/page.md', 'kept: /out is anchored to the root\n');
    // A few large text files: the scan must stream them, not load them whole.
    for (let index = 0; index < 4; index++) this.write(`data/large-${index}.sql`, this.largeText(8 * 1024 * 1024 + index * 1000));
    try {
      symlinkSync('..', path.join(this.root, 'data', 'loop'));
      symlinkSync('/etc', path.join(this.root, 'data', 'outside'));
    } catch {
      // a file system without symlinks: the rest of the tree still measures the walk
    }
  }

  /** With `dryRun`, only counts the files it would write. */
  private servicesAndAssets(dryRun: boolean): number {
    let count = 0;
    const write = (relative: string, content: string | Buffer) => {
      count++;
      if (!dryRun) this.write(relative, content);
    };
    for (let service = 0; service < 6; service++) {
      const base = `services/svc-${service}`;
      write(`${base}/.gitignore`, '__pycache__/\nvendor/\n!vendor/modules.txt\n*.cover\n');
      for (let file = 0; file < 300; file++) write(`${base}/app/m${file % 20}/f${file}.py`, this.sourceText(1200));
      for (let file = 0; file < 100; file++) write(`${base}/app/m${file % 20}/__pycache__/f${file}.cpython-311.pyc`, binary(600));
      for (let file = 0; file < 60; file++) write(`${base}/vendor/lib${file % 6}/x${file}.go`, this.sourceText(900));
      write(`${base}/vendor/modules.txt`, 'cannot be re-included: vendor/ is excluded\n');
    }
    for (let file = 0; file < 300; file++) write(`assets/img/i${file}.png`, binary(2000 + file));
    for (let file = 0; file < 40; file++) write(`assets/fonts/f${file}.woff2`, binary(4000));
    return count;
  }

  private packageTree(base: string, index: number, sourceFiles: number, ignoredFiles: number): void {
    if (index % 3 === 0) {
      this.write(`${base}/.gitignore`, ['*.snap', '!keep.snap', 'local/', '/fixtures/big-*', 'tmp-*', ''].join('\n'));
      sourceFiles--;
    }
    const fixed: Array<[string, string]> = [
      [`${base}/package.json`, `{ "name": "pkg-${index}", "version": "1.0.0" }\n`],
      [`${base}/README.md`, `# pkg-${index}\n`],
      [`${base}/tsconfig.json`, '{ "extends": "../../tsconfig.json" }\n'],
    ];
    for (const [relative, content] of fixed) this.write(relative, content);
    sourceFiles -= fixed.length;
    if (index % 3 === 0) {
      this.write(`${base}/test/__snapshots__/a.snap`, 'ignored\n');
      this.write(`${base}/test/__snapshots__/keep.snap`, 'kept by a negation\n');
      this.write(`${base}/local/notes.md`, 'ignored: local/\n');
      this.write(`${base}/fixtures/big-1.json`, '{}\n');
      this.write(`${base}/fixtures/small.json`, '{}\n');
      sourceFiles -= 2; // the ignored ones count against the ignored budget below
      ignoredFiles -= 3;
    }
    // Ignored bulk: dependencies, build output, generated code, logs.
    for (let file = 0; file < ignoredFiles; file++) {
      const kind = file % 10;
      const relative =
        kind < 6
          ? `${base}/node_modules/dep-${file % 7}/lib/m${file}.js`
          : kind < 8
            ? `${base}/build/out-${file % 3}/b${file}.js`
            : kind < 9
              ? `${base}/src/generated/g${file}.ts`
              : `${base}/logs/run-${file}.log`;
      this.write(relative, this.sourceText(700));
    }
    this.sourceDirectory(`${base}/src`, sourceFiles, 0);
  }

  /** About a dozen files per directory and three to five subdirectories, like real source trees. */
  private sourceDirectory(directory: string, files: number, depth: number): void {
    const here = files <= 16 || depth >= 6 ? files : 6 + Math.floor(this.random() * 10);
    for (let file = 0; file < here; file++) {
      const extension = SOURCE_EXTENSIONS[Math.floor(this.random() * SOURCE_EXTENSIONS.length)];
      this.write(`${directory}/file${file}${extension}`, this.sourceText(200 + Math.floor(this.random() ** 3 * 12_000)));
    }
    let remaining = files - here;
    if (remaining === 0) return;
    const children = Math.min(remaining, 3 + Math.floor(this.random() * 3));
    for (let child = 0; child < children; child++) {
      const share = child === children - 1 ? remaining : Math.floor(remaining / (children - child));
      remaining -= share;
      this.sourceDirectory(`${directory}/mod${child}`, share, depth + 1);
    }
  }

  private sourceText(bytes: number): string {
    const start = Math.floor(this.random() * 1000);
    return this.text.slice(start, start + bytes);
  }

  private largeText(bytes: number): string {
    const line = 'INSERT INTO events (id, kind, payload) VALUES (1, \'scan\', \'{"files": 100000}\');\n';
    return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  }

  private write(relative: string, content: string | Buffer): void {
    const absolute = path.join(this.root, relative);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
    this.written++;
  }
}

/** Bytes with NULs in them, the way images and compiled files look. */
function binary(size: number): Buffer {
  const buffer = Buffer.alloc(size);
  for (let index = 0; index < size; index++) buffer[index] = (index * 31) & 0xff;
  return buffer;
}

if (require.main === module) {
  const childIndex = process.argv.indexOf('--scan-child');
  const task = childIndex === -1 ? runWalkBench().then(() => undefined) : scanChild(process.argv[childIndex + 1]);
  task.catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
