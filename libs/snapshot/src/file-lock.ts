import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { QuarryError } from '@quarry/contracts/errors';

/**
 * A lock between processes sharing a data directory: `mkdir` is atomic, the directory holds the
 * owner's pid and host. A lock whose owner on this host is dead is taken over, so a crashed
 * worker never wedges a repository. Waiters poll with a growing delay.
 */
export async function withFileLock<T>(lockDir: string, work: () => Promise<T>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<T> {
  await acquire(lockDir, options.timeoutMs, options.signal);
  try {
    return await work();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/** Takes the lock now or says no (eviction skips repositories in use). */
export async function tryFileLock(lockDir: string): Promise<boolean> {
  return claim(lockDir);
}

export async function releaseFileLock(lockDir: string): Promise<void> {
  await rm(lockDir, { recursive: true, force: true });
}

async function acquire(lockDir: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  for (;;) {
    signal?.throwIfAborted();
    if (await claim(lockDir)) return;
    if (Date.now() > deadline) {
      throw new QuarryError('repo_unavailable', `Another job held the repository cache lock for more than ${Math.round(timeoutMs / 1000)} s.`, {
        permanent: false,
        suggestion: 'The job is retried automatically.',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(250, delay * 2);
  }
}

async function claim(lockDir: string): Promise<boolean> {
  try {
    await mkdir(lockDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (!(await ownerIsDead(lockDir))) return false;
    await rm(lockDir, { recursive: true, force: true });
    return claim(lockDir);
  }
  await writeFile(path.join(lockDir, 'owner'), `${process.pid} ${os.hostname()}\n`);
  return true;
}

async function ownerIsDead(lockDir: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(path.join(lockDir, 'owner'), 'utf8');
  } catch {
    // Created but not yet written: alive unless it stays that way (then its mtime would tell; rare).
    return false;
  }
  const [pid, host] = text.trim().split(' ');
  if (host !== os.hostname()) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
