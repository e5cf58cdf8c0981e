/**
 * Search benchmark: `@search` (literal, case-insensitive) against `rg -F -i -c` and `@grep` (RE2)
 * against `rg -c`, on the same tree, the same pattern and the same set of files, best of 3 each.
 * Targets: ≤ 2.5× ripgrep for literal search, ≤ 3× for regex; the match counts must agree.
 *
 *   node dist/bench/search.bench.js [--quick]        (after the tsc build)
 *
 * Trees: a generated one (≥ 50k files, ≥ 500 MB of source-like text; built once under
 * os.tmpdir() and reused) and, when QUARRY_BENCH_REAL_TREE names a directory, that one too (the
 * Linux source tree: see docs "A large real corpus for benchmarks").
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_MAX_FILE_BYTES, closeSharedSearchPool, searchWorkspace, type SearchMode } from '../libs/search/src';
import { bestOf, mulberry32, printTable } from './support';

const RUNS = 3;
/** Bump when the generator changes so an old cached tree is rebuilt. */
const TREE_VERSION = 1;
const MARKER = path.join('.git', 'quarry-search-bench-tree.json');
const FULL_TREE = { directory: path.join(os.tmpdir(), 'quarry-bench-search-60k'), files: 60_000, meanBytes: 9_000 };
const QUICK_TREE = { directory: path.join(os.tmpdir(), 'quarry-bench-search-6k'), files: 6_000, meanBytes: 9_000 };

interface Query {
  mode: SearchMode;
  pattern: string;
  /** ripgrep's flags for the same question (-c counts matching lines per file, as we do). */
  rgFlags: string[];
  /** Our time over ripgrep's must stay at or under this. */
  target: number;
}

const QUERIES: readonly Query[] = [
  { mode: 'literal', pattern: 'todo', rgFlags: ['-F', '-i', '-c'], target: 2.5 },
  { mode: 'regex', pattern: String.raw`\w+_error\(`, rgFlags: ['-c'], target: 3 },
];

/** Both skip hidden files (rg's default, and the search's); these flags also skip the files over our size cap. */
const RG_SCOPE = ['--max-filesize', `${DEFAULT_MAX_FILE_BYTES / (1024 * 1024)}M`];

export interface SearchBenchRow {
  tree: string;
  query: string;
  mode: SearchMode;
  seconds: number;
  rgSeconds: number | undefined;
  ratio: number | undefined;
  target: number;
  met: boolean | undefined;
  totalMatches: number;
  rgMatches: number | undefined;
  countsMatch: boolean | undefined;
  filesSearched: number;
}

export interface SearchBenchReport {
  rows: SearchBenchRow[];
}

export async function runSearchBench(options: { quick?: boolean; tree?: string } = {}): Promise<SearchBenchReport> {
  const trees = [options.tree ?? ensureSearchBenchTree(options.quick ? QUICK_TREE : FULL_TREE)];
  const real = process.env.QUARRY_BENCH_REAL_TREE;
  if (real && existsSync(real)) trees.push(real);
  else if (real) console.log(`QUARRY_BENCH_REAL_TREE=${real} does not exist; skipping the real tree`);
  const hasRg = spawnSync('rg', ['--version']).status === 0;
  if (!hasRg) console.log('rg not installed: apt-get install ripgrep (the ratios to ripgrep are left out)');

  const rows: SearchBenchRow[] = [];
  try {
    for (const tree of trees) {
      for (const query of QUERIES) rows.push(await measure(tree, query, hasRg));
    }
  } finally {
    await closeSharedSearchPool();
  }
  printTable(
    `@search / @grep vs ripgrep (best of ${RUNS}, warm cache, ${os.availableParallelism()} cores)`,
    ['tree', 'query', 'ours', 'rg', 'ratio', 'target', 'matches', 'rg matches', 'files'],
    rows.map((row) => [
      path.basename(row.tree),
      `${row.mode === 'literal' ? '@search' : '@grep'}:"${row.query}"`,
      `${row.seconds.toFixed(3)} s`,
      row.rgSeconds === undefined ? '-' : `${row.rgSeconds.toFixed(3)} s`,
      row.ratio === undefined ? '-' : `${row.ratio.toFixed(2)}x`,
      `≤ ${row.target}x${row.met === false ? ' MISSED' : ''}`,
      row.totalMatches.toLocaleString('en-US'),
      row.rgMatches === undefined ? '-' : `${row.rgMatches.toLocaleString('en-US')}${row.countsMatch ? '' : ' MISMATCH'}`,
      row.filesSearched.toLocaleString('en-US'),
    ]),
  );
  return { rows };
}

async function measure(tree: string, query: Query, hasRg: boolean): Promise<SearchBenchRow> {
  const search = () => searchWorkspace({ root: tree, mode: query.mode, pattern: query.pattern, timeoutMs: 10 * 60_000 });
  await search(); // warm the page cache and start the worker threads
  const ours = await bestOf(RUNS, search);
  let rg: { seconds: number; value: number } | undefined;
  if (hasRg) {
    await ripgrepCount(tree, query);
    rg = await bestOf(RUNS, () => ripgrepCount(tree, query));
  }
  const ratio = rg === undefined ? undefined : ours.seconds / rg.seconds;
  const countsMatch = rg === undefined ? undefined : rg.value === ours.value.totalMatches;
  if (countsMatch === false) {
    console.error(`!!! COUNT MISMATCH on ${tree} for ${query.pattern}: rg ${rg?.value}, ours ${ours.value.totalMatches} !!!`);
  }
  return {
    tree,
    query: query.pattern,
    mode: query.mode,
    seconds: ours.seconds,
    rgSeconds: rg?.seconds,
    ratio,
    target: query.target,
    met: ratio === undefined ? undefined : ratio <= query.target,
    totalMatches: ours.value.totalMatches,
    rgMatches: rg?.value,
    countsMatch,
    filesSearched: ours.value.filesSearched,
  };
}

/** Sum of `rg -c`'s per-file counts. Always with a path argument: without one, rg reads a non-TTY stdin. */
function ripgrepCount(tree: string, query: Query): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile('rg', [...query.rgFlags, ...RG_SCOPE, '--', query.pattern, tree], { maxBuffer: 256 * 1024 * 1024 }, (error, stdout) => {
      // Exit status 1 is "no match", not a failure.
      if (error && error.code !== 1) return reject(error);
      let total = 0;
      for (const line of stdout.split('\n')) {
        if (line !== '') total += Number.parseInt(line.slice(line.lastIndexOf(':') + 1), 10);
      }
      resolve(total);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The generated tree: source-like text in a monorepo shape, seeded so every machine measures the
// same bytes. Lines come from templates with varied identifiers, so literal and regex patterns hit
// some lines and not others, the way they do in real code.

interface TreeShape {
  directory: string;
  files: number;
  meanBytes: number;
}

export function ensureSearchBenchTree(shape: TreeShape): string {
  const marker = path.join(shape.directory, MARKER);
  if (existsSync(marker)) {
    try {
      const recorded = JSON.parse(readFileSync(marker, 'utf8')) as { version?: number; files?: number };
      if (recorded.version === TREE_VERSION && recorded.files === shape.files) return shape.directory;
    } catch {
      // unreadable marker: rebuild
    }
  }
  console.log(`building the search benchmark tree (${shape.files.toLocaleString('en-US')} files) in ${shape.directory} …`);
  const started = performance.now();
  // Built beside the target and renamed into place, so a killed run never leaves a tree that looks complete.
  const partial = `${shape.directory}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const bytes = writeTree(partial, shape);
  const git = spawnSync('git', ['init', '-q', partial]);
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr?.toString() ?? git.error}`);
  writeFileSync(path.join(partial, MARKER), JSON.stringify({ version: TREE_VERSION, files: shape.files, bytes }));
  rmSync(shape.directory, { recursive: true, force: true });
  renameSync(partial, shape.directory);
  console.log(`built ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return shape.directory;
}

const EXTENSIONS = ['.ts', '.ts', '.tsx', '.js', '.py', '.go', '.rs', '.c', '.h', '.java', '.md', '.json'];
const WORDS = ['request', 'response', 'handler', 'user', 'config', 'cache', 'queue', 'stream', 'buffer', 'token', 'session', 'worker', 'parser', 'index', 'record', 'payload'];
const OWNERS = ['alice', 'bob', 'carol', 'dave'];

/** Writes the files; returns the bytes written. Binary files (a NUL up front) are mixed in, as in real repositories. */
function writeTree(root: string, shape: TreeShape): number {
  const random = mulberry32(0x5ea7c4);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const identifier = () => `${pick(WORDS)}${pick(WORDS).replace(/^./, (c) => c.toUpperCase())}${Math.floor(random() * 100)}`;
  const templates: Array<() => string> = [
    () => `export function ${identifier()}(${pick(WORDS)}: ${pick(WORDS)}Options): Promise<void> {`,
    () => `  const ${identifier()} = await ${identifier()}(${pick(WORDS)}, { retries: ${Math.floor(random() * 5)} });`,
    () => `  if (!${identifier()}) return ${pick(WORDS)}_error(${JSON.stringify(pick(WORDS))});`,
    () => `  // TODO(${pick(OWNERS)}): ${pick(WORDS)} should not block the ${pick(WORDS)} here`,
    () => `  // Todo: check ${pick(WORDS)} limits before ${pick(WORDS)}ing`,
    () => `  for (const ${pick(WORDS)} of ${identifier()}) total += ${pick(WORDS)}.length;`,
    () => `  log.debug('${pick(WORDS)} ${pick(WORDS)} took %d ms', elapsed);`,
    () => `  throw new ${pick(WORDS).replace(/^./, (c) => c.toUpperCase())}Error(\`${pick(WORDS)} failed: \${reason}\`);`,
    () => `}`,
    () => ``,
    () => `import { ${identifier()}, ${identifier()} } from '../${pick(WORDS)}/${pick(WORDS)}';`,
  ];
  let bytes = 0;
  const directories = new Set<string>();
  for (let file = 0; file < shape.files; file++) {
    const relative = `packages/p${file % 40}/src/m${Math.floor(file / 40) % 60}/d${Math.floor(file / 2400)}/f${file}${pick(EXTENSIONS)}`;
    const absolute = path.join(root, relative);
    const directory = path.dirname(absolute);
    if (!directories.has(directory)) {
      mkdirSync(directory, { recursive: true });
      directories.add(directory);
    }
    if (file % 200 === 199) {
      const binary = Buffer.alloc(4096 + Math.floor(random() * 4096), 0);
      binary.write('todo TODO foo_error(', 100);
      writeFileSync(absolute.replace(/\.\w+$/, '.bin'), binary);
      bytes += binary.length;
      continue;
    }
    // Sizes skewed like real sources: many small files, a few large ones (capped well under 8 MiB).
    const target = Math.min(400_000, Math.floor(shape.meanBytes * -Math.log(1 - random() * 0.999)));
    const lines: string[] = [];
    let size = 0;
    while (size < target) {
      const line = pick(templates)();
      lines.push(line);
      size += line.length + 1;
    }
    const text = `${lines.join('\n')}\n`;
    writeFileSync(absolute, text);
    bytes += Buffer.byteLength(text);
  }
  writeFileSync(path.join(root, '.gitignore'), 'ignored/\n');
  mkdirSync(path.join(root, 'ignored'), { recursive: true });
  writeFileSync(path.join(root, 'ignored', 'skipped.ts'), '// TODO: both tools skip this file\n'.repeat(1000));
  return bytes;
}

if (require.main === module) {
  const quick = process.argv.includes('--quick');
  runSearchBench({ quick })
    .then((report) => {
      if (report.rows.some((row) => row.countsMatch === false)) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

