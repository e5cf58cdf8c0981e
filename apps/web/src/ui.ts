import { h, type VNode } from 'preact';
import htm from 'htm';
import type { JobProgress, JobStatus, JobView, QuarryErrorBody } from './contracts.js';

/** Tagged templates instead of JSX: no build step beyond tsc. */
export const html = htm.bind(h) as (strings: TemplateStringsArray, ...values: unknown[]) => VNode<any>;

/** Exhaustive over JobStatus: a new status in libs/contracts fails this build until it has a label. */
export const STATUS_LABEL = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
} satisfies Record<JobStatus, string>;
export const STATUSES = Object.keys(STATUS_LABEL) as JobStatus[];

/** The page's copy of @quarry/contracts/format's formatBytes (the page loads no library code): `1.5 KiB`, `40 KiB`. */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${value} B`;
  return `${Math.abs(value) < 10 ? Number(value.toFixed(1)) : Math.round(value)} ${UNITS[unit]}`;
}

export const formatCount = (n: number) => n.toLocaleString('en-US');

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatTime(iso: string | null): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

export function formatDateTime(iso: string | null): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

/** Text with `backticks` shown as code (suggestions name commands that way). */
export function richText(text: string) {
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? html`<code>${part}</code>` : part));
}

export function elapsed(job: JobView, now: number): number | undefined {
  if (!job.startedAt) return undefined;
  const end = job.finishedAt ? Date.parse(job.finishedAt) : now;
  return Math.max(0, end - Date.parse(job.startedAt));
}

export function StatusBadge({ status }: { status: JobStatus }) {
  return html`<span class=${`badge status-${status}`} data-status=${status}>${STATUS_LABEL[status]}</span>`;
}

export function progressFraction(progress: JobProgress | null): number | undefined {
  if (!progress || !progress.total) return undefined;
  return Math.min(1, progress.done / progress.total);
}

/** A bar with its stage and message; indeterminate while the total is unknown (e.g. listing). */
export function ProgressBar({ job, compact }: { job: JobView; compact?: boolean }) {
  const { progress, status } = job;
  const fraction = status === 'succeeded' ? 1 : progressFraction(progress);
  const active = status === 'running' || status === 'queued';
  // Indeterminate (animated) only while running with no total yet, e.g. the listing stage.
  const indeterminate = fraction === undefined && status === 'running';
  const percent = fraction === undefined ? undefined : Math.round(fraction * 1000) / 10;
  const where = progress
    ? `${progress.stage}${progress.total ? ` · ${formatCount(progress.done)} / ${formatCount(progress.total)}` : progress.done ? ` · ${formatCount(progress.done)}` : ''}`
    : '';
  const label =
    status === 'succeeded'
      ? 'Completed'
      : status === 'failed' || status === 'cancelled'
        ? `${STATUS_LABEL[status]}${where ? ` at ${where}` : ''}`
        : status === 'queued' && !progress
          ? 'Waiting for a worker'
          : where || STATUS_LABEL[status];
  return html`<div class=${`progress ${compact ? 'compact' : ''} status-${status}`}>
    <div
      class=${`bar ${indeterminate ? 'indeterminate' : ''}`}
      role="progressbar"
      aria-label="Progress"
      aria-valuemin="0"
      aria-valuemax="100"
      aria-valuenow=${percent}
      aria-valuetext=${label}
    >
      <span class="fill" style=${{ width: `${percent ?? (indeterminate ? 30 : 0)}%` }}></span>
    </div>
    <div class="progress-text">
      <span class="stage">${label}</span>
      ${percent !== undefined && active ? html`<span class="percent">${percent.toFixed(percent < 10 ? 1 : 0)}%</span>` : null}
    </div>
    ${progress?.message && active ? html`<div class="progress-message">${progress.message}</div>` : null}
  </div>`;
}

export function ErrorBox({ error, id }: { error: QuarryErrorBody; id?: string }) {
  return html`<div class="error-box" role="alert" id=${id}>
    <div><code class="kind">${error.kind}</code> ${error.message}</div>
    ${error.suggestion ? html`<div class="suggestion">${richText(error.suggestion)}</div>` : null}
  </div>`;
}
