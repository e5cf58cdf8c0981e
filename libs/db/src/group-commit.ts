/**
 * Group commit for independent writes that each want an answer: items queue up while a write is
 * in flight, and the next write carries all of them (at most `maxBatch`). An idle batcher writes
 * right after the current callbacks, so a lone item waits for nothing. If a write of several items
 * fails, each is written alone, so one item the database refuses fails by itself.
 */
export class GroupCommit<I, O> {
  private queue: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];
  private busy = false;

  constructor(
    /** Writes the items; answers one output per item, in order. */
    private readonly writeMany: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.busy && this.queue.length === 1) queueMicrotask(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    if (this.busy || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.busy = true;
    try {
      const outputs = await this.writeMany(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => entry.resolve(outputs[i]));
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error);
      else {
        const alone = await Promise.allSettled(batch.map((entry) => this.writeMany([entry.item])));
        alone.forEach((outcome, i) => (outcome.status === 'fulfilled' ? batch[i].resolve(outcome.value[0]) : batch[i].reject(outcome.reason)));
      }
    } finally {
      this.busy = false;
      if (this.queue.length > 0) void this.flush();
    }
  }
}
