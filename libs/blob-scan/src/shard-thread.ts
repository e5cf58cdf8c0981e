import { parentPort } from 'node:worker_threads';
import { isQuarryError } from '@quarry/contracts/errors';
import { SnapshotProvider, type Snapshot } from '@quarry/snapshot';
import type { BlobDerivation, ThreadDerivationModule } from './blob-derivation';
import type { BlobFact, BlobFactStore } from './blob-facts';
import { runShard } from './run-shard';
import type { FromThread, ToThread } from './shard-thread-protocol';

/*
 * A shard thread of an in-process scan (`quarry scan --local`): takes shards from the main thread
 * one at a time and runs them with runShard — the function a worker process runs for a shard job —
 * on its own snapshot of the same commit or directory (its own `cat-file`, its own reads). Facts go
 * to the main thread's store; so do the rows of a derivation the shard names (the code index: its
 * parsing and token counting are most of a scan's CPU, so they run here, one thread per core, not
 * on the main thread); progress and the outcome go back as messages.
 */

const port = parentPort;
if (!port) throw new Error('shard-thread runs as a worker thread');

let provider: SnapshotProvider | undefined;
let open: { key: string; snapshot: Promise<Snapshot> } | undefined;
const running = new Map<number, AbortController>();

const send = (message: FromThread, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

/** A shard's own derivation (its rows are posted under its id), from the module the main thread named. */
function derivationFor(message: Extract<ToThread, { type: 'shard' }>): BlobDerivation | undefined {
  if (!message.derive) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is named at run time (this library cannot import it)
  const module = require(message.derive.module) as ThreadDerivationModule;
  return module.shardThreadDerivation(message.derive.settings, (rows, transfer) => send({ type: 'derived', id: message.id, rows }, transfer));
}

/** Progress is posted at most this often: one message per file was a sixth of a thread's time on the kernel. */
const PROGRESS_EVERY_MS = 100;

function snapshotFor(message: Extract<ToThread, { type: 'shard' }>): Promise<Snapshot> {
  const key = JSON.stringify(message.source);
  if (open?.key === key) return open.snapshot;
  provider ??= new SnapshotProvider({ workspaceRoots: message.provider.workspaceRoots, git: message.provider.git });
  const source = message.source;
  const snapshot = 'git' in source ? provider.open(source) : provider.openLocal(source.path);
  open = { key, snapshot };
  return snapshot;
}

/**
 * The main thread's store, seen from here: each write is a message, not awaited. A shard thread
 * that waited for its writes (Postgres, for a worker's path scan) sat idle at the end of every
 * shard while a kernel's 78k rows went in; the executor now awaits a shard's writes itself and
 * counts what they added, while this thread reads the next shard.
 */
function storeFor(id: number): BlobFactStore {
  return {
    lookup: async () => new Map(), // runShard only writes
    record: (facts: readonly BlobFact[]) => {
      send({ type: 'record', id, facts: [...facts] });
      return Promise.resolve(0);
    },
  };
}

async function runOne(message: Extract<ToThread, { type: 'shard' }>): Promise<void> {
  const controller = new AbortController();
  running.set(message.id, controller);
  try {
    const snapshot = await snapshotFor(message);
    let lastProgress = 0;
    const outcome = await runShard(snapshot, message.files, storeFor(message.id), {
      worker: message.worker,
      signal: controller.signal,
      derive: derivationFor(message),
      onProgress: (done) => {
        const now = Date.now();
        if (now - lastProgress < PROGRESS_EVERY_MS) return;
        lastProgress = now;
        send({ type: 'progress', id: message.id, done });
      },
    });
    send({ type: 'done', id: message.id, outcome });
  } catch (error) {
    send({
      type: 'failed',
      id: message.id,
      error: isQuarryError(error)
        ? { kind: error.kind, message: error.message, suggestion: error.suggestion, permanent: error.permanent }
        : { message: error instanceof Error ? error.message : String(error) },
    });
  } finally {
    running.delete(message.id);
  }
}

port.on('message', (message: ToThread) => {
  if (message.type === 'shard') void runOne(message);
  else if (message.type === 'cancel') running.get(message.id)?.abort(new Error('cancelled'));
});

// Loaded (re2 included, through the snapshot library): the pool may let the process end with this thread in it.
send({ type: 'ready' });
