/**
 * (w) The working tree at once, on the Linux tree: what checking for the agent's edits costs per
 * call (a watched WorkingTree's state() with nothing changed, and right after an edit) next to
 * `git status` (what a check without a watcher costs), and the delay from writing a file to the
 * first MCP answer that reflects it — search_text over the whole tree through a spawned
 * `quarry mcp` (with rg on the same tree beside it), without a search index and through the
 * checkout's HEAD index (its build timed, its size read from the manifest), and find_symbol on a
 * sub-tree whose code index is built (the whole kernel's index does not fit the in-process cache).
 *
 * Probe files are written into the tree (`fs/ext4/quarry-probe-*`) and removed at the end.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { WorkingTree } from '../libs/snapshot/src';
import { connectStdio } from '../test/support/mcp';
import { assertBuilt } from '../test/support/processes';
import { ensureLinuxTree } from './linux-tree';
import { latencyStats, ms, num, printTable, type LatencyStats } from './support';

export interface WorkingTreeBenchReport {
  tree: string;
  files: number;
  directoriesWatched: number;
  openMs: number;
  idleCheck: LatencyStats;
  editCheck: LatencyStats;
  gitStatus: LatencyStats;
  /** Write → search_text with no search index (every file read), and rg in the same rounds. */
  searchVisibleCold: LatencyStats;
  rgSearchCold: LatencyStats;
  /** Write → search_text through the checkout's HEAD index (the edit read beside it), and rg in the same rounds. */
  searchVisible: LatencyStats;
  rgSearch: LatencyStats;
  /** The checkout's index as the server built it from its first search. */
  indexBuild?: IndexBuildFigures;
  symbolVisible?: LatencyStats;
  symbolTree?: string;
}

const PROBE_DIRECTORY = 'fs/ext4';

export async function runWorkingTreeBench(options: { quick?: boolean } = {}): Promise<WorkingTreeBenchReport> {
  assertBuilt();
  const root = fs.realpathSync(ensureLinuxTree());
  const rounds = options.quick ? 5 : 20;
  const probes: string[] = [];
  const probe = (name: string) => {
    const file = path.join(root, PROBE_DIRECTORY, `quarry-probe-${process.pid}-${name}`);
    probes.push(file);
    return file;
  };
  try {
    // The library: opening (walk, watches, ls-tree, status), then the check per call.
    const started = performance.now();
    const tree = await WorkingTree.open(root, { environment: { home: os.tmpdir() } });
    const opened = await tree.state();
    const openMs = performance.now() - started;
    const directoriesWatched = tree.watchedDirectories;
    const idle: number[] = [];
    for (let index = 0; index < rounds * 10; index++) {
      const at = performance.now();
      await tree.state();
      idle.push(performance.now() - at);
    }
    const edits: number[] = [];
    const edited = probe('edit.c');
    for (let index = 0; index < rounds; index++) {
      fs.writeFileSync(edited, `int quarry_probe_${index}(void) { return ${index}; }\n`);
      const at = performance.now();
      const state = await tree.state();
      edits.push(performance.now() - at);
      if (!state.changes.some((change) => change.path.endsWith('edit.c'))) throw new Error('the edit was not seen');
    }
    fs.unlinkSync(edited);
    await tree.state();
    tree.close();
    const gitStatus = timed(options.quick ? 2 : 5, () => execFileSync('git', ['-C', root, 'status', '--porcelain=v2', '--untracked-files=all'], { maxBuffer: 1 << 28 }));

    // Through MCP: write, then search for what was written until an answer has it. First with no
    // search index (QUARRY_SEARCH_INDEX=0: every search reads the whole tree), then with the
    // checkout's HEAD index, built by the server from its first search (a fresh data directory).
    const cold = await writeThenSearch(root, probe, 'cold', Math.max(3, rounds / 4), { QUARRY_SEARCH_INDEX: '0' });
    const indexed = await writeThenSearch(root, probe, 'indexed', Math.max(5, rounds / 2), {});

    // find_symbol on a sub-tree: its code index built first, then an edit seen by the next look-up.
    const symbolRoot = path.join(root, PROBE_DIRECTORY);
    const symbolVisible: number[] = [];
    const symbols = await connect(symbolRoot);
    try {
      await call(symbols, 'find_symbol', { name: 'ext4_fill_super', maxTokens: 2_000 }, 600_000);
      for (let index = 0; index < Math.max(3, rounds / 4); index++) {
        const name = `quarry_defined_${process.pid}_${index}`;
        const at = performance.now();
        fs.writeFileSync(probe(`symbol-${index}.c`), `int ${name}(void) { return ${index}; }\n`);
        const answer = await call(symbols, 'find_symbol', { name });
        if (answer.isError) throw new Error(`find_symbol did not see ${name}: ${JSON.stringify(answer.content)}`);
        symbolVisible.push(performance.now() - at);
      }
    } finally {
      await symbols.close();
    }

    const report: WorkingTreeBenchReport = {
      tree: root,
      files: opened.files.size,
      directoriesWatched,
      openMs,
      idleCheck: latencyStats(idle),
      editCheck: latencyStats(edits),
      gitStatus: latencyStats(gitStatus),
      searchVisibleCold: latencyStats(cold.visible),
      rgSearchCold: latencyStats(cold.rg),
      searchVisible: latencyStats(indexed.visible),
      rgSearch: latencyStats(indexed.rg),
      indexBuild: indexed.build,
      symbolVisible: latencyStats(symbolVisible),
      symbolTree: symbolRoot,
    };
    printTable(
      `(w) the working tree at once: ${num(report.files)} files of ${root}`,
      ['what', 'p50', 'p99', 'peer', 'peer p50'],
      [
        ['change check per call, nothing changed (state())', ms(report.idleCheck.p50, 2), ms(report.idleCheck.p99, 2), 'git status', ms(report.gitStatus.p50, 0)],
        ['change check per call, right after an edit', ms(report.editCheck.p50, 2), ms(report.editCheck.p99, 2), 'git status', ms(report.gitStatus.p50, 0)],
        ['write → search_text answer with it, no index (MCP stdio, whole tree)', ms(report.searchVisibleCold.p50, 0), ms(report.searchVisibleCold.p99, 0), 'rg -c -F', ms(report.rgSearchCold.p50, 0)],
        ['write → search_text answer with it, HEAD index + edits (MCP stdio, whole tree)', ms(report.searchVisible.p50, 1), ms(report.searchVisible.p99, 1), 'rg -c -F', ms(report.rgSearch.p50, 0)],
        [`write → find_symbol answer with it (${PROBE_DIRECTORY}/ indexed)`, ms(report.symbolVisible!.p50, 0), ms(report.symbolVisible!.p99, 0), '', ''],
      ],
      [
        `opening the tree (walk, ${num(report.directoriesWatched)} directory watches, git ls-tree, git status): ${ms(openMs, 0)}, once per repository and process`,
        ...(report.indexBuild
          ? [
              `the checkout's search index, built by quarry mcp from its first search: ${ms(report.indexBuild.ms, 0)} until answers came from it; ` +
                `${num(report.indexBuild.files)} files, ${(report.indexBuild.indexBytes / 1e6).toFixed(1)} MB of segments for ${(report.indexBuild.textBytes / 1e6).toFixed(0)} MB of text ` +
                `(${(report.indexBuild.indexBytes / report.indexBuild.textBytes).toFixed(2)}×), ${num(report.indexBuild.segments)} segments; server peak RSS ${(report.indexBuild.peakRssBytes / 1e6).toFixed(0)} MB`,
            ]
          : []),
      ],
    );
    return report;
  } finally {
    for (const file of probes) fs.rmSync(file, { force: true });
  }
}

export interface IndexBuildFigures {
  /** From the first search_text to the first answer read from the index. */
  ms: number;
  files: number;
  textBytes: number;
  indexBytes: number;
  segments: number;
  peakRssBytes: number;
}

/**
 * A spawned `quarry mcp --root ROOT` with its own data directory: with the index on, the first
 * search starts the build, which is waited for (polling a one-directory search, which costs
 * little), then `count` writes each followed by searches for the written token until an answer
 * has it; rg -c -F for the token after each.
 */
async function writeThenSearch(root: string, probe: (name: string) => string, kind: string, count: number, env: Record<string, string>): Promise<{ visible: number[]; rg: number[]; build?: IndexBuildFigures }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-w-'));
  const server = await connectStdio(['--root', root], { QUARRY_LOG_LEVEL: 'warn', QUARRY_DATA_DIR: dataDir, ...env });
  const mcp = server.client;
  const visible: number[] = [];
  const rg: number[] = [];
  let build: IndexBuildFigures | undefined;
  try {
    const started = performance.now();
    const first = await call(mcp, 'search_text', { pattern: 'warm up the walk', maxResults: 1 });
    if (env.QUARRY_SEARCH_INDEX !== '0') {
      for (let answer = first; ; ) {
        const index = (answer.structuredContent as { index?: { read: string; searchIndex?: { state: string } } }).index;
        if (index?.read === 'index') break;
        if (index?.searchIndex?.state === 'none') throw new Error(`the search index was not built: ${JSON.stringify(index)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
        answer = await call(mcp, 'search_text', { pattern: 'ext4_fill_super', directory: PROBE_DIRECTORY, maxResults: 1 });
      }
      const buildMs = performance.now() - started;
      const manifests = path.join(dataDir, 'search-index', 'manifests');
      const manifest = JSON.parse(fs.readFileSync(path.join(manifests, fs.readdirSync(manifests)[0]), 'utf8')) as { files: number; textBytes: number; indexBytes: number; segments: string[] };
      build = { ms: buildMs, files: manifest.files, textBytes: manifest.textBytes, indexBytes: manifest.indexBytes, segments: manifest.segments.length, peakRssBytes: Number.NaN };
    }
    for (let index = 0; index < count; index++) {
      const token = `quarry_written_${kind}_${process.pid}_${index}`;
      const at = performance.now();
      fs.writeFileSync(probe(`search-${kind}-${index}.c`), `/* ${token} */\n`);
      for (;;) {
        const answer = await call(mcp, 'search_text', { pattern: token });
        const content = answer.structuredContent as { totalMatches: number; index?: { read: string } };
        if (build && content.index?.read !== 'index') throw new Error(`an answer did not come from the index: ${JSON.stringify(content.index)}`);
        if (content.totalMatches === 1) break;
      }
      visible.push(performance.now() - at);
      const rgAt = performance.now();
      spawnSync('rg', ['-c', '-F', token, root], { stdio: 'ignore' });
      rg.push(performance.now() - rgAt);
    }
    if (build) build.peakRssBytes = peakRss(server.transport.pid);
  } finally {
    await mcp.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { visible, rg, build };
}

/** A process's peak resident set (VmHWM), or NaN when it cannot be read. */
function peakRss(pid: number | null | undefined): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** `quarry mcp --root ROOT` spawned and connected (the test support's client, logs kept to warnings). */
async function connect(root: string): Promise<Client> {
  return (await connectStdio(['--root', root], { QUARRY_LOG_LEVEL: 'warn' })).client;
}

async function call(client: Client, name: string, args: Record<string, unknown>, timeout = 120_000): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout })) as CallToolResult;
}

function timed(runs: number, task: () => void): number[] {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const at = performance.now();
    task();
    samples.push(performance.now() - at);
  }
  return samples;
}
