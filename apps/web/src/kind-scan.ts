import type { ScanInput, ScanResult } from './contracts.js';
import { TokenTables } from './kind-code-index.js';
import { ServiceCards } from './kind-detect.js';
import { REF_FIELD, ROOT_FIELD, refProblem, registerKind, repositoryInput, repositorySummary, rootProblem, text, workspaceFieldFor } from './kinds.js';
import { formatBytes, formatCount, formatDuration, html } from './ui.js';

const PALETTE = ['#4f7cff', '#22b07d', '#f0a030', '#e0557a', '#9a6cf0', '#2cb5c9', '#c98a2c', '#7a8aa0'];

function LanguageChart({ result }: { result: ScanResult }) {
  const languages = result.languages.slice(0, 12);
  const rest = result.languages.slice(12);
  const rows = rest.length
    ? [...languages, { language: `${rest.length} more`, files: rest.reduce((s, l) => s + l.files, 0), bytes: rest.reduce((s, l) => s + l.bytes, 0), lines: rest.reduce((s, l) => s + l.lines, 0) }]
    : languages;
  const totalBytes = Math.max(1, result.bytes);
  const totalFiles = Math.max(1, result.files);
  return html`<section class="card" aria-labelledby="lang-h">
    <h3 id="lang-h">Languages</h3>
    <div class="stacked" role="img" aria-label=${`Bytes by language: ${rows.map((l) => `${l.language} ${Math.round((l.bytes / totalBytes) * 100)}%`).join(', ')}`}>
      ${rows.map((l, i) => html`<span style=${{ width: `${(l.bytes / totalBytes) * 100}%`, background: PALETTE[i % PALETTE.length] }} title=${l.language}></span>`)}
    </div>
    <table class="bars lang-table">
      <thead>
        <tr><th scope="col">Language</th><th scope="col">Bytes</th><th scope="col">Files</th><th scope="col" class="num">Lines</th></tr>
      </thead>
      <tbody>
        ${rows.map(
          (l, i) => html`<tr>
            <th scope="row"><span class="swatch" style=${{ background: PALETTE[i % PALETTE.length] }}></span>${l.language}</th>
            <td>
              <div class="hbar"><span style=${{ width: `${(l.bytes / totalBytes) * 100}%`, background: PALETTE[i % PALETTE.length] }}></span></div>
              <span class="hbar-label">${formatBytes(l.bytes)} · ${((l.bytes / totalBytes) * 100).toFixed(1)}%</span>
            </td>
            <td>
              <div class="hbar files"><span style=${{ width: `${(l.files / totalFiles) * 100}%`, background: PALETTE[i % PALETTE.length] }}></span></div>
              <span class="hbar-label">${formatCount(l.files)} · ${((l.files / totalFiles) * 100).toFixed(1)}%</span>
            </td>
            <td class="num">${formatCount(l.lines)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function ScanResultView({ result }: { result: ScanResult }) {
  const skipped = result.skipped;
  const maxDir = Math.max(1, ...result.directories.map((d) => d.bytes));
  return html`<div class="result scan-result" data-result="scan">
    <div class="stats">
      <div class="stat"><span class="stat-value">${formatCount(result.files)}</span><span class="stat-label">files</span></div>
      <div class="stat"><span class="stat-value">${formatCount(result.lines)}</span><span class="stat-label">lines</span></div>
      <div class="stat"><span class="stat-value">${formatBytes(result.bytes)}</span><span class="stat-label">of text</span></div>
      <div class="stat"><span class="stat-value">${formatCount(result.languages.length)}</span><span class="stat-label">languages</span></div>
      ${result.tokens
        ? html`<div class="stat" data-stat="tokens"><span class="stat-value">${formatCount(result.tokens.total)}</span><span class="stat-label">tokens (${result.tokens.encoding})</span></div>`
        : null}
      ${result.symbols
        ? html`<div class="stat" data-stat="definitions" title=${`${formatCount(result.symbols.files.parsed)} files parsed${result.symbols.warnings ? `, ${formatCount(result.symbols.warnings)} without symbols (see warnings)` : ''}`}><span class="stat-value">${formatCount(result.symbols.definitions)}</span><span class="stat-label">definitions</span></div>`
        : null}
      <div class="stat"><span class="stat-value">${formatDuration(result.durationMs)}</span><span class="stat-label">scan time</span></div>
      ${result.workers !== undefined
        ? html`<div class="stat" data-stat="workers" title=${(result.workerIds ?? []).join(', ')}><span class="stat-value">${formatCount(result.workers)}</span><span class="stat-label">workers · ${formatCount(result.shards ?? 0)} shards</span></div>`
        : null}
    </div>
    <p class="muted small">
      <code>${result.root}</code>${result.source ? html` @ <code class="commit" title=${result.source.commit}>${result.source.commit.slice(0, 12)}</code>` : null} · skipped ${formatCount(skipped.ignored)} ignored, ${formatCount(skipped.binary)} binary,
      ${formatCount(skipped.symlinks)} symlinks, ${formatCount(skipped.unreadable)} unreadable${result.blobs
        ? html` · <span data-blobs>${formatCount(result.blobs.processed)} of ${formatCount(result.blobs.total)} blobs read, ${formatCount(result.blobs.reused)} known from earlier scans</span>`
        : null}${result.updatedFrom
        ? html` · <span data-updated-from title="Only the files changed since that commit's scan were looked at">updated the scan of <code class="commit">${result.updatedFrom.slice(0, 12)}</code></span>`
        : null}
    </p>
    ${result.stack?.length
      ? html`<section aria-labelledby="stack-h" data-stack>
          <h3 id="stack-h" class="section-title">Stack · ${result.stack.length} service${result.stack.length === 1 ? '' : 's'}</h3>
          <${ServiceCards} services=${result.stack} />
        </section>`
      : null}
    <${LanguageChart} result=${result} />
    ${result.tokens ? html`<${TokenTables} totals=${result.tokens} label="Repository" />` : null}
    <div class="two-col">
      <section class="card" aria-labelledby="dirs-h">
        <h3 id="dirs-h">Top-level directories</h3>
        <table class="bars">
          <thead><tr><th scope="col">Directory</th><th scope="col">Bytes</th><th scope="col" class="num">Files</th></tr></thead>
          <tbody>
            ${result.directories.slice(0, 30).map(
              (d) => html`<tr>
                <th scope="row"><code>${d.path === '.' ? './' : `${d.path}/`}</code></th>
                <td><div class="hbar"><span style=${{ width: `${(d.bytes / maxDir) * 100}%` }}></span></div><span class="hbar-label">${formatBytes(d.bytes)}</span></td>
                <td class="num">${formatCount(d.files)}</td>
              </tr>`,
            )}
          </tbody>
        </table>
        ${result.directories.length > 30 ? html`<p class="muted small">and ${result.directories.length - 30} more</p>` : null}
      </section>
      <section class="card" aria-labelledby="largest-h">
        <h3 id="largest-h">Largest files</h3>
        <table>
          <thead><tr><th scope="col">File</th><th scope="col">Language</th><th scope="col" class="num">Size</th></tr></thead>
          <tbody>
            ${result.largestFiles.map(
              (f) => html`<tr><td class="path"><code title=${f.path}>${f.path}</code></td><td>${f.language}</td><td class="num">${formatBytes(f.bytes)}</td></tr>`,
            )}
          </tbody>
        </table>
      </section>
    </div>
  </div>`;
}

registerKind({
  kind: 'scan',
  title: 'Scan',
  description: 'Walk a repository (honouring .gitignore): files, lines, bytes and tokens per language and directory, definitions, and the stack of every service.',
  fields: [ROOT_FIELD, REF_FIELD, { name: 'linesOnly', label: 'Lines and bytes only (no tokens or definitions)', type: 'checkbox', hint: 'Skips the code index: much faster on a repository never scanned before.' }],
  validate(values) {
    return { root: rootProblem(values.root), ref: refProblem(values) };
  },
  toInput: (values): ScanInput => ({ ...repositoryInput(values), ...(values.linesOnly === true ? { codeIndex: false } : {}) }),
  fieldFor: (error) => workspaceFieldFor(error, ['root', 'ref']),
  summary: repositorySummary,
  Result: ({ result }) => html`<${ScanResultView} result=${result as ScanResult} />`,
});
