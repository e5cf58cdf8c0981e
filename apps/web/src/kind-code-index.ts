import { useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import type { JobView, MapInput, MapResult, PackInput, PackResult, QuarryErrorBody, SymbolsInput, SymbolsResult } from './contracts.js';
import { type FormValues, REF_FIELD, ROOT_FIELD, fieldNamedIn, refProblem, registerKind, repositoryInput, repositorySummary, rootProblem, text, workspaceFieldFor } from './kinds.js';
import { symbolHref } from './symbol-page.js';
import { ErrorBox, formatBytes, formatCount, formatDuration, html } from './ui.js';

/*
 * The code-index kinds: symbols (definitions), map (the ranked repo map within a token budget) and
 * pack (the repository as one document, downloaded from the job's artifact).
 */

/** Tokens per language and directory: a map's or pack's totals, or a scan's. */
type TokenTotals = Pick<MapResult['repository'], 'total' | 'encoding' | 'byLanguage' | 'byDirectory'>;

/** A comma- or newline-separated field as a list ('' → undefined). */
function list(values: FormValues, name: string): string[] | undefined {
  const items = text(values, name)
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

function budgetProblem(raw: string, what: string, max: number): string | undefined {
  if (raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) return `${what} is a whole number from 1 to ${formatCount(max)}.`;
  return undefined;
}

const codeIndexFieldFor = (fields: string[]) => (error: QuarryErrorBody) => {
  if (error.kind === 'budget_invalid') return fields.includes('tokens') ? 'tokens' : 'maxTokens';
  if (error.kind === 'style_unknown') return 'style';
  if (error.kind === 'symbol_invalid' || error.kind === 'symbol_not_found') return 'name';
  if (error.kind === 'pattern_invalid') return fields.find((field) => error.message.includes(field)) ?? fields.find((field) => ['include', 'path'].includes(field));
  return workspaceFieldFor(error, fields) ?? fieldNamedIn(error, fields);
};

export function TokenTables({ totals, label }: { totals: TokenTotals; label: string }) {
  const max = Math.max(1, ...totals.byLanguage.map((row) => row.tokens));
  const maxDir = Math.max(1, ...totals.byDirectory.map((row) => row.tokens));
  return html`<div class="two-col" data-token-totals>
    <section class="card" aria-label=${`${label} tokens by language`}>
      <h3>Tokens by language <span class="muted small">${formatCount(totals.total)} ${totals.encoding}</span></h3>
      <table class="bars">
        <thead><tr><th scope="col">Language</th><th scope="col">Tokens</th><th scope="col" class="num">Files</th></tr></thead>
        <tbody>
          ${totals.byLanguage.slice(0, 15).map(
            (row) => html`<tr data-language=${row.language}>
              <th scope="row">${row.language}</th>
              <td><div class="hbar"><span style=${{ width: `${(row.tokens / max) * 100}%` }}></span></div><span class="hbar-label">${formatCount(row.tokens)}</span></td>
              <td class="num">${formatCount(row.files)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section class="card" aria-label=${`${label} tokens by directory`}>
      <h3>Tokens by directory</h3>
      <table class="bars">
        <thead><tr><th scope="col">Directory</th><th scope="col">Tokens</th><th scope="col" class="num">Files</th></tr></thead>
        <tbody>
          ${totals.byDirectory.slice(0, 20).map(
            (row) => html`<tr data-directory=${row.path}>
              <th scope="row"><code>${row.path === '.' ? './' : `${row.path}/`}</code></th>
              <td><div class="hbar"><span style=${{ width: `${(row.tokens / maxDir) * 100}%` }}></span></div><span class="hbar-label">${formatCount(row.tokens)}</span></td>
              <td class="num">${formatCount(row.files)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>
  </div>`;
}

/** The symbol page of a definition a job found, on the commit the job read (a git URL pinned to it). */
function symbolPageOf(job: JobView, place: string): string | undefined {
  const input = job.input as SymbolsInput | null;
  if (input?.root) return symbolHref(input.root, place);
  if (input?.source && 'path' in input.source) return symbolHref(input.source.path, place);
  if (input?.source && 'git' in input.source) return symbolHref(input.source.git, place, job.source?.commit ?? input.source.ref ?? '');
  return undefined;
}

function SymbolsResultView({ job, result }: { job: JobView; result: SymbolsResult }) {
  return html`<div class="result symbols-result" data-result="symbols">
    <p class="muted small">${formatCount(result.total)} definition${result.total === 1 ? '' : 's'} in ${formatCount(result.files)} file${result.files === 1 ? '' : 's'}${result.truncated ? `, first ${formatCount(result.definitions.length)} shown` : ''}</p>
    <section class="card">
      <table class="symbols-table">
        <thead><tr><th scope="col">Where</th><th scope="col">Kind</th><th scope="col">Signature</th><th scope="col" class="num">Uses</th></tr></thead>
        <tbody>
          ${result.definitions.slice(0, 500).map(
            (row) => html`<tr data-symbol=${row.container ? `${row.container}.${row.name}` : row.name}>
              <td class="path">${symbolPageOf(job, `${row.path}:${row.line}`)
                ? html`<a href=${symbolPageOf(job, `${row.path}:${row.line}`)} title="References, callers and callees"><code>${row.path}:${row.line}</code></a>`
                : html`<code>${row.path}:${row.line}</code>`}</td>
              <td><span class="badge">${row.kind}</span></td>
              <td><code>${row.signature || row.name}</code></td>
              <td class="num">${row.references === undefined ? '' : formatCount(row.references)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>
  </div>`;
}

function MapResultView({ result }: { result: MapResult }) {
  const shown = result.files.reduce((sum, file) => sum + file.definitions, 0);
  return html`<div class="result map-result" data-result="map">
    <div class="stats">
      <div class="stat"><span class="stat-value" data-stat="tokens">${formatCount(result.tokens)}</span><span class="stat-label">tokens (${result.encoding})</span></div>
      <div class="stat"><span class="stat-value">${formatCount(result.files.length)} / ${formatCount(result.totalFiles)}</span><span class="stat-label">files shown</span></div>
      <div class="stat"><span class="stat-value">${formatCount(shown)} / ${formatCount(result.totalDefinitions)}</span><span class="stat-label">definitions shown</span></div>
      <div class="stat"><span class="stat-value">${formatCount(result.repository.total)}</span><span class="stat-label">tokens in the repository</span></div>
    </div>
    ${result.focus.paths.length + result.focus.symbols.length
      ? html`<p class="muted small">Focused on ${[...result.focus.paths, ...result.focus.symbols].map((item) => html`<code>${item}</code> `)}</p>`
      : null}
    <section class="card" aria-label="Repo map">
      <h3>Map</h3>
      <pre class="text-preview map-text" tabindex="0">${result.text}</pre>
    </section>
    <${TokenTables} totals=${result.repository} label="Repository" />
  </div>`;
}

function DownloadArtifact({ jobId, name }: { jobId: string; name: string }) {
  const [error, setError] = useState<QuarryErrorBody | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const blob = await api.artifact(jobId);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.body : { kind: 'internal', message: String(caught) });
    } finally {
      setBusy(false);
    }
  };
  return html`<div class="download">
    <button type="button" class="primary" data-action="download" disabled=${busy} onClick=${download}>${busy ? 'Downloading…' : `Download ${name}`}</button>
    ${error ? html`<${ErrorBox} error=${error} />` : null}
  </div>`;
}

function PackResultView({ job, result }: { job: { id: string }; result: PackResult }) {
  const notes = [
    result.redactions ? `${formatCount(result.redactions)} secret${result.redactions === 1 ? '' : 's'} redacted` : '',
    result.compressed ? `${formatCount(result.compressed)} files compressed` : '',
    result.omitted ? `${formatCount(result.omitted)} files over the budget omitted` : '',
    result.skipped.binary ? `${formatCount(result.skipped.binary)} binary skipped` : '',
    result.skipped.filtered ? `${formatCount(result.skipped.filtered)} filtered out` : '',
    result.skipped.secretFiles ? `${formatCount(result.skipped.secretFiles)} credential files left out` : '',
  ].filter(Boolean);
  return html`<div class="result pack-result" data-result="pack">
    <div class="stats">
      <div class="stat"><span class="stat-value" data-stat="files">${formatCount(result.files)}</span><span class="stat-label">files packed</span></div>
      <div class="stat"><span class="stat-value" data-stat="tokens">${formatCount(result.tokens)}</span><span class="stat-label">tokens (${result.encoding})</span></div>
      <div class="stat"><span class="stat-value">${formatBytes(result.bytes)}</span><span class="stat-label">${result.style}</span></div>
      <div class="stat"><span class="stat-value">${formatDuration(result.durationMs)}</span><span class="stat-label">pack time</span></div>
    </div>
    ${notes.length ? html`<p class="muted small" data-pack-notes>${notes.join(' · ')}</p>` : null}
    <${DownloadArtifact} jobId=${job.id} name=${result.artifact.name} />
    <${TokenTables} totals=${result.totals} label="Packed" />
  </div>`;
}

registerKind({
  kind: 'symbols',
  title: 'Symbols',
  description: 'Where a name is defined (Name, Class.method), ranked, or every definition in the files a glob selects — from a tree-sitter parse of 11 languages.',
  fields: [
    ROOT_FIELD,
    REF_FIELD,
    { name: 'name', label: 'Symbol', type: 'text', placeholder: 'Server.start', hint: 'Leave empty to list every definition.' },
    { name: 'path', label: 'Files', type: 'text', placeholder: 'src/**/*.ts', hint: 'A glob relative to the repository (optional).' },
  ],
  validate(values) {
    const name = text(values, 'name');
    return { root: rootProblem(values.root), ref: refProblem(values), name: name.length > 256 ? 'A symbol name is at most 256 characters.' : undefined };
  },
  toInput: (values): SymbolsInput => ({
    ...repositoryInput(values),
    ...(text(values, 'name') ? { name: text(values, 'name') } : {}),
    ...(text(values, 'path') ? { path: text(values, 'path') } : {}),
  }),
  fieldFor: codeIndexFieldFor(['root', 'ref', 'name', 'path']),
  summary: (input) => {
    const value = input as SymbolsInput;
    return `${value?.name ?? value?.path ?? 'all definitions'} · ${repositorySummary(value)}`;
  },
  Result: ({ job, result }) => html`<${SymbolsResultView} job=${job} result=${result as SymbolsResult} />`,
});

registerKind({
  kind: 'map',
  title: 'Map',
  description: 'The repo map: the most important files and their signatures, ranked by who uses what (PageRank), cut exactly to a token budget.',
  fields: [
    ROOT_FIELD,
    REF_FIELD,
    { name: 'tokens', label: 'Token budget', type: 'text', placeholder: '2048' },
    { name: 'focus', label: 'Focus', type: 'text', placeholder: 'src/app.ts, parseConfig', hint: 'Files or symbols to rank toward, comma-separated (optional).' },
  ],
  validate(values) {
    return { root: rootProblem(values.root), ref: refProblem(values), tokens: budgetProblem(text(values, 'tokens'), 'The budget', 1_000_000) };
  },
  toInput: (values): MapInput => ({
    ...repositoryInput(values),
    ...(text(values, 'tokens') ? { tokens: Number(text(values, 'tokens')) } : {}),
    ...(list(values, 'focus') ? { focus: list(values, 'focus') } : {}),
  }),
  fieldFor: codeIndexFieldFor(['root', 'ref', 'tokens', 'focus']),
  summary: (input) => `${(input as MapInput)?.tokens ?? 2048} tokens · ${repositorySummary(input)}`,
  Result: ({ result }) => html`<${MapResultView} result=${result as MapResult} />`,
});

registerKind({
  kind: 'pack',
  title: 'Pack',
  description: 'The repository as one LLM-ready document — tree, then every text file with its token count — secrets redacted, streamed to a download.',
  fields: [
    ROOT_FIELD,
    REF_FIELD,
    {
      name: 'style',
      label: 'Style',
      type: 'select',
      options: [
        { value: 'xml', label: 'XML' },
        { value: 'markdown', label: 'Markdown' },
        { value: 'plain', label: 'Plain text' },
      ],
    },
    { name: 'include', label: 'Include', type: 'text', placeholder: 'src/**, *.md', hint: 'Globs, comma-separated (optional).' },
    { name: 'ignore', label: 'Ignore', type: 'text', placeholder: '**/test/**', hint: 'Globs, comma-separated (optional).' },
    { name: 'maxTokens', label: 'Token budget', type: 'text', placeholder: 'no limit' },
    { name: 'compress', label: 'Keep signatures, drop function bodies', type: 'checkbox' },
  ],
  validate(values) {
    return { root: rootProblem(values.root), ref: refProblem(values), maxTokens: budgetProblem(text(values, 'maxTokens'), 'The budget', 1_000_000_000) };
  },
  toInput: (values): PackInput => ({
    ...repositoryInput(values),
    style: text(values, 'style') || 'xml',
    ...(list(values, 'include') ? { include: list(values, 'include') } : {}),
    ...(list(values, 'ignore') ? { ignore: list(values, 'ignore') } : {}),
    ...(text(values, 'maxTokens') ? { maxTokens: Number(text(values, 'maxTokens')) } : {}),
    compress: values.compress === true,
  }),
  fieldFor: codeIndexFieldFor(['root', 'ref', 'style', 'include', 'ignore', 'maxTokens']),
  summary: (input) => `${(input as PackInput)?.style ?? 'xml'} · ${repositorySummary(input)}`,
  Result: ({ job, result }) => html`<${PackResultView} job=${job} result=${result as PackResult} />`,
});
