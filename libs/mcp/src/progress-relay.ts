import type { JobProgress } from '@quarry/contracts';

export interface ProgressNotice {
  progress: number;
  total?: number;
  message?: string;
}

/** At most one notification per this many milliseconds (the latest one is kept, not dropped). */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * Turns a job's progress reports into MCP progress notifications. MCP requires `progress` to
 * increase with every notification, so one is sent only when `done` moved forward (a stage that
 * restarts its count, or a heartbeat with nothing new, sends nothing), and at most one per
 * interval: the latest report waits for the interval to pass instead of being lost.
 */
export class ProgressRelay {
  private sent = Number.NEGATIVE_INFINITY;
  private lastAt = Number.NEGATIVE_INFINITY;
  private pending: ProgressNotice | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly send: (notice: ProgressNotice) => void,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  /** A note that is not a count (e.g. "queued as job …"): sent once, as progress 0, before any count. */
  announce(message: string): void {
    if (this.sent >= 0) return;
    this.emit({ progress: 0, message });
  }

  report(progress: JobProgress): void {
    if (this.stopped || progress.done <= this.sent) return;
    if (this.pending && progress.done <= this.pending.progress) return;
    this.pending = { progress: progress.done, ...(progress.total !== undefined ? { total: progress.total } : {}), message: describe(progress) };
    const wait = this.lastAt + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /** The work is done: the latest count still waiting for its interval is sent now, then nothing more. */
  finish(): void {
    if (this.pending && !this.stopped) this.flush();
    this.stop();
  }

  /** Nothing more is sent (the call failed or was cancelled). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const notice = this.pending;
    this.pending = undefined;
    if (notice && !this.stopped) this.emit(notice);
  }

  private emit(notice: ProgressNotice): void {
    this.sent = notice.progress;
    this.lastAt = Date.now();
    this.send(notice);
  }
}

function describe(progress: JobProgress): string {
  const count = progress.total !== undefined ? `${progress.done}/${progress.total}` : `${progress.done}`;
  return progress.message ? `${progress.stage} ${count}: ${progress.message}` : `${progress.stage} ${count}`;
}
