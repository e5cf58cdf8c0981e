import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, parentPort, workerData } from 'node:worker_threads';

/**
 * The Linux kernel tree the heavy benchmarks run on (DESIGN.md's recipe): Debian's
 * linux-source-6.1 package, unpacked, the block Debian appends to the top-level .gitignore
 * removed (it ignores the whole tree), committed as one git commit. Prepared once, when missing,
 * at `QUARRY_BENCH_LINUX` (default ~/.cache/quarry-bench/linux-6.1).
 */
export const LINUX_TREE = process.env.QUARRY_BENCH_LINUX ?? path.join(os.homedir(), '.cache/quarry-bench/linux-6.1');

export function ensureLinuxTree(log: (line: string) => void = console.log): string {
  if (fs.existsSync(path.join(LINUX_TREE, '.git'))) return LINUX_TREE;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-linux-'));
  try {
    log(`  preparing the Linux tree at ${LINUX_TREE} (apt-get download linux-source-6.1; a few minutes, once)`);
    try {
      execFileSync('apt-get', ['download', 'linux-source-6.1'], { cwd: work, stdio: 'ignore' });
    } catch {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
      execFileSync('apt-get', ['download', 'linux-source-6.1'], { cwd: work, stdio: 'ignore' });
    }
    const deb = fs.readdirSync(work).find((name) => name.endsWith('.deb'))!;
    execFileSync('dpkg-deb', ['-x', deb, 'unpacked'], { cwd: work });
    const tarball = fs.readdirSync(path.join(work, 'unpacked/usr/src')).find((name) => /^linux-source-.*\.tar\.xz$/.test(name))!;
    fs.mkdirSync(path.dirname(LINUX_TREE), { recursive: true });
    execFileSync('tar', ['-xf', path.join(work, 'unpacked/usr/src', tarball), '-C', work]);
    const unpacked = fs.readdirSync(work).find((name) => name.startsWith('linux-source-') && fs.statSync(path.join(work, name)).isDirectory())!;
    fs.renameSync(path.join(work, unpacked), LINUX_TREE);
    const gitignore = path.join(LINUX_TREE, '.gitignore');
    const text = fs.readFileSync(gitignore, 'utf8');
    const debian = text.indexOf('# Debian packaging');
    if (debian !== -1) fs.writeFileSync(gitignore, text.slice(0, debian));
    const git = (...args: string[]) => execFileSync('git', ['-C', LINUX_TREE, ...args], { stdio: 'ignore', maxBuffer: 1 << 30 });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '-m', 'linux 6.1 source');
    return LINUX_TREE;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Tracked regular files under a directory of the tree (root-relative): no symlinks, no submodules. */
export function trackedFiles(root: string, under: string): string[] {
  return execFileSync('git', ['-C', root, 'ls-files', '-s', '-z', '--', under], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .split('\0')
    .filter((entry) => entry.startsWith('100'))
    .map((entry) => entry.slice(entry.indexOf('\t') + 1));
}

/**
 * Indexes `files` of `root` on up to four worker threads running `script` (the caller's module),
 * files dealt round-robin; `onRows` gets each batch a thread posts. The worker side is
 * `postRowsInBatches`. Resolves to the number of threads.
 */
export async function onIndexThreads<Row>(script: string, root: string, files: readonly string[], onRows: (rows: Row[]) => void): Promise<number> {
  const threads = Math.max(1, Math.min(os.cpus().length, 4));
  await Promise.all(
    Array.from({ length: threads }, (_, thread) => {
      const worker = new Worker(script, { workerData: { root, files: files.filter((_, index) => index % threads === thread) } });
      return new Promise<void>((resolve, reject) => {
        worker.on('message', (message: Row[] | 'done') => {
          if (message !== 'done') return onRows(message);
          worker.unref();
          resolve();
        });
        worker.on('error', reject);
      });
    }),
  );
  return threads;
}

/** The worker side of `onIndexThreads`: each of its files made a row, posted 200 at a time, then 'done'. */
export async function postRowsInBatches<Row>(rowOf: (root: string, file: string) => Row): Promise<void> {
  const { root, files } = workerData as { root: string; files: string[] };
  let batch: Row[] = [];
  for (const file of files) {
    batch.push(rowOf(root, file));
    if (batch.length >= 200) {
      parentPort!.postMessage(batch);
      batch = [];
    }
  }
  parentPort!.postMessage(batch);
  parentPort!.postMessage('done');
}
