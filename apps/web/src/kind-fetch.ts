import type { FetchInput, FetchResult } from './contracts.js';
import { fieldNamedIn, registerKind } from './kinds.js';
import { formatBytes, formatDateTime, html } from './ui.js';

const PREVIEW_CHARS = 6000;

function FetchResultView({ result }: { result: FetchResult }) {
  const preview = result.text.length > PREVIEW_CHARS ? `${result.text.slice(0, PREVIEW_CHARS)}…` : result.text;
  return html`<div class="result fetch-result" data-result="fetch">
    <div class="fetch-head card">
      <div class="fetch-title-row">
        <h3 class="fetch-title">${result.title || '(untitled)'}</h3>
        <span class=${`badge ${result.fromCache ? 'cached' : 'fresh'}`} data-cache=${result.fromCache ? 'cached' : 'fresh'}>${result.fromCache ? 'Cached' : 'Fresh'}</span>
      </div>
      <dl class="facts">
        <dt>Final URL</dt><dd><a href=${result.finalUrl} rel="noopener noreferrer nofollow" target="_blank"><code>${result.finalUrl}</code></a></dd>
        ${result.finalUrl !== result.url ? html`<dt>Requested</dt><dd><code>${result.url}</code></dd>` : null}
        <dt>Status</dt><dd>${result.status} · ${result.contentType}</dd>
        <dt>Size</dt><dd>${formatBytes(result.bytes)}${result.truncated ? html` <span class="badge warn">truncated</span>` : null}</dd>
        <dt>Fetched</dt><dd>${formatDateTime(result.fetchedAt)}</dd>
        <dt>Redirects</dt>
        <dd>
          ${result.redirects.length === 0
            ? html`<span class="muted">none</span>`
            : html`<ol class="redirects">${result.redirects.map((hop) => html`<li><code>${hop}</code></li>`)}</ol>`}
        </dd>
      </dl>
    </div>
    <section class="card" aria-labelledby="text-h">
      <h3 id="text-h">Text <span class="muted small">${result.text.length.toLocaleString('en-US')} characters</span></h3>
      <pre class="text-preview" tabindex="0">${preview}</pre>
    </section>
  </div>`;
}

registerKind({
  kind: 'fetch',
  title: 'Fetch',
  description: 'Read a web page or document as text, through the SSRF guards, the cache and the per-domain limits.',
  fields: [
    { name: 'url', label: 'URL', type: 'url', placeholder: 'https://docs.example.org/guide' },
    { name: 'force', label: 'Bypass the cache', type: 'checkbox' },
  ],
  validate(values) {
    const raw = String(values.url ?? '').trim();
    if (!raw) return { url: 'Enter a URL.' };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { url: 'Not a URL: include the scheme, e.g. https://example.org/page.' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { url: 'Only http and https URLs can be fetched.' };
    if (url.username || url.password) return { url: 'Remove the user name and password from the URL.' };
    if (raw.length > 8192) return { url: 'A URL is at most 8,192 characters.' };
    return {};
  },
  toInput: (values): FetchInput => ({ url: String(values.url).trim(), force: values.force === true }),
  fieldFor: (error) => (/^(url_|dns_|content_type|too_many)/.test(error.kind) ? 'url' : fieldNamedIn(error, ['url', 'force'])),
  summary: (input) => (input as FetchInput)?.url ?? '',
  Result: ({ result }) => html`<${FetchResultView} result=${result as FetchResult} />`,
});
