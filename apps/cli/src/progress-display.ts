import type { JobProgress } from '@quarry/contracts';

/**
 * Shows job progress: a redrawn bar on a terminal, plain lines (at most one a second, plus every
 * stage change) when stdout is a pipe or a file.
 */
export class ProgressDisplay {
  private readonly startedAt = Date.now();
  private lastLineAt = 0;
  private lastStage = '';
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(progress: JobProgress): void {
    const elapsed = ((Date.now() - this.startedAt) / 1000).toFixed(1);
    const counts = progress.total ? `${progress.done.toLocaleString('en-US')}/${progress.total.toLocaleString('en-US')}` : '';
    const text = [progress.stage, counts, progress.message].filter(Boolean).join(' ');
    if (this.stream.isTTY) {
      const width = 30;
      const fraction = progress.total ? Math.min(1, progress.done / progress.total) : 0;
      const bar = progress.total ? '█'.repeat(Math.round(fraction * width)).padEnd(width, '░') : '░'.repeat(width);
      const percent = progress.total ? `${Math.floor(fraction * 100)}%`.padStart(4) : '  … ';
      this.stream.write(`\r\x1b[2K${this.label} ${bar} ${percent} ${text} ${elapsed}s`);
      this.drawn = true;
      return;
    }
    const now = Date.now();
    if (progress.stage !== this.lastStage || now - this.lastLineAt >= 1_000) {
      this.stream.write(`${this.label}: ${text} (${elapsed}s)\n`);
      this.lastLineAt = now;
      this.lastStage = progress.stage;
    }
  }

  status(text: string): void {
    this.end();
    this.stream.write(`${this.label}: ${text}\n`);
  }

  end(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
