import { parentPort, workerData } from 'node:worker_threads';
import { parseAllowList } from '@quarry/fetch/policy';
import { GuardedGitProxy, type ProxySession } from './guarded-git-proxy';
import type { FromProxyThread, ProxyThreadData, ToProxyThread } from './threaded-git-proxy';

/*
 * The guarded git proxy on a thread of its own (see ThreadedGitProxy): the bytes git fetches pass
 * through this thread's event loop, never waiting behind the work on the worker's main thread.
 */

const port = parentPort;
if (!port) throw new Error('git-proxy-thread runs as a worker thread');
const data = workerData as ProxyThreadData;
const sessions = new Map<number, ProxySession>();

GuardedGitProxy.start({ allow: parseAllowList(data.allow) }).then(
  (proxy) => {
    port.on('message', (message: ToProxyThread) => {
      if (message.type === 'open') {
        const session = proxy.open(message.maxBytes);
        sessions.set(message.request, session);
        port.postMessage({ type: 'opened', request: message.request, url: session.url } satisfies FromProxyThread);
      } else {
        const session = sessions.get(message.request);
        sessions.delete(message.request);
        session?.close();
        const error = session?.error;
        port.postMessage({
          type: 'ended',
          request: message.request,
          bytes: session?.bytes ?? 0,
          error: error && { kind: error.kind, message: error.message, suggestion: error.suggestion, permanent: error.permanent },
        } satisfies FromProxyThread);
      }
    });
    port.postMessage({ type: 'ready' } satisfies FromProxyThread);
  },
  (error: unknown) => port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies FromProxyThread),
);
