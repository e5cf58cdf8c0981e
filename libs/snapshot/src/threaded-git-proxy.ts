import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { QuarryError, type ErrorKind } from '@quarry/contracts';
import type { GitProxy, ProxyOutcome } from './guarded-git-proxy';

export interface ProxyThreadData {
  /** QUARRY_FETCH_ALLOW's entries, parsed on the thread. */
  allow: readonly string[];
}

export type ToProxyThread = { type: 'open'; request: number; maxBytes: number } | { type: 'end'; request: number };

export type FromProxyThread =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'opened'; request: number; url: string }
  | { type: 'ended'; request: number; bytes: number; error?: { kind: string; message: string; suggestion?: string; permanent: boolean } };

/** The compiled thread beside this file (dist/). */
const COMPILED_THREAD = path.join(__dirname, 'git-proxy-thread.js');

/**
 * Whether the proxy can run on its own thread: in the compiled build. Under jest (sources) a
 * worker thread cannot load them, and tests inject a resolver or dialer (functions, which cannot
 * cross to a thread): there the proxy runs in the calling thread, the same GuardedGitProxy.
 */
export function gitProxyThreadAvailable(): boolean {
  return existsSync(COMPILED_THREAD);
}

/**
 * The guarded git proxy (GuardedGitProxy, unchanged) on a thread of its own. A worker's main
 * thread is busy in synchronous stretches of tens of milliseconds (a kernel commit's 78k-entry
 * look-ups and sets); in the calling thread every request and chunk git exchanged through the
 * proxy waited for them. Measured on a kernel re-scan: fetching one blob took 0.7–0.9 s beside the
 * scan, against 0.13 s alone. Sessions open and end by message; what a session saw (its bytes,
 * its first refusal) comes back when it ends.
 */
export class ThreadedGitProxy implements GitProxy {
  private nextRequest = 1;
  private readonly waiting = new Map<number, (message: FromProxyThread) => void>();
  private failure: Error | undefined;
  private closing = false;

  private constructor(private readonly thread: Worker) {
    thread.on('message', (message: FromProxyThread) => {
      if ('request' in message) {
        const reply = this.waiting.get(message.request);
        this.waiting.delete(message.request);
        if (this.waiting.size === 0 && !this.closing) thread.unref();
        reply?.(message);
      }
    });
  }

  /** Starts the thread; resolves once its proxy listens. `onLost`: the thread died (the caller starts another). */
  static start(data: ProxyThreadData, onLost: () => void): Promise<ThreadedGitProxy> {
    const thread = new Worker(COMPILED_THREAD, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    const proxy = new ThreadedGitProxy(thread);
    return new Promise<ThreadedGitProxy>((resolve, reject) => {
      const lost = (error: Error) => {
        proxy.failure ??= error;
        for (const reply of proxy.waiting.values()) reply({ type: 'failed', message: error.message });
        proxy.waiting.clear();
        reject(error);
        onLost();
      };
      thread.on('error', lost);
      thread.on('exit', (code) => lost(new Error(`the git proxy thread exited (code ${code})`)));
      thread.on('message', (message: FromProxyThread) => {
        if (message.type === 'ready') {
          thread.unref();
          resolve(proxy);
        } else if (message.type === 'failed') lost(new Error(message.message));
      });
    });
  }

  async session(maxBytes: number): Promise<{ url: string; end(): Promise<ProxyOutcome> }> {
    const request = this.nextRequest++;
    const opened = await this.ask({ type: 'open', request, maxBytes });
    if (opened.type !== 'opened') throw new Error(`the git proxy thread failed: ${opened.type === 'failed' ? opened.message : opened.type}`);
    let ended: Promise<ProxyOutcome> | undefined;
    return {
      url: opened.url,
      end: () => {
        ended ??= this.ask({ type: 'end', request }).then((reply) => ({
          bytes: reply.type === 'ended' ? reply.bytes : 0,
          error: reply.type === 'ended' && reply.error ? new QuarryError(reply.error.kind as ErrorKind, reply.error.message, { suggestion: reply.error.suggestion, permanent: reply.error.permanent }) : undefined,
        }));
        return ended;
      },
    };
  }

  async close(): Promise<void> {
    // Ref'd until it has exited (a late reply must not unref it): an unref'd thread's termination
    // would not keep the process alive to see it, and whatever awaited the close would never go on.
    this.closing = true;
    this.thread.ref();
    await this.thread.terminate();
  }

  private ask(message: ToProxyThread): Promise<FromProxyThread> {
    if (this.failure) return Promise.resolve({ type: 'failed', message: this.failure.message });
    return new Promise((resolve) => {
      // Ref'd while a reply is awaited: an idle proxy keeps no process alive, a process awaiting it is kept.
      this.thread.ref();
      this.waiting.set(message.request, resolve);
      this.thread.postMessage(message);
    });
  }
}
