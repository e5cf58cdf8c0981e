import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, storeKey, storedKey } from './api.js';
import type { JobEventView, JobKind, JobView, QuarryErrorBody } from './contracts.js';
import { kindDef, type FormValues } from './kinds.js';
import './kind-scan.js';
import './kind-fetch.js';
import './kind-detect.js';
import './kind-mentions.js';
import './kind-interpret.js';
import './kind-code-index.js';
import './kind-context.js';
import { live } from './live.js';
import { SymbolPage } from './symbol-page.js';
import { changed, isTerminal, liveAt, onChange, putJob, setAuthProblem, setHistory, state, type Route } from './store.js';
import { ErrorBox, ProgressBar, richText, STATUSES, STATUS_LABEL, StatusBadge, elapsed, formatCount, formatDateTime, formatDuration, formatTime, html } from './ui.js';

const POLL_MS = 3000;

// ---------------------------------------------------------------- data

/** Handles a REST refusal the same way everywhere: 401 → the key banner, no answer → offline banner. */
function noteFailure(error: unknown): QuarryErrorBody {
  const body: QuarryErrorBody =
    error instanceof ApiError ? error.body : { kind: 'internal', message: error instanceof Error ? error.message : String(error) };
  if (error instanceof ApiError) {
    if (setAuthProblem(error.status, body, !!storedKey())) return body;
    if (error.status === 0 || error.status === 503) {
      state.offline = body;
      changed();
    }
  }
  return body;
}

function gotAnswer(): void {
  let dirty = false;
  // REST is accepted again (keys removed, or created after a refusal): give the socket another go.
  if (state.connection === 'refused') live.connect();
  if (state.offline) {
    state.offline = null;
    dirty = true;
  }
  if (state.auth.state !== 'ok') {
    state.auth = { state: 'ok' };
    dirty = true;
  }
  if (dirty) changed();
}

let polling = false;
async function poll(): Promise<void> {
  if (polling) return;
  polling = true;
  const sentAt = Date.now();
  const filter = { ...state.filter };
  try {
    const page = await api.list({ kind: filter.kind, status: filter.status, limit: 50 });
    gotAnswer();
    if (filter.kind !== state.filter.kind || filter.status !== state.filter.status) return; // stale answer
    for (const job of page.items) {
      // A live event newer than this request knows better than the poll answer.
      if ((liveAt.get(job.id) ?? 0) > sentAt && state.jobs.has(job.id)) continue;
      state.jobs.set(job.id, job);
    }
    state.listed = page.items.map((job) => job.id);
    state.listLoaded = true;
    changed();
  } catch (error) {
    noteFailure(error);
  } finally {
    polling = false;
  }
}

async function refreshJob(id: string, withHistory = false): Promise<void> {
  try {
    const [job, history] = await Promise.all([api.get(id), withHistory ? api.history(id) : undefined]);
    putJob(job);
    if (history) setHistory(id, history);
  } catch (error) {
    const body = noteFailure(error);
    if (body.kind === 'job_not_found' && state.route.name === 'job' && state.route.id === id) {
      state.notice = { text: 'This job does not exist, or belongs to another API key.', error: body };
      changed();
    }
  }
}
// After a terminal event: the stored row and the stored history (exact times, no guesses).
live.setRefresher((id) => refreshJob(id, state.histories.has(id)));

/** Watch the running jobs on screen, plus the one open in detail. */
function syncWatched(): void {
  const ids = new Set<string>();
  for (const id of visibleIds()) {
    const job = state.jobs.get(id);
    if (job && !isTerminal(job.status)) ids.add(id);
  }
  if (state.route.name === 'job') ids.add(state.route.id);
  live.watch(ids);
}

function visibleIds(): string[] {
  return state.listed.filter((id) => {
    const job = state.jobs.get(id);
    if (!job) return false;
    return (!state.filter.kind || job.kind === state.filter.kind) && (!state.filter.status || job.status === state.filter.status);
  });
}

function routeFromHash(): Route {
  const symbol = /^#\/symbol(?:\?(.*))?$/.exec(location.hash);
  if (symbol) {
    const params = new URLSearchParams(symbol[1] ?? '');
    return { name: 'symbol', repository: params.get('repo') ?? '', ref: params.get('ref') ?? '', symbol: params.get('symbol') ?? '' };
  }
  const match = /^#\/jobs\/([0-9a-fA-F-]{36})$/.exec(location.hash);
  return match ? { name: 'job', id: match[1].toLowerCase() } : { name: 'list' };
}

function applyRoute(): void {
  state.route = routeFromHash();
  if (state.route.name === 'job' && !state.jobs.has(state.route.id)) void refreshJob(state.route.id);
  changed();
}

function useStore(): void {
  const [, setVersion] = useState(0);
  useEffect(() => onChange(() => setVersion((v) => v + 1)), []);
}

function setKey(key: string): void {
  storeKey(key.trim());
  state.auth = { state: 'ok' };
  state.jobs.clear();
  state.listed = [];
  state.histories.clear();
  state.listLoaded = false;
  live.connect();
  void poll();
  if (state.route.name === 'job') void refreshJob(state.route.id);
  changed();
}

// ---------------------------------------------------------------- components

function KeyForm({ onDone, autofocus }: { onDone?: () => void; autofocus?: boolean }) {
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (autofocus) input.current?.focus();
  }, []);
  const has = !!storedKey();
  return html`<form
    class="key-form"
    onSubmit=${(event: Event) => {
      event.preventDefault();
      if (!value.trim()) return;
      setKey(value);
      setValue('');
      onDone?.();
    }}
  >
    <label for="api-key">API key</label>
    <div class="inline">
      <input
        id="api-key"
        ref=${input}
        type="password"
        autocomplete="off"
        spellcheck="false"
        placeholder=${has ? 'qk_… (a key is saved)' : 'qk_…'}
        value=${value}
        onInput=${(event: Event) => setValue((event.target as HTMLInputElement).value)}
      />
      <button type="submit" class="primary">Use key</button>
      ${has
        ? html`<button
            type="button"
            onClick=${() => {
              setKey('');
              onDone?.();
            }}
          >
            Forget
          </button>`
        : null}
    </div>
    <p class="hint">Kept in this browser only (localStorage); sent as <code>Authorization: Bearer</code> and as the socket's <code>auth.token</code>.</p>
  </form>`;
}

function AuthBanner() {
  if (state.auth.state === 'ok') return null;
  const { error } = state.auth;
  return html`<section class="banner auth" role="alert" aria-labelledby="auth-h" data-auth=${state.auth.state}>
    <h2 id="auth-h">${state.auth.state === 'needed' ? 'This Quarry requires an API key' : 'The API key was refused'}</h2>
    <p>${error.message}${error.suggestion ? html` <span class="suggestion">${richText(error.suggestion)}</span>` : null}</p>
    <${KeyForm} autofocus=${true} />
  </section>`;
}

function Header() {
  const [open, setOpen] = useState(false);
  const labels = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', refused: 'Not signed in' };
  return html`<header class="top">
    <a class="brand" href="#/"><span class="logo" aria-hidden="true">◆</span> Quarry</a>
    <span class=${`conn conn-${state.connection}`} role="status" aria-live="polite" data-connection=${state.connection}>
      <span class="dot" aria-hidden="true"></span>${labels[state.connection]}
    </span>
    <nav class="top-links" aria-label="Other views">
      <a href="#/symbol">Code navigation</a>
      <a href="/docs">API docs</a>
      <a href="/queues">Queues</a>
    </nav>
    <button type="button" class="key-button" aria-expanded=${open} aria-controls="key-panel" onClick=${() => setOpen(!open)}>
      ${storedKey() ? 'API key ✓' : 'API key'}
    </button>
    ${open ? html`<div id="key-panel" class="key-panel card"><${KeyForm} autofocus=${true} onDone=${() => setOpen(false)} /></div>` : null}
  </header>`;
}

function SubmitPanel() {
  const kinds = state.available;
  const [selected, setSelected] = useState<JobKind | undefined>(undefined);
  const kind = selected && kinds.includes(selected) ? selected : kinds[0];
  if (!kind) return html`<section class="card submit"><h2>Submit</h2><p class="muted">Loading…</p></section>`;
  return html`<section class="card submit" aria-labelledby="submit-h">
    <h2 id="submit-h">New job</h2>
    <div
      class="tabs"
      role="tablist"
      aria-label="Job kind"
      onKeyDown=${(event: KeyboardEvent) => {
        const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
        if (!step) return;
        const next = kinds[(kinds.indexOf(kind) + step + kinds.length) % kinds.length];
        setSelected(next);
        requestAnimationFrame(() => document.getElementById(`tab-${next}`)?.focus());
      }}
    >
      ${kinds.map(
        (k) => html`<button
          type="button"
          role="tab"
          id=${`tab-${k}`}
          aria-selected=${k === kind}
          aria-controls=${`form-${k}`}
          class=${k === kind ? 'tab active' : 'tab'}
          onClick=${() => setSelected(k)}
        >
          ${kindDef(k).title}
        </button>`,
      )}
    </div>
    <${SubmitForm} key=${kind} kind=${kind} />
  </section>`;
}

function SubmitForm({ kind }: { kind: JobKind }) {
  const def = kindDef(kind);
  const [values, setValues] = useState<FormValues>({});
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [serverError, setServerError] = useState<{ field?: string; error: QuarryErrorBody } | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const focusField = (name: string) => form.current?.querySelector<HTMLElement>(`[name="${name}"]`)?.focus();

  const submit = async (event: Event) => {
    event.preventDefault();
    const found = def.validate(values);
    setErrors(found);
    setServerError(null);
    const first = Object.keys(found).find((name) => found[name]);
    if (first) return focusField(first);
    setBusy(true);
    try {
      const job = await api.submit(kind, def.toInput(values));
      gotAnswer();
      putJob(job);
      state.listed = [job.id, ...state.listed.filter((id) => id !== job.id)];
      location.hash = `#/jobs/${job.id}`;
    } catch (error) {
      const body = noteFailure(error);
      const field = def.fieldFor(body);
      setServerError({ field, error: body });
      if (field) focusField(field);
    } finally {
      setBusy(false);
    }
  };

  const messageFor = (name: string) => {
    if (errors[name]) return html`<p class="field-error" id=${`${kind}-${name}-error`} role="alert">${errors[name]}</p>`;
    if (serverError?.field === name) return html`<div id=${`${kind}-${name}-error`}><${ErrorBox} error=${serverError.error} /></div>`;
    return null;
  };

  return html`<form ref=${form} id=${`form-${kind}`} role="tabpanel" aria-labelledby=${`tab-${kind}`} class="submit-form" novalidate onSubmit=${submit} data-kind=${kind}>
    <p class="muted small">${def.description}</p>
    ${def.fields.map((field) => {
      const id = `${kind}-${field.name}`;
      const invalid = !!errors[field.name] || serverError?.field === field.name;
      const describedBy = [invalid ? `${id}-error` : '', field.hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
      const set = (value: string | boolean) => {
        setValues({ ...values, [field.name]: value });
        if (errors[field.name]) setErrors({ ...errors, [field.name]: undefined });
      };
      if (field.type === 'checkbox') {
        return html`<div class="field check">
          <input id=${id} name=${field.name} type="checkbox" checked=${values[field.name] === true} onChange=${(e: Event) => set((e.target as HTMLInputElement).checked)} />
          <label for=${id}>${field.label}</label>
        </div>`;
      }
      const common = {
        id,
        name: field.name,
        placeholder: field.placeholder,
        // An untouched select shows (and sends) its first option.
        value: String(values[field.name] ?? (field.type === 'select' ? (field.options?.[0]?.value ?? '') : '')),
        'aria-invalid': invalid ? 'true' : undefined,
        'aria-describedby': describedBy,
        onInput: (e: Event) => set((e.target as HTMLInputElement).value),
        spellcheck: false,
        autocomplete: 'off',
      };
      return html`<div class=${`field ${invalid ? 'invalid' : ''}`}>
        <label for=${id}>${field.label}</label>
        ${field.type === 'textarea'
          ? html`<textarea rows=${field.rows ?? 5} ...${common}></textarea>`
          : field.type === 'select'
            ? html`<select ...${common} onChange=${common.onInput}>
                ${(field.options ?? []).map((option) => html`<option value=${option.value}>${option.label}</option>`)}
              </select>`
            : html`<input type=${field.type === 'url' ? 'url' : 'text'} ...${common} />`}
        ${field.hint ? html`<p class="hint" id=${`${id}-hint`}>${field.hint}</p>` : null}
        ${messageFor(field.name)}
      </div>`;
    })}
    ${serverError && !serverError.field ? html`<${ErrorBox} error=${serverError.error} />` : null}
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>${busy ? 'Submitting…' : `Start ${def.title.toLowerCase()}`}</button>
    </div>
  </form>`;
}

function JobActions({ job }: { job: JobView }) {
  const [busy, setBusy] = useState(false);
  const act = async (what: 'cancel' | 'retry') => {
    setBusy(true);
    try {
      const updated = await api[what](job.id);
      putJob(updated, true);
      state.notice = null;
    } catch (error) {
      state.notice = { text: `Could not ${what} the job.`, error: noteFailure(error) };
      void refreshJob(job.id);
    } finally {
      setBusy(false);
      changed();
    }
  };
  const what = job.kind + ' job ' + job.id.slice(0, 8);
  return html`<span class="job-actions">
    ${!isTerminal(job.status)
      ? html`<button type="button" class="danger" disabled=${busy} aria-label=${`Cancel ${what}`} onClick=${() => act('cancel')}>Cancel</button>`
      : null}
    ${job.status === 'failed' || job.status === 'cancelled'
      ? html`<button type="button" disabled=${busy} aria-label=${`Retry ${what}`} onClick=${() => act('retry')}>Retry</button>`
      : null}
  </span>`;
}

function JobRow({ job }: { job: JobView }) {
  const def = kindDef(job.kind);
  const ms = elapsed(job, state.now);
  return html`<li class=${`job-row status-${job.status}`} data-job-id=${job.id} data-status=${job.status}>
    <div class="row-head">
      <span class="badge kind">${job.kind}</span>
      <a class="job-link" href=${`#/jobs/${job.id}`} title=${def.summary(job.input)}>${def.summary(job.input) || job.id}</a>
      <${StatusBadge} status=${job.status} />
    </div>
    ${isTerminal(job.status) ? null : html`<${ProgressBar} job=${job} compact=${true} />`}
    <div class="row-meta">
      <span title=${formatDateTime(job.createdAt)}>${formatTime(job.createdAt)}</span>
      <span>${ms === undefined ? 'not started' : formatDuration(ms)}</span>
      <span>attempt${job.attempts === 1 ? '' : 's'} ${job.attempts}</span>
      ${job.error && job.status !== 'succeeded' ? html`<span class="row-error" title=${job.error.message}>${job.error.kind}</span>` : null}
      <${JobActions} job=${job} />
    </div>
  </li>`;
}

function JobsList() {
  const ids = visibleIds();
  const select = (name: 'kind' | 'status') => (event: Event) => {
    state.filter = { ...state.filter, [name]: (event.target as HTMLSelectElement).value };
    state.listed = [];
    state.listLoaded = false;
    changed();
    void poll();
  };
  return html`<section class="card jobs" aria-labelledby="jobs-h">
    <div class="jobs-head">
      <h2 id="jobs-h">Jobs</h2>
      <div class="filters">
        <span class="filter">
          <label for="filter-kind">Kind</label>
          <select id="filter-kind" name="kind" value=${state.filter.kind} onChange=${select('kind')}>
            <option value="">All</option>
            ${state.all.map((k) => html`<option value=${k}>${k}</option>`)}
          </select>
        </span>
        <span class="filter">
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status" value=${state.filter.status} onChange=${select('status')}>
            <option value="">All</option>
            ${STATUSES.map((s) => html`<option value=${s}>${STATUS_LABEL[s]}</option>`)}
          </select>
        </span>
      </div>
    </div>
    ${ids.length === 0
      ? html`<p class="empty muted">${state.listLoaded ? 'No jobs yet: start one with the form.' : 'Loading…'}</p>`
      : html`<ul class="job-list" aria-live="off">${ids.map((id) => html`<${JobRow} key=${id} job=${state.jobs.get(id)!} />`)}</ul>`}
  </section>`;
}

function describeEvent(event: JobEventView): string {
  const data = event.data as Record<string, any> | null;
  if (!data) return '';
  if (event.type === 'progress') {
    return `${data.stage ?? ''} ${data.total ? `${formatCount(data.done)} / ${formatCount(data.total)}` : data.done ? formatCount(data.done) : ''}${data.message ? ` — ${data.message}` : ''}`;
  }
  if (typeof data.message === 'string') return `${data.kind ? `${data.kind}: ` : ''}${data.message}`;
  if (typeof data.attempt === 'number') return `attempt ${data.attempt}`;
  return JSON.stringify(data).slice(0, 200);
}

const HISTORY_SHOWN = 120;
function History({ id }: { id: string }) {
  const history = state.histories.get(id);
  if (!history) return html`<p class="muted">Loading history…</p>`;
  const shown = history.slice(-HISTORY_SHOWN).reverse();
  return html`<div class="history">
    ${history.length > HISTORY_SHOWN ? html`<p class="muted small">Newest first; ${history.length - HISTORY_SHOWN} earlier entries not shown.</p>` : html`<p class="muted small">Newest first.</p>`}
    <ol class="events" data-count=${history.length}>
      ${shown.map(
        (event) => html`<li class=${`event event-${event.type}`}>
          <time datetime=${event.at}>${formatTime(event.at)}</time>
          <span class="event-type">${event.type}</span>
          <span class="event-data">${describeEvent(event)}</span>
        </li>`,
      )}
    </ol>
  </div>`;
}

function JobDetail({ id }: { id: string }) {
  const job = state.jobs.get(id);
  if (!job) return html`<section class="card detail"><a href="#/" class="back">← All jobs</a><p class="muted">Loading job ${id}…</p></section>`;
  const def = kindDef(job.kind);
  const ms = elapsed(job, state.now);
  const Result = def.Result;
  return html`<section class="detail" aria-labelledby="detail-h" data-job-id=${job.id} data-status=${job.status}>
    <div class="card">
      <a href="#/" class="back">← All jobs</a>
      <div class="detail-head">
        <h2 id="detail-h"><span class="badge kind">${job.kind}</span> <span class="detail-summary">${def.summary(job.input) || job.id}</span></h2>
        <${StatusBadge} status=${job.status} />
        <${JobActions} job=${job} />
      </div>
      <${ProgressBar} job=${job} />
      <dl class="facts meta">
        <dt>Job</dt><dd><code>${job.id}</code></dd>
        ${job.source
          ? html`<dt>Commit</dt><dd data-commit=${job.source.commit}><code title=${job.source.commit}>${job.source.commit.slice(0, 12)}</code>${'git' in job.source
              ? html` · <span class="muted">${job.source.git} @ ${job.source.ref}</span>`
              : job.source.dirty
                ? html` · <span class="muted">content hash: uncommitted changes</span>`
                : null}</dd>`
          : null}
        <dt>Created</dt><dd>${formatDateTime(job.createdAt)}</dd>
        <dt>Started</dt><dd>${formatDateTime(job.startedAt)}</dd>
        <dt>Finished</dt><dd>${formatDateTime(job.finishedAt)}</dd>
        <dt>Elapsed</dt><dd>${ms === undefined ? '—' : formatDuration(ms)}</dd>
        <dt>Attempts</dt><dd>${job.attempts}</dd>
      </dl>
      ${job.error && job.status !== 'succeeded'
        ? html`<div class="detail-error"><h3>${job.status === 'failed' ? 'Failed' : 'Last attempt failed'}</h3><${ErrorBox} error=${job.error} /></div>`
        : null}
    </div>
    ${job.status === 'succeeded' && job.result != null
      ? Result
        ? html`<${Result} job=${job} result=${job.result} />`
        : html`<section class="card"><h3>Result</h3><pre class="text-preview">${JSON.stringify(job.result, null, 2)}</pre></section>`
      : null}
    <details class="card" open>
      <summary><h3>History</h3></summary>
      <${History} id=${job.id} />
    </details>
    <details class="card">
      <summary><h3>Input</h3></summary>
      <pre class="text-preview">${JSON.stringify(job.input, null, 2)}</pre>
    </details>
  </section>`;
}

function Banners() {
  return html`${state.offline
      ? html`<div class="banner offline" role="status"><strong>Offline.</strong> ${state.offline.message} ${state.offline.suggestion ?? ''}</div>`
      : null}
    ${state.notice
      ? html`<div class="banner notice" role="alert">
          ${state.notice.text} ${state.notice.error ? html`<${ErrorBox} error=${state.notice.error} />` : null}
          <button type="button" onClick=${() => ((state.notice = null), changed())}>Dismiss</button>
        </div>`
      : null}`;
}

function mainView(route: Route) {
  if (route.name === 'job') return html`<${JobDetail} id=${route.id} key=${route.id} />`;
  // Keyed by the whole address: another symbol is a fresh page (its form shows what was asked).
  if (route.name === 'symbol') return html`<${SymbolPage} key=${location.hash} repository=${route.repository} ref=${route.ref} symbol=${route.symbol} />`;
  return html`<${JobsList} />`;
}

function App() {
  useStore();
  useEffect(() => syncWatched());
  return html`<${Header} />
    <main class="layout">
      <${AuthBanner} />
      <${Banners} />
      <div class=${`columns route-${state.route.name}`}>
        <div class="side"><${SubmitPanel} /></div>
        <div class="main">${mainView(state.route)}</div>
      </div>
    </main>`;
}

// ---------------------------------------------------------------- boot

async function loadService(): Promise<void> {
  for (;;) {
    try {
      const map = await api.service();
      state.available = map.kinds.available;
      state.all = map.kinds.all;
      changed();
      return;
    } catch (error) {
      noteFailure(error);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

function boot(): void {
  addEventListener('hashchange', applyRoute);
  applyRoute();
  const root = document.getElementById('app')!;
  root.textContent = '';
  render(html`<${App} />`, root);
  live.connect();
  void loadService();
  void poll();
  setInterval(() => {
    if (document.visibilityState !== 'hidden' || state.listed.length === 0) void poll();
  }, POLL_MS);
  setInterval(() => {
    state.now = Date.now();
    for (const job of state.jobs.values()) {
      if (job.status === 'running') return changed();
    }
  }, 1000);
}

boot();
