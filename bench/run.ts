/**
 * The benchmark driver: `npm run bench` (build, then `node dist/bench/run.js`).
 *
 *   (a) tiny-scan round-trip latency vs bare BullMQ      ┐ bench/service.bench.ts: spawned gateway
 *   (b) tiny-job throughput vs bare BullMQ               │ and workers (node bin/quarry.js …),
 *   (c) 20 scans of 20,000 files on 1 vs 2 processes     ┘ Postgres quarry_bench, own Redis prefix
 *   (d) walk vs `rg --files` (bench/walk.bench.ts, when present)
 *   (f) fetch cache hit through the whole job path (service.bench.ts)
 *   (g) guarded fetch agent vs plain undici; cache-hit library time (bench/fetch.bench.ts)
 *   (e) stack detection vs a gitignore-aware walk of the same tree (bench/detect.bench.ts)
 *   (m) mentions: parse 1 MB of prose, @search/@grep vs ripgrep, cached file load (bench/mentions.bench.ts)
 *   (s) cold search on the Linux tree: `quarry search` / `quarry mention` as whole CLI runs vs rg (bench/search-cli.bench.ts)
 *   (x) MCP: read_file and search_text over stdio vs the same operation in-process (bench/mcp.bench.ts)
 *   (i) code index on Linux fs/: symbols vs ctags, tokenizing MB/s per thread vs gpt-tokenizer, token totals and pack vs Repomix (bench/code-index.bench.ts)
 *   (r) repositories by URL on Linux: first scan vs blobless clone + rg --files; cache-hit repeat vs path scan (bench/snapshot.bench.ts)
 *   (k) the code index by the distributed scan on Linux fs/: 1 vs 2 workers, then pack as a job vs Repomix (bench/code-index-workers.bench.ts)
 *   (t) trigram search index on Linux: build time and size vs the scan; repeat queries through the gateway p50/p99 vs rg (bench/search-index.bench.ts)
 *   (n) code navigation: references vs TypeScript's language service and pyright, Linux query time, impact on history, per-blob cost (bench/navigation.bench.ts)
 *   (w) the working tree at once on Linux: change check per call vs git status, write → visible in search_text and find_symbol over MCP (bench/working-tree.bench.ts)
 *   (l) task-aware retrieval on Linux: the commit's corpus built from stored rows, then context queries p50/p99 (bench/context-linux.ts; not in the
 *       default set: --only l; the rows are built once, ~20 min, into ~/.cache/quarry-bench/linux-context.rows)
 *
 * Options: --only a,b,p,c,d,f,g,e,m,s,x,i,r,h,t,w,n (n is not in the default set: --only n; --n-parts accuracy,linux,impact,cost; --n-half dev|held-out (default held-out: tune on dev only);
 * --n-repos quarry,zod,flask; --n-sample N (default 200);
 * --n-worst N and --n-dump FILE to read the worst queries' misses; --n-oracle-cache to reuse the servers' answers on the pinned commits) (p = Postgres round-trip profile; default: all); --whole-linux
 * to also pack the whole Linux tree in (i) and time its extraction, --i-parts extract,index,tokens,pack,whole,product,scan to run only some of (i) (scan: the first code-indexed `quarry scan --local` of fs/, and of the whole tree with --whole-linux, vs ctags -R, rg and Repomix); --quick for a
 * short smoke run; --pin to pin each scan worker of (c) to its own CPU (taskset). Everything runs on 127.0.0.1; the whole run is
 * bounded by a watchdog, and child processes and queue keys are removed at the end.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SERVICE_OPTIONS, ServiceBenchOptions, ServiceBenchReport, runServiceBench } from './service.bench';
import { describeQuiet, waitForQuiet } from './support';

const WATCHDOG_MS = 12 * 60_000;
const RESULTS_FILE = path.join(os.tmpdir(), 'quarry-bench-last.json');

interface Target {
  figure: string;
  target: string;
  measured: string;
  met: boolean;
}

async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const onlyIndex = argv.indexOf('--only');
  const only = new Set(onlyIndex === -1 ? ['a', 'b', 'p', 'c', 'd', 'f', 'g', 'e', 'm', 's', 'x', 'i', 'r', 'h', 'k', 't', 'w'] : (argv[onlyIndex + 1] ?? '').split(','));
  const started = Date.now();
  // Packing the whole kernel cold (--whole-linux) takes many minutes on its own.
  const watchdogMs = argv.includes('--whole-linux') || argv.includes('--k-linux') || /whole/.test(argv[argv.indexOf('--i-parts') + 1] ?? '') ? 3 * WATCHDOG_MS : WATCHDOG_MS;
  const watchdog = setTimeout(() => {
    console.error(`\nbench: watchdog — still running after ${watchdogMs / 60_000} min, giving up (children are killed on exit)`);
    process.exit(3);
  }, watchdogMs);
  watchdog.unref();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

  printMachine();
  const results: { service?: ServiceBenchReport; walk?: unknown; fetch?: unknown; detect?: unknown; mentions?: unknown; mcp?: unknown; codeIndex?: unknown; searchCli?: unknown; snapshot?: unknown } = {};
  const targets: Target[] = [];

  if (only.has('a') || only.has('b') || only.has('c') || only.has('p') || only.has('f')) {
    const parts = { a: only.has('a'), b: only.has('b'), p: only.has('p'), c: only.has('c'), f: only.has('f') };
    const pinScanWorkers = argv.includes('--pin');
    const options: ServiceBenchOptions = quick
      ? { ...DEFAULT_SERVICE_OPTIONS, parts, pinScanWorkers, latencyJobs: 50, latencyWarmup: 10, throughputJobs: 500, scans: 4, profileSequentialJobs: 20, profileConcurrentJobs: 100 }
      : { ...DEFAULT_SERVICE_OPTIONS, parts, pinScanWorkers };
    const service = await runServiceBench(options);
    results.service = service;
    const { latency, throughput, scaling } = service;
    if (latency) {
      targets.push(
        {
          figure: '(a) tiny scan p50, POST → job.completed',
          target: '≤ 10 ms',
          measured: `${latency.service.p50.toFixed(2)} ms (bare BullMQ ${latency.bare.p50.toFixed(2)} ms)`,
          met: latency.service.p50 <= 10,
        },
        {
          figure: '(a) tiny scan p99, POST → job.completed',
          target: '≤ 40 ms',
          measured: `${latency.service.p99.toFixed(2)} ms (bare BullMQ ${latency.bare.p99.toFixed(2)} ms)`,
          met: latency.service.p99 <= 40,
        },
      );
    }
    if (throughput) {
      targets.push({
        figure: `(b) throughput, ${throughput.service.jobs} tiny jobs, batch submit`,
        target: '≥ 1,000 jobs/s',
        measured: `${Math.round(throughput.service.jobsPerSecond)} jobs/s (single POSTs ${Math.round(throughput.single.jobsPerSecond)}; bare BullMQ ${Math.round(throughput.bare.jobsPerSecond)} jobs/s)`,
        met: throughput.service.jobsPerSecond >= 1_000,
      });
    }
    if (scaling) {
      targets.push({
        figure: `(c) ${options.scans} scans, 2 processes vs 1`,
        target: '≥ 1.7x',
        measured: `${scaling.ratio.toFixed(2)}x (${scaling.one.seconds.toFixed(1)} s → ${scaling.two.seconds.toFixed(1)} s)`,
        met: scaling.ratio >= 1.7,
      });
    }
  }

  if (only.has('d')) {
    const walkModule = path.join(__dirname, 'walk.bench.js');
    if (fs.existsSync(walkModule)) {
      console.log('\n(d) walk vs rg --files (bench/walk.bench.ts)');
      console.log(`  ${describeQuiet(await waitForQuiet())}`);
      const { runWalkBench } = require(walkModule) as { runWalkBench: () => Promise<unknown> };
      results.walk = await runWalkBench();
    } else {
      console.log('\n(d) skipped: bench/walk.bench.ts is not built');
    }
  }

  if (only.has('g')) {
    console.log('\n(g) fetch: guarded agent vs plain undici, and cache-hit library time (bench/fetch.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runFetchBench, DEFAULT_FETCH_OPTIONS } = await import('./fetch.bench');
    results.fetch = await runFetchBench(quick ? { ...DEFAULT_FETCH_OPTIONS, requests: 300, freshConnectionRequests: 100, slowOriginRequests: 50, rounds: 2, cacheHits: 2_000 } : DEFAULT_FETCH_OPTIONS);
  }

  if (only.has('e')) {
    console.log('\n(e) stack detection vs a walk of the same tree (bench/detect.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runDetectBench } = await import('./detect.bench');
    const detect = await runDetectBench({ quick });
    results.detect = detect;
    targets.push(
      { figure: '(e) detect, single-service repo, median', target: '< 5 ms', measured: `${detect.single.detectMedianMs.toFixed(2)} ms`, met: detect.single.detectMedianMs < 5 },
      { figure: '(e) detect, 1,000-package monorepo, median', target: '< 500 ms', measured: `${detect.monorepo.detectMedianMs.toFixed(1)} ms`, met: detect.monorepo.detectMedianMs < 500 },
      ...[detect.single, detect.monorepo].map((row) => ({
        figure: `(e) detect / walk, ${row.tree}`,
        target: '≤ 2x',
        measured: `${row.ratio.toFixed(2)}x (walk ${row.walkMedianMs.toFixed(2)} ms)`,
        met: row.ratio <= 2,
      })),
    );
  }

  if (only.has('m')) {
    console.log('\n(m) mentions: parse, @search/@grep vs ripgrep, cached file load (bench/mentions.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runMentionsBench } = await import('./mentions.bench');
    const mentions = await runMentionsBench({ quick });
    results.mentions = mentions;
    const { parse, cachedLoad } = mentions;
    targets.push(
      {
        figure: `(m) parse ${(parse.bytes / 1e6).toFixed(1)} MB, ${parse.written} mentions, median`,
        target: '< 10 ms',
        measured: `${parse.stats.p50.toFixed(2)} ms (${parse.found} found)`,
        met: parse.stats.p50 < 10 && parse.found === parse.written,
      },
      // Rows without ripgrep have no ratio: the search bench said why, and there is no figure to judge.
      ...mentions.search.rows.flatMap((row) =>
        row.ratio === undefined
          ? []
          : [
              {
                figure: `(m) ${row.mode === 'literal' ? '@search' : '@grep'} / rg, ${path.basename(row.tree)} (${row.filesSearched.toLocaleString('en-US')} files)`,
                target: `≤ ${row.target}x`,
                measured: `${row.ratio.toFixed(2)}x (${row.seconds.toFixed(2)} s vs ${row.rgSeconds?.toFixed(2)} s${row.countsMatch ? '' : ', COUNTS DIFFER'})`,
                met: row.ratio <= row.target && row.countsMatch === true,
              },
            ],
      ),
      {
        figure: `(m) cached file mention load (${(cachedLoad.fileBytes / 1024).toFixed(0)} KB), median`,
        target: '< 0.2 ms',
        measured: `${cachedLoad.stats.p50.toFixed(3)} ms (p99 ${cachedLoad.stats.p99.toFixed(3)} ms)`,
        met: cachedLoad.stats.p50 < 0.2 && cachedLoad.misses === 0,
      },
    );
  }

  if (only.has('x')) {
    console.log('\n(x) MCP: read_file and search_text over stdio vs in-process (bench/mcp.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runMcpBench } = await import('./mcp.bench');
    const mcp = await runMcpBench({ quick });
    results.mcp = mcp;
    targets.push(
      ...mcp.rows.map((row) => ({
        figure: `(x) ${row.tool} over MCP stdio, ${row.call}: overhead p50`,
        target: '≤ 5 ms',
        measured: `${row.overheadP50.toFixed(2)} ms (MCP ${row.mcp.p50.toFixed(2)} ms, in-process ${row.library.p50.toFixed(2)} ms)`,
        met: row.overheadP50 <= 5,
      })),
    );
  }

  if (only.has('s')) {
    console.log('\n(s) cold search on the Linux tree, whole CLI invocations vs rg (bench/search-cli.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runSearchCliBench } = await import('./search-cli.bench');
    const report = await runSearchCliBench({ runs: quick ? 3 : 7 });
    results.searchCli = report;
    const rgTotal = (query: string) => report.rows.find((row) => row.tool === 'rg' && row.query === query)?.total;
    targets.push(
      ...report.rows
        .filter((row) => row.ratio !== undefined)
        .map((row) => ({
          figure: `(s) ${row.tool} ${row.query} vs rg, whole CLI, median wall`,
          target: `≤ ${row.target}x, counts equal`,
          measured: `${row.ratio!.toFixed(2)}x (${(row.wallMedianMs / 1000).toFixed(2)} s; ${row.total} vs ${rgTotal(row.query)} lines; others' load ${report.otherBusyCores.toFixed(2)} cores)`,
          met: row.ratio! <= row.target && row.total === rgTotal(row.query),
        })),
    );
  }

  if (only.has('r')) {
    console.log('\n(r) repositories by URL on Linux: first scan vs blobless clone + rg; cache-hit repeat vs path scan (bench/snapshot.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runSnapshotBench } = await import('./snapshot.bench');
    const snapshot = await runSnapshotBench();
    results.snapshot = snapshot;
    const overhead = snapshot.repeatScanMs - snapshot.localScanMs;
    targets.push({
      figure: '(r) repeat job on the same commit vs a path scan of the checkout',
      target: '≤ 1.3x and ≤ 50 ms overhead',
      measured: `${(snapshot.repeatScanMs / snapshot.localScanMs).toFixed(2)}x, ${overhead >= 0 ? '+' : ''}${overhead.toFixed(0)} ms (${snapshot.repeatScanMs.toFixed(0)} vs ${snapshot.localScanMs.toFixed(0)} ms)`,
      met: snapshot.repeatScanMs <= 1.3 * snapshot.localScanMs && overhead <= 50 && snapshot.countsMatch,
    });
  }

  if (only.has('t')) {
    console.log('\n(t) trigram search index on Linux: build and size vs the scan; repeat queries through the gateway vs rg (bench/search-index.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runSearchIndexBench } = await import('./search-index.bench');
    const index = await runSearchIndexBench();
    (results as Record<string, unknown>).searchIndex = index;
    const overhead = index.scanWithIndexMs / index.scanMs - 1;
    targets.push(
      {
        figure: '(t) first scan of Linux by URL: time the index adds',
        target: '≤ 50%',
        measured: `${(overhead * 100).toFixed(0)}% wall (${(index.scanWithIndexMs / 1000).toFixed(1)} s vs ${(index.scanMs / 1000).toFixed(1)} s without; worker CPU ${(index.scanWithIndexCpuMs / 1000).toFixed(1)} vs ${(index.scanCpuMs / 1000).toFixed(1)} s; peak RSS ${index.workerPeakRssMB} MB)`,
        met: overhead <= 0.5,
      },
      {
        figure: '(t) index size / text covered',
        target: '≤ 1.5x',
        measured: `${(index.indexBytes / index.textBytes).toFixed(2)}x (${(index.indexBytes / 1e6).toFixed(0)} MB for ${(index.textBytes / 1e6).toFixed(0)} MB, ${index.segments} segments)`,
        met: index.indexBytes <= 1.5 * index.textBytes,
      },
      ...index.rows
        .filter((row) => row.selective)
        .flatMap((row) => [
          {
            figure: `(t) ${row.label} ${row.pattern} through the gateway, p50 / rg`,
            target: '≤ 0.25x, totals equal',
            measured: `${(row.stats.p50 / row.rgMs).toFixed(3)}x (${row.stats.p50.toFixed(1)} ms vs rg ${row.rgMs.toFixed(0)} ms; ${row.total} vs ${row.rgTotal} lines)`,
            met: row.stats.p50 <= 0.25 * row.rgMs && row.total === row.rgTotal && row.indexed,
          },
          { figure: `(t) ${row.label} ${row.pattern}, p99`, target: '≤ 100 ms', measured: `${row.stats.p99.toFixed(1)} ms (gateway peak RSS ${index.gatewayPeakRssMB} MB)`, met: row.stats.p99 <= 100 },
        ]),
    );
  }

  if (only.has('h')) {
    console.log('\n(h) one scan across worker processes on Linux: 1 vs 2 workers, one-file re-scan, vs rg -c, RSS (bench/shards.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runShardsBench } = await import('./shards.bench');
    const shards = await runShardsBench({ four: argv.includes('--h-four') });
    (results as Record<string, unknown>).shards = shards;
    const one = shards.rows.find((row) => row.workers === 1);
    const two = shards.rows.find((row) => row.workers === 2);
    if (one && two) {
      targets.push({ figure: '(h) first scan of Linux by URL, 2 workers vs 1', target: '≥ 1.8x', measured: `${(one.ms / two.ms).toFixed(2)}x (${(one.ms / 1000).toFixed(1)} s vs ${(two.ms / 1000).toFixed(1)} s)`, met: one.ms / two.ms >= 1.8 && shards.countsMatch });
      targets.push({ figure: '(h) first scan, 1 worker / rg -c', target: '≤ 1.5x', measured: `${(one.ms / shards.rgMs).toFixed(2)}x (${(one.ms / 1000).toFixed(1)} s vs ${(shards.rgMs / 1000).toFixed(1)} s; by path ${(shards.pathScanMs / 1000).toFixed(1)} s)`, met: one.ms <= 1.5 * shards.rgMs });
      const rss = Math.max(...shards.rows.flatMap((row) => row.peakRssMB));
      targets.push({ figure: '(h) peak RSS per worker', target: '< 300 MB', measured: `${rss} MB`, met: rss < 300 });
    }
    targets.push({ figure: '(h) re-scan of the checkout by path, one file added', target: '< 1 s', measured: `${shards.pathRescanMs.toFixed(0)} ms (${JSON.stringify(shards.pathRescanBlobs)}); first scan by path ${(shards.pathScanMs / 1000).toFixed(1)} s`, met: shards.pathRescanMs < 1_000 });
    targets.push({ figure: '(h) re-scan after a one-file commit', target: '< 1 s', measured: `${shards.rescanMs.toFixed(0)} ms median of ${shards.rescans.map((ms, index) => `${ms.toFixed(0)}${shards.rescansUpdated[index] ? '*' : ''}`).join(', ')} (* updated a remembered scan; ${JSON.stringify(shards.rescanBlobs)})`, met: shards.rescanMs < 1_000 });
  }

  if (only.has('k')) {
    console.log('\n(k) the code index by the distributed scan on Linux fs/: 1 vs 2 workers, pack job vs Repomix, RSS (bench/code-index-workers.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runCodeIndexWorkersBench } = await import('./code-index-workers.bench');
    const indexed = await runCodeIndexWorkersBench({ whole: argv.includes('--k-whole'), linux: argv.includes('--k-linux') });
    (results as Record<string, unknown>).codeIndexWorkers = indexed;
    const one = indexed.rows.find((row) => row.workers === 1);
    const two = indexed.rows.find((row) => row.workers === 2);
    if (one && two) {
      targets.push({ figure: '(k) code index of fs/ by the scan, 2 workers vs 1', target: '≥ 1.8x', measured: `${(one.ms / two.ms).toFixed(2)}x (${(one.ms / 1000).toFixed(1)} s vs ${(two.ms / 1000).toFixed(1)} s; ${one.mbpsPerWorker.toFixed(2)} MB/s per worker alone)`, met: one.ms / two.ms >= 1.8 && indexed.totalsMatch });
    }
    targets.push({ figure: '(k) pack of fs/ as a job on 2 workers / Repomix', target: '≤ 0.5x', measured: `${(indexed.pack.ms / indexed.repomix.ms).toFixed(2)}x (${(indexed.pack.ms / 1000).toFixed(2)} s vs ${(indexed.repomix.ms / 1000).toFixed(2)} s)`, met: indexed.pack.ms <= 0.5 * indexed.repomix.ms });
    const rss = Math.max(...indexed.rows.flatMap((row) => row.peakRssMB), ...indexed.pack.peakRssMB, ...(indexed.whole?.peakRssMB ?? []));
    targets.push({ figure: '(k) peak RSS per worker (scan, pack' + (indexed.whole ? ', whole-Linux pack)' : ')'), target: '< 500 MB', measured: `${rss} MB`, met: rss < 500 });
  }

  if (only.has('i')) {
    console.log('\n(i) code index on Linux fs/: symbols vs ctags, tokenizers, tokens and pack vs Repomix (bench/code-index.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runCodeIndexBench } = await import('./code-index.bench');
    const partsIndex = argv.indexOf('--i-parts');
    const parts = partsIndex === -1 ? undefined : ((argv[partsIndex + 1] ?? '').split(',') as NonNullable<Parameters<typeof runCodeIndexBench>[0]>['parts']);
    const codeIndex = await runCodeIndexBench({ quick, wholeTree: argv.includes('--whole-linux'), parts });
    results.codeIndex = codeIndex;
    const tokenizer = codeIndex.tokenizer;
    if (tokenizer !== undefined) {
      const ratio = tokenizer.quarry.MBps / tokenizer.gpt.MBps;
      targets.push({
        figure: '(i) tokenizing MB/s per thread, Linux fs/, o200k_base: ours / gpt-tokenizer',
        target: '≥ 3x, counts identical',
        measured: `${ratio.toFixed(2)}x (${tokenizer.quarry.MBps.toFixed(1)} vs ${tokenizer.gpt.MBps.toFixed(1)} MB/s; ${tokenizer.gptDisagreements} files differ)`,
        met: ratio >= 3 && tokenizer.gptDisagreements === 0,
      });
    }
    for (const extract of [codeIndex.extract, codeIndex.extractWhole]) {
      if (extract === undefined) continue;
      const whole = extract === codeIndex.extractWhole;
      const peer = whole ? extract.ctagsAll : extract.ctagsFunctions;
      const ratio = extract.now.cpuSeconds / peer.cpuSeconds;
      targets.push({
        figure: whole ? '(i) parse + extraction, whole Linux tree, 1 thread / ctags -R (CPU)' : '(i) parse + extraction, Linux fs/, 1 thread / ctags --kinds-C=f (CPU)',
        target: whole ? '≤ 1.5x (issue 33, with tokens)' : '≤ 5x (issue 33, with tokens)',
        measured: `${ratio.toFixed(1)}x (${extract.now.cpuSeconds.toFixed(2)} vs ${peer.cpuSeconds.toFixed(2)} CPU-s; ${extract.now.MBps.toFixed(1)} MB/s${extract.before ? `; before ${extract.before.cpuSeconds.toFixed(2)} CPU-s` : ''})`,
        met: ratio <= (whole ? 1.5 : 5),
      });
    }
    for (const scan of codeIndex.scans ?? []) {
      const whole = scan.dir === '.';
      const ratio = scan.quarry.seconds / scan.ctags.seconds;
      targets.push({
        figure: whole ? '(i) first code-indexed scan, whole Linux tree, in process / ctags -R (wall)' : '(i) first code-indexed scan, Linux fs/, in process / ctags -R (wall)',
        target: whole ? '≤ 1.5x (issue 33)' : '≤ 5x (issue 33)',
        measured: `${ratio.toFixed(2)}x (${scan.quarry.seconds.toFixed(1)} vs ${scan.ctags.seconds.toFixed(1)} s)`,
        met: scan.quarry.error === undefined && ratio <= (whole ? 1.5 : 5),
      });
      if (whole)
        targets.push({ figure: '(i) first code-indexed scan, whole Linux tree, in process: peak RSS', target: '≤ 1,024 MB (issue 33)', measured: `${scan.quarry.maxRssMB} MB`, met: (scan.quarry.maxRssMB ?? Infinity) <= 1024 });
    }
    targets.push(
      ...(codeIndex.tokens ?? []).map((row) => ({
        figure: `(i) token total vs Repomix, ${row.label}`,
        target: 'within 0.5%',
        measured: `${(row.difference * 100).toFixed(3)}% (${row.quarry.toLocaleString('en-US')} vs ${row.repomix.toLocaleString('en-US')})`,
        met: Math.abs(row.difference) <= 0.005,
      })),
    );
    const pack = codeIndex.pack;
    if (pack !== undefined) {
      targets.push({
        figure: '(i) pack fs/ XML, tokens and secrets known, 1 process / Repomix',
        target: '≤ 0.5x (issue: 2 workers)',
        measured: `${(pack.indexed.seconds / pack.repomix.seconds).toFixed(2)}x (${pack.indexed.seconds.toFixed(1)} s vs ${pack.repomix.seconds.toFixed(1)} s; cold ${pack.quarry.seconds.toFixed(1)} s)`,
        met: pack.indexed.seconds <= 0.5 * pack.repomix.seconds,
      });
    }
    const product = codeIndex.product;
    if (product !== undefined) {
      targets.push({
        figure: '(i) quarry pack, whole Linux tree, heap cap 192 MB: peak RSS',
        target: '< 500 MB',
        measured: `${product.packWhole.maxRssMB} MB (${product.packWhole.seconds.toFixed(0)} s${product.packWhole.error ? ', failed' : ''})`,
        met: !product.packWhole.error && (product.packWhole.maxRssMB ?? Infinity) < 500,
      });
    }
    if (codeIndex.whole !== undefined) {
      targets.push({ figure: '(i) whole Linux tree packed, streamed: peak RSS', target: '< 500 MB', measured: `${codeIndex.whole.maxRssMB} MB (${codeIndex.whole.seconds.toFixed(0)} s)`, met: codeIndex.whole.maxRssMB < 500 });
    }
  }

  if (only.has('w')) {
    console.log('\n(w) the working tree at once on the Linux tree (bench/working-tree.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runWorkingTreeBench } = await import('./working-tree.bench');
    const report = await runWorkingTreeBench({ quick });
    (results as Record<string, unknown>).workingTree = report;
    targets.push(
      {
        figure: '(w) change check per call on the Linux tree, p50 (after an edit)',
        target: '≤ 20 ms',
        measured: `${report.editCheck.p50.toFixed(2)} ms (nothing changed ${report.idleCheck.p50.toFixed(2)} ms; git status ${report.gitStatus.p50.toFixed(0)} ms)`,
        met: report.editCheck.p50 <= 20,
      },
      {
        figure: '(w) write → first search_text answer with it, Linux tree, p50',
        target: '< 1 s',
        measured: `${report.searchVisible.p50.toFixed(0)} ms through the HEAD index (rg -c ${report.rgSearch.p50.toFixed(0)} ms; no index ${report.searchVisibleCold.p50.toFixed(0)} ms)`,
        met: report.searchVisible.p50 < 1_000,
      },
    );
    if (report.symbolVisible) {
      targets.push({ figure: `(w) write → first find_symbol answer with it, ${path.basename(report.symbolTree ?? '')}/ indexed, p50`, target: '< 1 s', measured: `${report.symbolVisible.p50.toFixed(0)} ms`, met: report.symbolVisible.p50 < 1_000 });
    }
  }

  if (only.has('l')) {
    console.log('\n(l) task-aware retrieval on Linux: corpus from stored rows, then context queries (bench/context-linux.ts)');
    const { ensureLinuxTree } = await import('./linux-tree');
    const linux = ensureLinuxTree((line) => console.log(line));
    const rows = path.join(os.homedir(), '.cache/quarry-bench/linux-context.rows');
    const child = (args: string[]) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=1024', path.join(__dirname, 'context-linux.js'), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n').pop()!);
    if (!fs.existsSync(rows)) console.log(`  index: ${JSON.stringify(child(['index', linux, rows]))}`);
    const query = child(['query', linux, rows, '3']) as { rank: { p50: number; p99: number }; answer: { p50: number; p99: number }; maxRssMB: number };
    console.log(`  query: ${JSON.stringify(query)}`);
    targets.push({ figure: '(l) context query on an indexed Linux commit, whole answer p50', target: '≤ 1,000 ms (issue 30)', measured: `${Math.round(query.answer.p50)} ms (p99 ${Math.round(query.answer.p99)} ms; rank p50 ${Math.round(query.rank.p50)} ms)`, met: query.answer.p50 <= 1000 });
  }

  if (only.has('n')) {
    console.log('\n(n) code navigation: references vs language servers, Linux queries, impact on history, per-blob cost (bench/navigation.bench.ts)');
    console.log(`  ${describeQuiet(await waitForQuiet())}`);
    const { runNavigationBench } = await import('./navigation.bench');
    const partsIndex = argv.indexOf('--n-parts');
    const parts = partsIndex === -1 ? undefined : ((argv[partsIndex + 1] ?? '').split(',') as NonNullable<Parameters<typeof runNavigationBench>[0]>['parts']);
    const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
    const half = value('--n-half');
    if (half !== undefined && half !== 'dev' && half !== 'held-out') throw new Error(`--n-half ${half}: dev or held-out`);
    const navigation = await runNavigationBench({
      parts,
      sample: value('--n-sample') === undefined ? (quick ? 40 : 200) : Number(value('--n-sample')),
      half,
      repositories: value('--n-repos')?.split(',') as NonNullable<Parameters<typeof runNavigationBench>[0]>['repositories'],
      worst: value('--n-worst') === undefined ? undefined : Number(value('--n-worst')),
      oracleCache: argv.includes('--n-oracle-cache'),
    });
    const dump = value('--n-dump');
    if (dump !== undefined) fs.writeFileSync(dump, JSON.stringify(navigation.accuracy, null, 2));
    (results as Record<string, unknown>).navigation = navigation;
    for (const row of navigation.accuracy) {
      const sample = `${row.queries} ${half === 'dev' ? 'DEVELOPMENT-half' : 'held-out'} definitions`;
      targets.push({
        figure: `(n) references vs ${row.oracle}, ${row.repository} (${sample}; every use, guessed ones marked)`,
        target: 'recall ≥ 90%, precision ≥ 85%',
        measured: `recall ${(row.recall * 100).toFixed(1)}%, precision ${(row.precision * 100).toFixed(1)}% (p50 ${row.oursMs.p50.toFixed(2)} ms vs ${row.oracleMs.p50.toFixed(1)} ms)`,
        met: row.recall >= 0.9 && row.precision >= 0.85,
      });
      targets.push({
        figure: `(n) references vs ${row.oracle}, ${row.repository} (${sample}; guessed: false)`,
        target: 'recall ≥ 90%, precision ≥ 85%',
        measured: `recall ${(row.certainRecall * 100).toFixed(1)}%, precision ${(row.certainPrecision * 100).toFixed(1)}%`,
        met: row.certainRecall >= 0.9 && row.certainPrecision >= 0.85,
      });
    }
    if (navigation.linux) {
      const { query } = navigation.linux;
      targets.push({ figure: '(n) references on an indexed Linux commit, p50 per query', target: '≤ 50 ms', measured: `${query.references.p50.toFixed(1)} ms (p99 ${query.references.p99.toFixed(0)} ms; rg -w ${query.rg.p50.toFixed(0)} ms)`, met: query.references.p50 <= 50 });
    }
  }

  if (targets.length) {
    console.log('\ntargets');
    const widths = [0, 1, 2].map((column) => Math.max(...targets.map((t) => [t.figure, t.target, t.measured][column].length)));
    for (const t of targets) {
      console.log(`  ${t.figure.padEnd(widths[0])}  ${t.target.padEnd(widths[1])}  ${t.measured.padEnd(widths[2])}  ${t.met ? 'met' : 'MISSED'}`);
    }
  }
  fs.writeFileSync(RESULTS_FILE, JSON.stringify({ at: new Date().toISOString(), machine: machine(), results, targets }, null, 2));
  console.log(`\nbench finished in ${((Date.now() - started) / 1000).toFixed(0)} s; raw figures in ${RESULTS_FILE}`);
  clearTimeout(watchdog);
  return 0;
}

function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

function printMachine(): void {
  const m = machine();
  console.log(`quarry bench — ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.platform}`);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  ).finally(() => {
    // A lingering keep-alive socket must not hold the run open; output gets time to flush.
    setTimeout(() => process.exit(), 2_000).unref();
  });
}
