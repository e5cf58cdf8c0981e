import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { QuarryError } from '@quarry/contracts/errors';
import { killGroup, spawnGit, type GitEnvironment } from './git-process';

interface Pending {
  oid: string;
  deliver(content: Buffer | undefined): void;
  fail(error: unknown): void;
}

/**
 * One long-lived `git cat-file --batch` over a repository: object contents by id, in request
 * order, streamed (the 78k blobs of a kernel tree pass through one process and one pipe). Asked
 * only for objects known to be present (ObjectPresence), and run with every transport refused, so
 * it never fetches anything itself. A missing object answers undefined.
 */
export class BlobReader {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly queue: Pending[] = [];
  private head = 0;
  private pending: Buffer = Buffer.alloc(0);
  /** The blob being received across chunks: its content so far (`have` counts the trailing newline too). */
  private body: { size: number; content: Buffer; have: number } | undefined;
  private stderr = '';

  constructor(
    private readonly environment: GitEnvironment,
    private readonly gitDir: string,
  ) {}

  read(oid: string): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => this.request({ oid, deliver: resolve, fail: reject }));
  }

  /** Calls `onBlob` synchronously for each id as its content arrives, in order; resolves after the last. */
  stream(oids: readonly string[], onBlob: (oid: string, content: Buffer | undefined) => void, signal?: AbortSignal): Promise<void> {
    if (oids.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let left = oids.length;
      let failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        reject(error);
      };
      const onAbort = () => {
        fail(signal?.reason);
        this.close();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const lines: string[] = [];
      for (const oid of oids) {
        this.queue.push({
          oid,
          deliver: (content) => {
            if (failed) return;
            try {
              onBlob(oid, content);
            } catch (error) {
              fail(error);
              return;
            }
            if (--left === 0) {
              signal?.removeEventListener('abort', onAbort);
              resolve();
            }
          },
          fail,
        });
        lines.push(oid);
      }
      this.process().stdin.write(`${lines.join('\n')}\n`);
      this.holdProcessOpen(true);
    });
  }

  close(): void {
    const child = this.child;
    this.child = undefined;
    if (child) {
      child.stdin.end();
      killGroup(child);
    }
  }

  private request(entry: Pending): void {
    this.queue.push(entry);
    this.process().stdin.write(`${entry.oid}\n`);
    this.holdProcessOpen(true);
  }

  /**
   * The reader keeps the process alive only while it owes answers: an idle `cat-file` left open by
   * a snapshot nobody closed must not stop a CLI or a test run from exiting.
   */
  private holdProcessOpen(hold: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref?(): void; unref?(): void }>) {
      if (hold) handle.ref?.();
      else handle.unref?.();
    }
  }

  private process(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawnGit({ ...this.environment, proxyUrl: undefined }, ['--git-dir', this.gitDir, 'cat-file', '--batch']);
    this.child = child;
    this.pending = Buffer.alloc(0);
    this.body = undefined;
    this.stderr = '';
    child.stdin.on('error', () => undefined);
    child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 8192) this.stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => {
      if (this.child === child) this.child = undefined;
      const error = new QuarryError('internal', `git cat-file ended (exit ${code}): ${this.stderr.trim().split('\n').slice(-2).join(' | ')}`, { permanent: false });
      const left = this.queue.splice(this.head);
      this.queue.length = 0;
      this.head = 0;
      for (const entry of left) entry.fail(error);
    });
    child.on('error', () => undefined);
    return child;
  }

  private receive(chunk: Buffer): void {
    let data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = Buffer.alloc(0);
    for (;;) {
      if (this.body) {
        const body = this.body;
        // The content, then a newline (not copied: `content` is exactly the blob's size).
        const need = body.size + 1 - body.have;
        const take = Math.min(need, data.length);
        const contentBytes = Math.min(take, body.size - body.have);
        if (contentBytes > 0) data.copy(body.content, body.have, 0, contentBytes);
        body.have += take;
        data = data.subarray(take);
        if (body.have <= body.size) return; // the chunk ended inside the blob
        this.body = undefined;
        this.next().deliver(body.content);
        continue;
      }
      const newline = data.indexOf(0x0a);
      if (newline === -1) {
        this.pending = Buffer.from(data);
        return;
      }
      const header = data.toString('latin1', 0, newline);
      data = data.subarray(newline + 1);
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.next().deliver(undefined);
        continue;
      }
      const size = Number(header.slice(header.lastIndexOf(' ') + 1));
      if (data.length > size) {
        // Whole in this chunk (most blobs): a view of it, no copy.
        const content = data.subarray(0, size);
        data = data.subarray(size + 1);
        this.next().deliver(content);
        continue;
      }
      // Spread over chunks: one buffer of its size, filled as they arrive (collecting the chunks
      // and concatenating them held a large blob twice: 48 MB for Linux's largest header).
      this.body = { content: Buffer.allocUnsafe(size), have: 0, size };
    }
  }

  private next(): Pending {
    const entry = this.queue[this.head++];
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
      this.holdProcessOpen(false);
    } else if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return entry;
  }
}
