import type { Writable } from 'node:stream';

/** Where a pack goes, chunk by chunk. A returned promise is awaited before the next chunk (backpressure). */
export interface PackSink {
  write(chunk: string): void | Promise<void>;
}

/** A Node stream (a file, an HTTP response, an upload): waits for `drain` when its buffer is full. */
export function streamSink(stream: Writable): PackSink & { end(): Promise<void> } {
  let failure: Error | undefined;
  stream.on('error', (error) => (failure = error));
  return {
    write(chunk) {
      if (failure !== undefined) throw failure;
      if (stream.write(chunk)) return;
      return new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          stream.off('error', onError);
          resolve();
        };
        const onError = (error: Error) => {
          stream.off('drain', onDrain);
          reject(error);
        };
        stream.once('drain', onDrain);
        stream.once('error', onError);
      });
    },
    end() {
      return new Promise<void>((resolve, reject) => {
        if (failure !== undefined) return reject(failure);
        stream.once('error', reject);
        stream.end(() => resolve());
      });
    },
  };
}

/** Collects the document in memory: for tests and small packs only. */
export class StringSink implements PackSink {
  private readonly chunks: string[] = [];

  write(chunk: string): void {
    this.chunks.push(chunk);
  }

  toString(): string {
    return this.chunks.join('');
  }
}
