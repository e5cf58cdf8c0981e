import type { JobProgress } from '@quarry/contracts';

export interface ProgressSinks {
  /** Live channel (BullMQ progress → QueueEvents → sockets). */
  live(progress: JobProgress): Promise<unknown>;
  /** Durable copy in Postgres; `sample` marks the ones kept in the job's history. */
  store(progress: JobProgress, sample: boolean): Promise<unknown>;
  onError(error: unknown): void;
}

/**
 * Turns however many progress calls a handler makes into a steady stream: one live event every
 * `intervalMs` (a heartbeat even when nothing changed, so watchers see the job is alive), an early
 * one on a stage change (but never within `minGapMs` of the last), and a Postgres write every
 * `storeEveryMs`. `done` never goes backwards within a run. The history keeps the first
 * `historyLimit` stored samples of a run, then only the 2^k-th ones: a run of an hour adds about
 * 72 progress events to its job's history, not 3,600 (the row's `progress` is always the latest).
 */
export class ProgressReporter {
  private latest: JobProgress | undefined;
  private lastLiveAt = Number.NEGATIVE_INFINITY;
  // The first durable write waits a full period: a job shorter than that writes only its outcome.
  private lastStoredAt = Date.now();
  private lastStage: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<unknown> = Promise.resolve();
  private stored = 0;

  constructor(
    private readonly sinks: ProgressSinks,
    private readonly options = { intervalMs: 200, minGapMs: 100, storeEveryMs: 1_000, historyLimit: 60 },
  ) {}

  report = (progress: JobProgress): void => {
    const done = Math.max(progress.done, this.latest?.done ?? 0);
    this.latest = { ...progress, done };
    if (!this.timer) this.timer = setInterval(() => this.flush(), this.options.intervalMs);
    if (progress.stage !== this.lastStage && Date.now() - this.lastLiveAt >= this.options.minGapMs) this.flush();
  };

  /** Stops the heartbeat and waits for writes in flight. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private flush(): void {
    const progress = this.latest;
    if (!progress) return;
    const now = Date.now();
    this.lastLiveAt = now;
    this.lastStage = progress.stage;
    const writes: Array<Promise<unknown>> = [this.sinks.live(progress)];
    if (now - this.lastStoredAt >= this.options.storeEveryMs) {
      this.lastStoredAt = now;
      writes.push(this.sinks.store(progress, keepInHistory(this.stored++, this.options.historyLimit)));
    }
    this.inFlight = Promise.all(writes).catch((error) => this.sinks.onError(error));
  }
}

/** Whether the n-th stored sample of a run (from 0) also goes into the job's history. */
export function keepInHistory(n: number, limit: number): boolean {
  return n < limit || (n & (n - 1)) === 0;
}
