/**
 * Cold search on the Linux tree as whole command-line invocations, start-up included, against
 * ripgrep in the same run (issue 18, part 1): `quarry search` and `quarry mention` vs `rg -c`
 * with the same options, interleaved (rg, search, mention, rg, …) so a burst of someone else's
 * load hits all of them alike; medians of wall time, and the CPU time each used (user + system,
 * from /proc/self/stat's reaped-children fields). The counts must be equal.
 *
 *   node dist/bench/search-cli.bench.js [--runs 7] [--quick]        (after the tsc build)
 *
 * Targets: literal ≤ 2× rg, RE2 regex ≤ 2.5× rg (wall medians). The machine is shared: the
 * other users' load during the run (busy cores not ours) is printed beside the figures.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureLinuxTree } from './linux-tree';
import { machineBusyMs, percentile, printTable } from './support';

const BIN = path.join(__dirname, '..', '..', 'bin', 'quarry.js');
const CLOCK_TICKS_PER_SECOND = 100;

interface CliQuery {
  label: string;
  target: number;
  pattern: string;
  /** ripgrep's flags for the same question (-c: matching lines per file). */
  rg: string[];
  /** `quarry search` flags after the pattern. */
  search: string[];
  mention: string;
}

const QUERIES: readonly CliQuery[] = [
  { label: 'literal "todo", case-folded', target: 2, pattern: 'todo', rg: ['-F', '-i', '-c'], search: ['--ignore-case'], mention: '@search:"todo"' },
  { label: String.raw`RE2 \w+_error\(`, target: 2.5, pattern: String.raw`\w+_error\(`, rg: ['-c'], search: ['--regex'], mention: String.raw`@grep:"\w+_error\("` },
];

export interface CliBenchRow {
  query: string;
  tool: 'rg' | 'quarry search' | 'quarry mention';
  wallMedianMs: number;
  wallMinMs: number;
  cpuMedianMs: number;
  total: number;
  ratio?: number;
  target: number;
}

export interface CliBenchReport {
  tree: string;
  runs: number;
  rows: CliBenchRow[];
  /** Busy cores of the machine during the measured runs that were not ours (other users' load). */
  otherBusyCores: number;
  loadAverage: number[];
}

/** utime + stime of this process's reaped children, in ms. */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

function run(command: string, args: string[]): { wallMs: number; cpuMs: number; stdout: string; stderr: string } {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  const wallMs = performance.now() - started;
  if (result.status !== 0 && result.status !== 1) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore, stdout: result.stdout, stderr: result.stderr };
}

const sumCounts = (stdout: string) => stdout.split('\n').reduce((sum, line) => (line ? sum + Number(line.slice(line.lastIndexOf(':') + 1)) : sum), 0);

export async function runSearchCliBench(options: { runs?: number; tree?: string } = {}): Promise<CliBenchReport> {
  const tree = options.tree ?? ensureLinuxTree();
  const runs = options.runs ?? 7;
  const loadAverage = os.loadavg();
  const rows: CliBenchRow[] = [];
  let ourCpuMs = 0;
  const busyBefore = machineBusyMs();
  const started = performance.now();
  for (const query of QUERIES) {
    const tools = {
      rg: () => run('rg', [...query.rg, '--', query.pattern, tree]),
      'quarry search': () => run(process.execPath, [BIN, 'search', tree, query.pattern, ...query.search, '--json', '--max-results', '50']),
      'quarry mention': () => run(process.execPath, [BIN, 'mention', '--root', tree, '--json', query.mention]),
    } as const;
    const totals = {
      rg: (stdout: string) => sumCounts(stdout),
      'quarry search': (stdout: string) => (JSON.parse(stdout) as { total: number }).total,
      'quarry mention': (stdout: string) => (JSON.parse(stdout) as { coverage: { matches: number } }).coverage.matches,
    } as const;
    const samples = { rg: [] as number[], 'quarry search': [] as number[], 'quarry mention': [] as number[] };
    const cpu = { rg: [] as number[], 'quarry search': [] as number[], 'quarry mention': [] as number[] };
    const counted: Record<string, number> = {};
    // One unmeasured round warms the page cache for everyone.
    for (const tool of Object.keys(tools) as Array<keyof typeof tools>) counted[tool] = totals[tool](tools[tool]().stdout);
    for (let round = 0; round < runs; round++) {
      for (const tool of Object.keys(tools) as Array<keyof typeof tools>) {
        const measured = tools[tool]();
        samples[tool].push(measured.wallMs);
        cpu[tool].push(measured.cpuMs);
        ourCpuMs += measured.cpuMs;
      }
    }
    const rgMedian = percentile([...samples.rg].sort((a, b) => a - b), 50);
    for (const tool of Object.keys(tools) as Array<keyof typeof tools>) {
      const sorted = [...samples[tool]].sort((a, b) => a - b);
      const wallMedianMs = percentile(sorted, 50);
      rows.push({
        query: query.label,
        tool,
        wallMedianMs,
        wallMinMs: sorted[0],
        cpuMedianMs: percentile([...cpu[tool]].sort((a, b) => a - b), 50),
        total: counted[tool],
        ...(tool === 'rg' ? {} : { ratio: wallMedianMs / rgMedian }),
        target: query.target,
      });
    }
  }
  const elapsedMs = performance.now() - started;
  const otherBusyCores = Math.max(0, (machineBusyMs() - busyBefore - ourCpuMs) / elapsedMs);
  const rgTotals = new Map(rows.filter((row) => row.tool === 'rg').map((row) => [row.query, row.total]));
  printTable(
    `cold search on ${path.basename(tree)}, whole CLI invocations vs rg (interleaved, median of ${runs}; ${os.availableParallelism()} cores; other users' load ${otherBusyCores.toFixed(2)} busy cores; load average ${loadAverage.map((value) => value.toFixed(2)).join(' ')})`,
    ['query', 'tool', 'wall median', 'wall min', 'CPU median', 'ratio (wall)', 'target', 'matching lines'],
    rows.map((row) => [
      row.query,
      row.tool,
      `${(row.wallMedianMs / 1000).toFixed(3)} s`,
      `${(row.wallMinMs / 1000).toFixed(3)} s`,
      `${(row.cpuMedianMs / 1000).toFixed(2)} s`,
      row.ratio === undefined ? '-' : `${row.ratio.toFixed(2)}x`,
      row.tool === 'rg' ? '-' : `≤ ${row.target}x${row.ratio !== undefined && row.ratio > row.target ? ' MISSED' : ''}`,
      `${row.total.toLocaleString('en-US')}${row.tool !== 'rg' && row.total !== rgTotals.get(row.query) ? ' MISMATCH' : ''}`,
    ]),
    ['rg: rg -c [-F -i] PATTERN TREE; quarry search … --json; quarry mention --json (smart case, as rg -S: "todo" folds)'],
  );
  return { tree, runs, rows, otherBusyCores, loadAverage };
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const runsIndex = argv.indexOf('--runs');
  const runs = argv.includes('--quick') ? 3 : runsIndex === -1 ? undefined : Number(argv[runsIndex + 1]);
  runSearchCliBench({ runs })
    .then((report) => {
      if (report.rows.some((row) => row.tool !== 'rg' && row.total !== report.rows.find((other) => other.tool === 'rg' && other.query === row.query)?.total)) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
