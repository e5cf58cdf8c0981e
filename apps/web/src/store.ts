import type { JobEventView, JobKind, JobStatus, JobView, QuarryErrorBody } from './contracts.js';

export type AuthState = { state: 'ok' } | { state: 'needed' | 'refused'; error: QuarryErrorBody };
export type Connection = 'connecting' | 'live' | 'reconnecting' | 'refused';
export type Route =
  | { name: 'list' }
  | { name: 'job'; id: string }
  /** The symbol page: a definition, its references, callers and callees (empty fields: the lookup form only). */
  | { name: 'symbol'; repository: string; ref: string; symbol: string };

export interface State {
  available: JobKind[];
  all: JobKind[];
  /** Every job this page knows, by id; REST answers and socket events both land here. */
  jobs: Map<string, JobView>;
  /** Ids of the jobs list as the last poll returned it (newest first); new submissions are put in front. */
  listed: string[];
  listLoaded: boolean;
  /** Per job: the snapshot history, then live events appended. */
  histories: Map<string, JobEventView[]>;
  filter: { kind: string; status: string };
  auth: AuthState;
  connection: Connection;
  route: Route;
  /** The last problem reaching the gateway over REST, shown as a banner; null when all is well. */
  offline: QuarryErrorBody | null;
  notice: { text: string; error?: QuarryErrorBody } | null;
  now: number;
}

export const state: State = {
  available: [],
  all: [],
  jobs: new Map(),
  listed: [],
  listLoaded: false,
  histories: new Map(),
  filter: { kind: '', status: '' },
  auth: { state: 'ok' },
  connection: 'connecting',
  route: { name: 'list' },
  offline: null,
  notice: null,
  now: Date.now(),
};

type Listener = () => void;
const listeners = new Set<Listener>();
let scheduled = false;

/** Re-renders (once per frame at most) after any change. */
export function changed(): void {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    for (const listener of listeners) listener();
  });
}

export function onChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const HISTORY_CAP = 1000;
/** When each job last got a live event: a poll answer older than that does not overwrite it. */
export const liveAt = new Map<string, number>();

export function putJob(job: JobView, fromLive = false): void {
  state.jobs.set(job.id, job);
  if (fromLive) liveAt.set(job.id, Date.now());
  changed();
}

export function patchJob(id: string, patch: Partial<JobView>): JobView | undefined {
  const job = state.jobs.get(id);
  if (!job) return undefined;
  const next = { ...job, ...patch };
  state.jobs.set(id, next);
  liveAt.set(id, Date.now());
  changed();
  return next;
}

export function setHistory(id: string, history: JobEventView[]): void {
  state.histories.set(id, history.slice(-HISTORY_CAP));
  changed();
}

export function appendHistory(id: string, type: string, data: unknown): void {
  const history = state.histories.get(id);
  if (!history) return; // no snapshot yet: the snapshot will contain it
  const last = history[history.length - 1];
  if (type !== 'progress' && last?.type === type) return; // job.status and job.cancelled both announce a cancel
  history.push({ at: new Date().toISOString(), type, data });
  if (history.length > HISTORY_CAP) history.splice(0, history.length - HISTORY_CAP);
  changed();
}

export const TERMINAL: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];
export const isTerminal = (status: JobStatus) => TERMINAL.includes(status);

export function setAuthProblem(status: number, error: QuarryErrorBody, hadKey: boolean): boolean {
  if (status !== 401 && error.kind !== 'unauthorized') return false;
  state.auth = { state: hadKey ? 'refused' : 'needed', error };
  changed();
  return true;
}
