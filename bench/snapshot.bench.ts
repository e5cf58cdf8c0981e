/**
 * (r) Repositories by URL, on the Linux tree served by a local `git http-backend`:
 *
 *   - first scan of the URL (resolve, blobless commit fetch, one batch blob fetch, measure every
 *     blob) vs `git clone --filter=blob:none` + `rg --files` of the same URL from the same server;
 *   - a repeat job on the same commit (a fresh provider: the ref looked up again, the cache on
 *     disk reused) vs a scan of the local checkout by path. Targets: ≤ 1.3× and ≤ 50 ms overhead.
 *
 *   node dist/bench/snapshot.bench.js
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { referenceScan, directorySource } from '../libs/workspace/src/testing/reference-scan';
import { SnapshotProvider } from '../libs/snapshot/src';
import { GitHttpServer } from '../libs/snapshot/src/testing/git-http-server';
import { ensureLinuxTree } from './linux-tree';
import { ms, num, printTable } from './support';

const RUNS = 3;
const run = promisify(execFile);

export interface SnapshotBenchReport {
  files: number;
  commit: string;
  firstScanMs: number;
  firstScanParts: Record<string, number>;
  peerCloneMs: number;
  peerRgMs: number;
  repeatScanMs: number;
  localScanMs: number;
  countsMatch: boolean;
  refLookupsOnRepeat: number;
  fetchesOnRepeat: number;
}

export async function runSnapshotBench(): Promise<SnapshotBenchReport> {
  const tree = ensureLinuxTree();
  const server = await GitHttpServer.start(path.dirname(tree));
  const url = server.url(path.basename(tree));
  const work = mkdtempSync(path.join(os.tmpdir(), 'quarry-snapshot-bench-'));
  try {
    // Peer: a blobless clone with its checkout (which fetches the blobs of HEAD), then rg --files.
    const peerStarted = performance.now();
    // Asynchronous: the git server answering it runs in this process.
    await run('git', ['-c', 'protocol.version=2', 'clone', '-q', '--filter=blob:none', '--no-tags', url, path.join(work, 'peer')], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, maxBuffer: 1 << 30 });
    const peerCloneMs = performance.now() - peerStarted;
    const rgStarted = performance.now();
    const listed = (await run('rg', ['--files', '--hidden', '--glob', '!.git', path.join(work, 'peer')], { maxBuffer: 1 << 30 })).stdout.split('\n').length - 1;
    const peerRgMs = performance.now() - rgStarted;
    rmSync(path.join(work, 'peer'), { recursive: true, force: true });

    // Ours, first scan: an empty data directory.
    const dataDir = path.join(work, 'data');
    const parts: Record<string, number> = {};
    const first = new SnapshotProvider({ workspaceRoots: [], git: { dataDir, allow: ['127.0.0.1/32'] } });
    let mark = performance.now();
    const lap = (name: string) => {
      const now = performance.now();
      parts[name] = now - mark;
      mark = now;
    };
    const started = performance.now();
    const source = await first.resolve({ git: url });
    lap('resolve (ls-remote)');
    const snapshot = await first.open(source);
    lap('commit + trees (blobless fetch), ls-tree');
    const byUrl = await referenceScan(snapshot);
    lap('walk + blob fetch + measure');
    const firstScanMs = performance.now() - started;
    await first.close();

    // The repeat job: a new provider (as a new job in another process would have), same data dir.
    let repeatScanMs = Infinity;
    let refLookupsOnRepeat = 0;
    let fetchesOnRepeat = 0;
    let repeat = byUrl;
    for (let run = 0; run < RUNS; run++) {
      const provider = new SnapshotProvider({ workspaceRoots: [], git: { dataDir, allow: ['127.0.0.1/32'] } });
      const fetchesBefore = server.fetches().length;
      const lookupsBefore = server.lookups().length;
      const runStarted = performance.now();
      repeat = await referenceScan(await provider.open(await provider.resolve({ git: url })));
      repeatScanMs = Math.min(repeatScanMs, performance.now() - runStarted);
      refLookupsOnRepeat = server.lookups().length - lookupsBefore;
      fetchesOnRepeat = server.fetches().length - fetchesBefore;
      await provider.close();
    }

    let localScanMs = Infinity;
    let byPath = byUrl;
    for (let run = 0; run < RUNS; run++) {
      const runStarted = performance.now();
      byPath = await referenceScan(directorySource(tree));
      localScanMs = Math.min(localScanMs, performance.now() - runStarted);
    }
    const same = (a: typeof byUrl, b: typeof byUrl) => a.files === b.files && a.lines === b.lines && a.bytes === b.bytes && JSON.stringify(a.languages) === JSON.stringify(b.languages);
    const countsMatch = same(byUrl, byPath) && same(repeat, byPath);
    if (!countsMatch) console.error(`\n!!! URL scan ${byUrl.files} files / ${byUrl.lines} lines, path scan ${byPath.files} / ${byPath.lines} !!!\n`);

    printTable(
      `(r) repositories by URL: Linux 6.1 (${num(byUrl.files)} files) over local git http-backend`,
      ['what', 'time', 'vs peer'],
      [
        ['git clone --filter=blob:none (with checkout)', ms(peerCloneMs, 0), ''],
        ['  + rg --files', ms(peerRgMs, 0), `${num(listed)} files`],
        ['first scan of the URL (clone + scan)', ms(firstScanMs, 0), `${(firstScanMs / (peerCloneMs + peerRgMs)).toFixed(2)}x clone+rg`],
        ...Object.entries(parts).map(([name, value]) => [`  ${name}`, ms(value, 0), '']),
        ['scan of the checkout by path', ms(localScanMs, 0), `best of ${RUNS}`],
        ['repeat job, same commit (cache hit)', ms(repeatScanMs, 0), `${(repeatScanMs / localScanMs).toFixed(2)}x path scan, ${repeatScanMs - localScanMs >= 0 ? '+' : ''}${(repeatScanMs - localScanMs).toFixed(0)} ms`],
      ],
      [
        `repeat: ${refLookupsOnRepeat} ref look-up, ${fetchesOnRepeat} fetches; counts equal to the path scan: ${countsMatch}`,
        `commit ${source.commit}`,
      ],
    );
    return { files: byUrl.files, commit: source.commit, firstScanMs, firstScanParts: parts, peerCloneMs, peerRgMs, repeatScanMs, localScanMs, countsMatch, refLookupsOnRepeat, fetchesOnRepeat };
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runSnapshotBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
