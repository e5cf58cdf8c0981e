/**
 * (i) The code index (libs/code-index) on Linux `fs/`, each figure next to its peer from the same run:
 *
 *   - symbol extraction MB/s in one process          vs universal-ctags on the same files
 *   - tokenizing MB/s per thread, o200k_base (ours)  vs gpt-tokenizer and js-tiktoken, with per-file counts compared
 *   - parse + extraction per thread, CPU seconds     vs `ctags --kinds-C=f -R fs/` and `ctags -R fs/`, CPU seconds;
 *     before the fast paths (public cursor, C bodies parsed) and now; the whole tree too with --whole-linux
 *   - full BlobIndex MB/s and stored bytes per MB of source
 *   - token totals                                   vs Repomix 1.18.1's per-file counts (fs/ and this repository)
 *   - an XML pack of fs/ in one process              vs the Repomix CLI on the same file list: wall time, peak RSS
 *   - the whole Linux tree packed, streamed          (Repomix gives up on it: string limit), peak RSS
 *   - product: the `quarry` commands users run       vs `repomix DIR` and `ctags -R` on the same directories:
 *     `quarry pack fs/` and the whole tree (heap capped at 192 MB, as a pack worker runs), `quarry symbols fs/`
 *
 * Every measurement runs in a fresh child process (bench/code-index-child.ts) so peak RSS is its own.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureLinuxTree, trackedFiles } from './linux-tree';
import { medianBy } from './support';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'code-index-child.js');
const REPOMIX = path.join(REPO_ROOT, 'node_modules/repomix/bin/repomix.cjs');

export const CODE_INDEX_PARTS = ['extract', 'index', 'tokens', 'pack', 'whole', 'product', 'scan'] as const;

export interface CodeIndexBenchOptions {
  quick?: boolean;
  /** Which figures (default: all but `whole`): index = symbols, tokenizers, stored size; tokens = vs Repomix. */
  parts?: readonly (typeof CODE_INDEX_PARTS)[number][];
  /** Also pack the whole Linux tree (78k files, ~1.3 GB): minutes of CPU. */
  wholeTree?: boolean;
}

interface Timed<T> {
  result: T;
  seconds: number;
  maxRssMB?: number;
}

/** Runs a command under GNU time for its wall time and peak RSS (when /usr/bin/time exists). */
function timed(command: string, args: string[], cwd: string, input?: string): Timed<string> {
  const useTime = fs.existsSync('/usr/bin/time');
  const started = performance.now();
  const run = spawnSync(useTime ? '/usr/bin/time' : command, useTime ? ['-f', '\n@@time %e %M', command, ...args] : args, {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const time = /@@time ([\d.]+) (\d+)/.exec(run.stderr);
  return { result: run.stdout, seconds, maxRssMB: time === null ? undefined : Math.round(Number(time[2]) / 1024) };
}

function child<T>(args: string[]): T {
  const output = execFileSync(process.execPath, [CHILD, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, cwd: REPO_ROOT });
  return JSON.parse(output.trim().split('\n').pop()!) as T;
}

/** Repomix's per-file token counts, read from its `--token-count-tree` report. */
export function parseTokenCountTree(output: string): Map<string, number> {
  // eslint-disable-next-line no-control-regex
  const lines = output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\n');
  const start = lines.findIndex((line) => line.includes('Token Count Tree'));
  const counts = new Map<string, number>();
  const directories: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?) \(([\d,]+) tokens\)\s*$/.exec(line);
    if (match === null) {
      if (counts.size > 0 && line.trim() === '') break;
      continue;
    }
    const depth = match[1].length / 4;
    const name = match[2];
    directories.length = depth;
    if (name.endsWith('/')) directories.push(name.slice(0, -1));
    else counts.set([...directories, name].join('/'), Number(match[3].replaceAll(',', '')));
  }
  return counts;
}

interface IndexFigures {
  files: number;
  megabytes: number;
  definitions: number;
  warnings: number;
  tokens: number;
  symbolMBps: number;
  tokenMBps: number;
  indexMBps: number;
  storedBytesPerMB: number;
  gzippedBytesPerMB: number;
  perFile: Record<string, number>;
  maxRssMB: number;
}

interface ExtractFigures {
  files: number;
  megabytes: number;
  cMegabytes: number;
  definitions: number;
  occurrenceBytes: number;
  cpuSeconds: number;
  wallSeconds: number;
  MBps: number;
  maxRssMB: number;
}

interface TokenizeFigures {
  implementation: string;
  megabytes: number;
  tokens: number;
  perFile: number[];
  MBps: number;
  loadMs: number;
  rssGrowthMB: number;
  maxRssMB: number;
}

interface PackFigures {
  files: number;
  tokens: number;
  bytes: number;
  redactions: number;
  seconds: number;
  maxRssMB: number;
}

function writeList(files: readonly string[]): string {
  const list = path.join(os.tmpdir(), `quarry-bench-list-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  fs.writeFileSync(list, `${files.join('\n')}\n`);
  return list;
}

/** Quarry's token total against Repomix's on the same files (Repomix reads the list on stdin). */
function compareTokens(label: string, root: string, files: readonly string[], ours: Record<string, number>) {
  const out = path.join(os.tmpdir(), `quarry-bench-repomix-${process.pid}.xml`);
  const run = timed(process.execPath, [REPOMIX, '--stdin', '--style', 'xml', '-o', out, '--token-count-tree', '--no-security-check'], root, `${files.join('\n')}\n`);
  fs.rmSync(out, { force: true });
  const theirs = parseTokenCountTree(run.result);
  let quarry = 0;
  let repomix = 0;
  let common = 0;
  let differing = 0;
  for (const [file, count] of theirs) {
    if (ours[file] === undefined) continue;
    common++;
    quarry += ours[file];
    repomix += count;
    if (ours[file] !== count) differing++;
  }
  const difference = repomix === 0 ? 0 : (quarry - repomix) / repomix;
  console.log(
    `  tokens, ${label}: Quarry ${quarry.toLocaleString('en-US')} vs Repomix ${repomix.toLocaleString('en-US')} on ${common} common files ` +
      `(${(difference * 100).toFixed(3)}%; ${differing} files differ; Quarry indexed ${Object.keys(ours).length}, Repomix counted ${theirs.size})`,
  );
  return { label, quarry, repomix, common, differing, difference, quarryFiles: Object.keys(ours).length, repomixFiles: theirs.size };
}

interface Corpus {
  linux: string;
  sample: string[];
  list: string;
}

/** A command's CPU seconds (user + system, children included) under GNU time. */
function cpuTimed(command: string, args: string[], cwd: string): { cpuSeconds: number; wallSeconds: number } {
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '\n@@cpu %U %S', command, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
  const wallSeconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const cpu = /@@cpu ([\d.]+) ([\d.]+)/.exec(run.stderr);
  return { cpuSeconds: cpu === null ? wallSeconds : Number(cpu[1]) + Number(cpu[2]), wallSeconds };
}

/**
 * Issue 33's figure: what the per-blob indexer spends on symbols (parse, walk, definitions,
 * references, occurrences, imports; not tokens) on one thread, in CPU seconds and MB per CPU
 * second, before the fast paths and now, next to universal-ctags on the same directory in the
 * same run: `--kinds-C=f` (functions only: the cheapest ctags run) and all kinds.
 */
function measureExtract(linux: string, directory: string, files: readonly string[], temporary: string[], withBefore: boolean, quick = false) {
  const list = writeList(files);
  temporary.push(list);
  const now = child<ExtractFigures>(['extract', linux, list]);
  const before = withBefore ? child<ExtractFigures>(['extract', linux, list, 'before']) : undefined;
  // The directory as users run it; a --quick run's sample by its list.
  const input = quick ? ['-L', list] : ['-R', directory];
  // A real tags file (ctags cannot truncate /dev/null when it rewrites its output on the whole tree).
  const tags = path.join(os.tmpdir(), `quarry-bench-tags-${process.pid}`);
  temporary.push(tags);
  const ctagsFunctions = cpuTimed('ctags', ['--langmap=C:+.h', '--kinds-C=f', '-f', tags, ...input], linux);
  const ctagsAll = cpuTimed('ctags', ['--langmap=C:+.h', '-f', tags, ...input], linux);
  fs.rmSync(tags, { force: true });
  const label = directory === '.' ? 'the whole tree' : `${directory}/`;
  const line = (name: string, figures: ExtractFigures) =>
    `  ${name}: ${figures.cpuSeconds.toFixed(2)} CPU-s, ${figures.MBps.toFixed(2)} MB/s per thread (${figures.megabytes.toFixed(1)} MB, ${figures.files} files, ${figures.definitions.toLocaleString('en-US')} definitions; ` +
    `${(figures.cpuSeconds / ctagsFunctions.cpuSeconds).toFixed(1)}× ctags --kinds-C=f, ${(figures.cpuSeconds / ctagsAll.cpuSeconds).toFixed(1)}× ctags -R)`;
  console.log(`  parse + extraction on ${label}, one thread (tokens not included):`);
  if (before !== undefined) console.log(line('before (public cursor, C bodies parsed)', before));
  console.log(line('now', now));
  console.log(
    `    peer: ctags --kinds-C=f -R ${label}: ${ctagsFunctions.cpuSeconds.toFixed(2)} CPU-s (${(now.megabytes / ctagsFunctions.cpuSeconds).toFixed(1)} MB/s); ` +
      `ctags -R: ${ctagsAll.cpuSeconds.toFixed(2)} CPU-s (${(now.megabytes / ctagsAll.cpuSeconds).toFixed(1)} MB/s)`,
  );
  return { directory, now, before, ctagsFunctions, ctagsAll };
}

/** Symbol extraction vs ctags, full index speed, stored size, the two tokenizers. */
function measureIndex({ linux, sample, list }: Corpus) {
  const cFiles = sample.filter((file) => /\.[ch]$/.test(file));
  const index = child<IndexFigures>(['index', linux, list]);
  const ctags = timed('ctags', ['--langmap=C:+.h', '-f', '/dev/null', '-L', '-'], linux, `${cFiles.join('\n')}\n`);
  const cMegabytes = cFiles.reduce((sum, file) => sum + fs.statSync(path.join(linux, file)).size, 0) / 1e6;
  console.log(`  symbol extraction, 1 process: ${index.symbolMBps.toFixed(2)} MB/s (${index.definitions.toLocaleString('en-US')} definitions, ${index.warnings} files without symbols)`);
  console.log(`    peer: ctags on the ${cFiles.length} .c/.h files: ${(cMegabytes / ctags.seconds).toFixed(2)} MB/s (${ctags.seconds.toFixed(1)} s)`);
  console.log(`  full BlobIndex (tokens + symbols + references + secrets): ${index.indexMBps.toFixed(2)} MB/s, peak RSS ${index.maxRssMB} MB with the corpus in memory`);
  console.log(
    `  stored index: ${Math.round(index.storedBytesPerMB).toLocaleString('en-US')} bytes per MB of source as compact JSON, ` +
      `${Math.round(index.gzippedBytesPerMB).toLocaleString('en-US')} gzipped (encodeBlobIndex)`,
  );
  const ours = child<TokenizeFigures>(['tokenize', linux, list, 'quarry']);
  const gpt = child<TokenizeFigures>(['tokenize', linux, list, 'gpt-tokenizer']);
  const jst = child<TokenizeFigures>(['tokenize', linux, list, 'js-tiktoken']);
  const differ = (other: TokenizeFigures) => ours.perFile.filter((count, i) => count !== other.perFile[i]).length;
  const disagreements = differ(jst);
  const gptDisagreements = differ(gpt);
  const describe = (figures: TokenizeFigures) => `${figures.MBps.toFixed(2)} MB/s (load ${Math.round(figures.loadMs)} ms, RSS ${figures.rssGrowthMB >= 0 ? '+' : ''}${figures.rssGrowthMB} MB while counting, peak ${figures.maxRssMB} MB)`;
  console.log(`  tokenizing MB/s per thread, o200k_base: Quarry ${describe(ours)}, ${(ours.MBps / gpt.MBps).toFixed(2)}× gpt-tokenizer`);
  console.log(`    peer: gpt-tokenizer ${describe(gpt)}; per-file counts differ from Quarry's in ${gptDisagreements} of ${ours.perFile.length} files`);
  console.log(`    peer: js-tiktoken ${describe(jst)}; per-file counts differ in ${disagreements} of ${ours.perFile.length} files`);
  return {
    index: { ...index, perFile: undefined },
    perFile: index.perFile,
    ctags: { seconds: ctags.seconds, MBps: cMegabytes / ctags.seconds },
    tokenizer: { quarry: { ...ours, perFile: undefined }, gpt: { ...gpt, perFile: undefined }, jsTiktoken: { ...jst, perFile: undefined }, disagreements, gptDisagreements },
  };
}

/** Token totals against Repomix's on Linux fs/ and on this repository. */
function measureTokens({ linux, sample, list }: Corpus, fsTokens: Record<string, number> | undefined, temporary: string[]) {
  const tokens = [compareTokens('Linux fs/', linux, sample, fsTokens ?? child<IndexFigures>(['index', linux, list]).perFile)];
  const ownFiles = execFileSync('git', ['-C', REPO_ROOT, 'ls-files'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && fs.statSync(path.join(REPO_ROOT, file), { throwIfNoEntry: false })?.isFile());
  const ownList = writeList(ownFiles);
  temporary.push(ownList);
  tokens.push(compareTokens('this repository', REPO_ROOT, ownFiles, child<IndexFigures>(['index', REPO_ROOT, ownList]).perFile));
  return tokens;
}

/** XML pack of fs/: Quarry cold, Quarry with tokens and secrets known, and the Repomix CLI. */
function measurePack({ linux, sample, list }: Corpus, out: string) {
  const quarry = child<PackFigures>(['pack', linux, list, out]);
  const quarryBytes = fs.statSync(out).size;
  const indexed = child<PackFigures>(['pack-indexed', linux, list, out]);
  fs.rmSync(out, { force: true });
  const repomixRun = timed(process.execPath, [REPOMIX, '--stdin', '--style', 'xml', '-o', out, '--quiet'], linux, `${sample.join('\n')}\n`);
  const repomix = { seconds: repomixRun.seconds, maxRssMB: repomixRun.maxRssMB, bytes: fs.existsSync(out) ? fs.statSync(out).size : 0 };
  fs.rmSync(out, { force: true });
  console.log(
    `  pack fs/ as XML, 1 process, nothing known before: Quarry ${quarry.seconds.toFixed(1)} s, peak RSS ${quarry.maxRssMB} MB, ` +
      `${quarry.files} files, ${(quarryBytes / 1e6).toFixed(1)} MB, ${quarry.redactions} redactions`,
  );
  console.log(`  the same with tokens and secrets known (a pack job after a scan): ${indexed.seconds.toFixed(1)} s, peak RSS ${indexed.maxRssMB} MB`);
  console.log(
    `    peer: Repomix CLI ${repomix.seconds.toFixed(1)} s, peak RSS ${repomix.maxRssMB ?? '?'} MB, ${(repomix.bytes / 1e6).toFixed(1)} MB ` +
      `(ratios ${(quarry.seconds / repomix.seconds).toFixed(2)}× and ${(indexed.seconds / repomix.seconds).toFixed(2)}×)`,
  );
  return { quarry, indexed, repomix };
}

/** The whole kernel, packed cold and streamed to a file: what Repomix cannot do. */
function measureWholeTree(linux: string, out: string, temporary: string[]) {
  const all = trackedFiles(linux, '.');
  const allList = writeList(all);
  temporary.push(allList);
  const whole = child<PackFigures>(['pack', linux, allList, out]);
  const bytes = fs.statSync(out).size;
  fs.rmSync(out, { force: true });
  console.log(`  pack the whole Linux tree (${all.length} files) streamed to a file, nothing known before: ${whole.seconds.toFixed(0)} s, ${(bytes / 1e9).toFixed(2)} GB, peak RSS ${whole.maxRssMB} MB`);
  return whole;
}

const QUARRY_BIN = path.join(REPO_ROOT, 'bin', 'quarry.js');
/** A pack worker's heap cap: `NODE_OPTIONS=--max-old-space-size=192 quarry worker --queues pack`. */
const PACK_HEAP_MB = 192;

interface ProductRun {
  seconds: number;
  maxRssMB?: number;
  files?: number;
  tokens?: number;
  bytes?: number;
  error?: string;
}

/** Runs a command under GNU time, with a timeout; a failure is recorded, not thrown (Repomix fails on the whole tree). */
function timedRun(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): { stdout: string; stderr: string; seconds: number; maxRssMB?: number; ok: boolean } {
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '\n@@time %e %M', command, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
  });
  const seconds = (performance.now() - started) / 1000;
  const time = /@@time ([\d.]+) (\d+)/.exec(run.stderr ?? '');
  return { stdout: run.stdout ?? '', stderr: run.stderr ?? '', seconds, maxRssMB: time === null ? undefined : Math.round(Number(time[2]) / 1024), ok: run.status === 0 };
}

function quarryPack(root: string, out: string): ProductRun {
  const run = timedRun(process.execPath, [QUARRY_BIN, 'pack', root, '--local', '-o', out, '--json'], { env: { NODE_OPTIONS: `--max-old-space-size=${PACK_HEAP_MB}` } });
  if (!run.ok) return { seconds: run.seconds, maxRssMB: run.maxRssMB, error: run.stderr.slice(-500) };
  const result = JSON.parse(run.stdout) as { files: number; tokens: number; bytes: number };
  return { seconds: run.seconds, maxRssMB: run.maxRssMB, files: result.files, tokens: result.tokens, bytes: result.bytes };
}

function repomixPack(root: string, out: string, timeoutMs: number): ProductRun {
  const run = timedRun(process.execPath, [REPOMIX, root, '--style', 'xml', '-o', out], { timeoutMs });
  const text = `${run.stdout}\n${run.stderr}`.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  const files = /Total Files:\s*([\d,]+)/.exec(text);
  const tokens = /Total Tokens:\s*([\d,]+)/.exec(text);
  const failure = run.ok ? undefined : (/(Output size exceeds[^\n]*|Error:[^\n]*|RangeError[^\n]*|heap out of memory[^\n]*)/.exec(text)?.[1] ?? (run.seconds * 1000 >= timeoutMs ? `killed after ${timeoutMs / 1000} s` : text.slice(-300)));
  return {
    seconds: run.seconds,
    maxRssMB: run.maxRssMB,
    files: files ? Number(files[1].replaceAll(',', '')) : undefined,
    tokens: tokens ? Number(tokens[1].replaceAll(',', '')) : undefined,
    bytes: fs.existsSync(out) ? fs.statSync(out).size : undefined,
    ...(failure === undefined ? {} : { error: failure }),
  };
}

export interface ScanFigures {
  dir: string;
  quarry: { seconds: number; maxRssMB?: number; tokens?: number; definitions?: number; error?: string };
  ctags: { seconds: number; maxRssMB?: number };
  rg: { seconds: number };
  repomix?: ProductRun;
}

/**
 * Issue 33's acceptance: the first code-indexed `quarry scan DIR --local --json` (a fresh
 * QUARRY_DATA_DIR: nothing indexed before) next to `ctags -R` and `rg -c ''` on the same
 * directory, in the same run; Repomix too for fs/ (it gives up on the whole tree, see product).
 * `rounds` > 1 takes turns (quarry, ctags, quarry, ctags…) and keeps each one's median: on a
 * shared 2-vCPU machine a single 6 s run moves by ±20% with the neighbours' load.
 */
function measureScan(linux: string, dir: string, out: string, rounds = 1): ScanFigures {
  const root = path.join(linux, dir);
  const quarryRuns: { seconds: number; maxRssMB?: number; tokens?: number; definitions?: number; error?: string }[] = [];
  const ctagsRuns: { seconds: number; maxRssMB?: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-scan-'));
    try {
      const run = timedRun(process.execPath, [QUARRY_BIN, 'scan', root, '--local', '--json'], { env: { QUARRY_DATA_DIR: dataDir } });
      const result = run.ok ? (JSON.parse(run.stdout) as { tokens?: { total: number }; symbols?: { definitions: number } }) : undefined;
      quarryRuns.push({ seconds: run.seconds, maxRssMB: run.maxRssMB, tokens: result?.tokens?.total, definitions: result?.symbols?.definitions, ...(run.ok ? {} : { error: run.stderr.slice(-500) }) });
      const ctags = timedRun('ctags', ['-R', '-f', path.join(dataDir, 'tags'), '.'], { cwd: root });
      ctagsRuns.push({ seconds: ctags.seconds, maxRssMB: ctags.maxRssMB });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const quarry = { ...medianBy(quarryRuns, (run) => run.seconds), maxRssMB: Math.max(...quarryRuns.map((run) => run.maxRssMB ?? 0)) };
  const ctags = medianBy(ctagsRuns, (run) => run.seconds);
  const rg = timedRun('rg', ['-c', '', '.'], { cwd: root });
  let repomix: ProductRun | undefined;
  if (dir !== '.') {
    repomix = repomixPack(root, out, 600_000);
    fs.rmSync(out, { force: true });
  }
  const label = dir === '.' ? 'the whole Linux tree' : `Linux ${dir}/`;
  const spread = (runs: { seconds: number }[]) => (runs.length > 1 ? ` (median of ${runs.length}: ${runs.map((run) => run.seconds.toFixed(1)).join(', ')} s)` : '');
  console.log(`  quarry scan ${label} --local --json, nothing indexed before: ${quarry.seconds.toFixed(1)} s${spread(quarryRuns)}, peak RSS ${quarry.maxRssMB} MB, ${quarry.tokens?.toLocaleString('en-US')} tokens, ${quarry.definitions?.toLocaleString('en-US')} definitions${quarry.error ? `, FAILED ${quarry.error}` : ''}`);
  console.log(`    peers: ctags -R ${ctags.seconds.toFixed(1)} s${spread(ctagsRuns)} (peak RSS ${ctags.maxRssMB} MB) → ${(quarry.seconds / ctags.seconds).toFixed(2)}x; rg -c '' ${rg.seconds.toFixed(2)} s${repomix ? `; repomix ${repomix.seconds.toFixed(1)} s (peak RSS ${repomix.maxRssMB} MB)` : ''}`);
  return { dir, quarry, ctags: { seconds: ctags.seconds, maxRssMB: ctags.maxRssMB }, rg: { seconds: rg.seconds }, repomix };
}

/**
 * What users run: `quarry pack` and `quarry symbols` on directories (the tree walk, binary probe,
 * redaction, counting and writing of the real code path), next to `repomix DIR` and `ctags -R`.
 */
function measureProduct(linux: string, out: string) {
  const fsDir = path.join(linux, 'fs');
  const packFs = quarryPack(fsDir, out);
  fs.rmSync(out, { force: true });
  const repomixFs = repomixPack(fsDir, out, 600_000);
  fs.rmSync(out, { force: true });
  console.log(`  quarry pack fs/ (heap cap ${PACK_HEAP_MB} MB): ${packFs.seconds.toFixed(1)} s, peak RSS ${packFs.maxRssMB} MB, ${packFs.files} files, ${packFs.tokens?.toLocaleString('en-US')} tokens${packFs.error ? `, FAILED ${packFs.error}` : ''}`);
  console.log(`    peer: repomix fs/: ${repomixFs.seconds.toFixed(1)} s, peak RSS ${repomixFs.maxRssMB} MB, ${repomixFs.files} files, ${repomixFs.tokens?.toLocaleString('en-US')} tokens (its total includes the XML wrapping)${repomixFs.error ? `, FAILED: ${repomixFs.error}` : ''}`);

  const symbols = timedRun(process.execPath, [QUARRY_BIN, 'symbols', fsDir, '--local', '--json']);
  const definitions = symbols.ok ? (JSON.parse(symbols.stdout) as unknown[]).length : 0;
  const ctags = timedRun('ctags', ['-R', '--langmap=C:+.h', '-f', '-', '.'], { cwd: fsDir });
  const tags = ctags.stdout.split('\n').filter((line) => line !== '' && !line.startsWith('!')).length;
  console.log(`  quarry symbols fs/ --local --json: ${symbols.seconds.toFixed(1)} s, peak RSS ${symbols.maxRssMB} MB, ${definitions.toLocaleString('en-US')} definitions`);
  console.log(`    peer: ctags -R fs/: ${ctags.seconds.toFixed(1)} s, peak RSS ${ctags.maxRssMB} MB, ${tags.toLocaleString('en-US')} tags (all kinds: members, variables, prototypes too)`);

  const packWhole = quarryPack(linux, out);
  fs.rmSync(out, { force: true });
  console.log(`  quarry pack, the whole Linux tree (heap cap ${PACK_HEAP_MB} MB): ${packWhole.seconds.toFixed(0)} s, peak RSS ${packWhole.maxRssMB} MB, ${packWhole.files} files, ${((packWhole.bytes ?? 0) / 1e9).toFixed(2)} GB${packWhole.error ? `, FAILED ${packWhole.error}` : ''}`);
  const repomixWhole = repomixPack(linux, out, 240_000);
  fs.rmSync(out, { force: true });
  console.log(`    peer: repomix on the whole tree: ${repomixWhole.error ? `failed after ${repomixWhole.seconds.toFixed(0)} s at peak RSS ${repomixWhole.maxRssMB} MB: ${repomixWhole.error}` : `${repomixWhole.seconds.toFixed(0)} s, peak RSS ${repomixWhole.maxRssMB} MB`}`);
  return { packFs, repomixFs, symbols: { seconds: symbols.seconds, maxRssMB: symbols.maxRssMB, definitions }, ctags: { seconds: ctags.seconds, maxRssMB: ctags.maxRssMB, tags }, packWhole, repomixWhole };
}

export interface CodeIndexReport {
  extract?: ReturnType<typeof measureExtract>;
  extractWhole?: ReturnType<typeof measureExtract>;
  index?: ReturnType<typeof measureIndex>['index'];
  ctags?: { seconds: number; MBps: number };
  tokenizer?: ReturnType<typeof measureIndex>['tokenizer'];
  tokens?: ReturnType<typeof compareTokens>[];
  pack?: ReturnType<typeof measurePack>;
  whole?: PackFigures;
  product?: ReturnType<typeof measureProduct>;
  scans?: ScanFigures[];
}

export async function runCodeIndexBench(options: CodeIndexBenchOptions = {}): Promise<CodeIndexReport> {
  const linux = ensureLinuxTree((line) => console.log(line));
  const fsFiles = trackedFiles(linux, 'fs');
  const sample = options.quick ? fsFiles.slice(0, 300) : fsFiles;
  const corpus: Corpus = { linux, sample, list: writeList(sample) };
  const temporary = [corpus.list];
  const out = path.join(os.tmpdir(), `quarry-bench-pack-${process.pid}.xml`);
  const parts = new Set(options.parts ?? CODE_INDEX_PARTS.filter((part) => (part !== 'whole' && part !== 'product') || options.wholeTree));
  const report: CodeIndexReport = {};
  try {
    console.log(`  corpus: Linux ${options.quick ? 'fs/ (first 300 files)' : 'fs/'} — ${sample.length} files`);
    let fsTokens: Record<string, number> | undefined;
    if (parts.has('extract')) {
      report.extract = measureExtract(linux, 'fs', sample, temporary, true, options.quick);
      // The whole kernel (~1.1 GB): minutes of CPU, and no `before` run (that would be ten more).
      if (options.wholeTree && !options.quick) report.extractWhole = measureExtract(linux, '.', trackedFiles(linux, '.'), temporary, false);
    }
    if (parts.has('index')) {
      const measured = measureIndex(corpus);
      fsTokens = measured.perFile;
      Object.assign(report, { index: measured.index, ctags: measured.ctags, tokenizer: measured.tokenizer });
    }
    if (parts.has('tokens')) report.tokens = measureTokens(corpus, fsTokens, temporary);
    if (parts.has('pack')) report.pack = measurePack(corpus, out);
    if (parts.has('whole') && !options.quick) report.whole = measureWholeTree(linux, out, temporary);
    if (parts.has('product') && !options.quick) report.product = measureProduct(linux, out);
    if (parts.has('scan') && !options.quick) report.scans = [measureScan(linux, 'fs', out, 5), ...(options.wholeTree ? [measureScan(linux, '.', out, 3)] : [])];
    return report;
  } finally {
    for (const file of temporary) fs.rmSync(file, { force: true });
    fs.rmSync(out, { force: true });
  }
}
