import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import type { CallGraphAnswer, NavigationInput, NavigationSymbol, QuarryErrorBody, Reference, ReferencesAnswer } from './contracts.js';
import { REF_FIELD, ROOT_FIELD, refProblem, repositoryInput, rootProblem, text, type FormValues } from './kinds.js';
import { ErrorBox, formatCount, html } from './ui.js';

/*
 * The symbol page (#/symbol?repo=…&ref=…&symbol=…): a definition, its references grouped by file,
 * its callers and its callees, read with POST /v1/navigation on the commit the repository is at.
 * Every definition it shows links to its own page, so a reader walks the call graph by clicking.
 */

/** The page of `symbol` (a name, Class.method or path:line) in a repository. */
export function symbolHref(repository: string, symbol: string, ref = ''): string {
  const params = new URLSearchParams({ repo: repository });
  if (ref) params.set('ref', ref);
  params.set('symbol', symbol);
  return `#/symbol?${params}`;
}

/** The symbol page of a definition's own place: unambiguous, whatever its name shares. */
const placeOf = (symbol: { path: string; line: number }) => `${symbol.path}:${symbol.line}`;
const named = (symbol: { name: string; container?: string }) => (symbol.container ? `${symbol.container}.${symbol.name}` : symbol.name);

type Section<T> = { state: 'loading' } | { state: 'done'; answer: T } | { state: 'failed'; error: QuarryErrorBody };

interface Answers {
  references: Section<ReferencesAnswer>;
  callers?: Section<CallGraphAnswer>;
  callees?: Section<CallGraphAnswer>;
}

const failure = (error: unknown): QuarryErrorBody => (error instanceof ApiError ? error.body : { kind: 'internal', message: String(error) });

async function settle<T>(read: Promise<T>): Promise<Section<T>> {
  try {
    return { state: 'done', answer: await read };
  } catch (error) {
    return { state: 'failed', error: failure(error) };
  }
}

export function SymbolPage({ repository, ref, symbol }: { repository: string; ref: string; symbol: string }) {
  const [answers, setAnswers] = useState<Answers | null>(null);
  useEffect(() => {
    if (!repository || !symbol) return;
    let current = true;
    const base = { ...repositoryInput({ root: repository, ref }), symbol } as NavigationInput;
    setAnswers({ references: { state: 'loading' } });
    void (async () => {
      // The references first: the first read of a commit builds its graph, which the other two then reuse.
      const references = await settle(api.navigate<ReferencesAnswer>({ ...base, query: 'references', limit: 500 }));
      if (!current) return;
      if (references.state !== 'done') return setAnswers({ references });
      setAnswers({ references, callers: { state: 'loading' }, callees: { state: 'loading' } });
      const [callers, callees] = await Promise.all([
        settle(api.navigate<CallGraphAnswer>({ ...base, query: 'callers' })),
        settle(api.navigate<CallGraphAnswer>({ ...base, query: 'callees' })),
      ]);
      if (current) setAnswers({ references, callers, callees });
    })();
    return () => {
      current = false;
    };
  }, [repository, ref, symbol]);

  const href = (target: string) => symbolHref(repository, target, ref);
  return html`<div class="symbol-page" data-symbol-page>
    <${LookupForm} repository=${repository} ref=${ref} symbol=${symbol} />
    ${answers?.references.state === 'loading' ? html`<p class="muted" role="status">Reading the code graph…</p>` : null}
    ${answers?.references.state === 'failed' ? html`<section class="card" data-section="error"><${ErrorBox} error=${answers.references.error} /></section>` : null}
    ${answers?.references.state === 'done'
      ? html`<${Definition} answer=${answers.references.answer} href=${href} />
          <${References} answer=${answers.references.answer} href=${href} />
          <div class="two-col">
            <${CallList} title="Callers" name="callers" section=${answers.callers} href=${href} />
            <${CallList} title="Callees" name="callees" section=${answers.callees} href=${href} />
          </div>`
      : null}
  </div>`;
}

/** Repository, ref and symbol; submitting moves to that symbol's page. */
function LookupForm({ repository, ref, symbol }: { repository: string; ref: string; symbol: string }) {
  const [values, setValues] = useState<FormValues>({ root: repository, ref, symbol });
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const submit = (event: Event) => {
    event.preventDefault();
    const found = {
      root: rootProblem(values.root),
      ref: refProblem(values),
      symbol: text(values, 'symbol') ? undefined : 'Enter a name (Server.start) or a place (src/app.ts:12).',
    };
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    location.hash = symbolHref(text(values, 'root'), text(values, 'symbol'), text(values, 'ref'));
  };
  const field = (name: string, label: string, placeholder: string, hint?: string) => html`<div class=${`field ${errors[name] ? 'invalid' : ''}`}>
    <label for=${`symbol-${name}`}>${label}</label>
    <input
      id=${`symbol-${name}`}
      name=${name}
      type="text"
      spellcheck="false"
      autocomplete="off"
      placeholder=${placeholder}
      value=${String(values[name] ?? '')}
      aria-invalid=${errors[name] ? 'true' : undefined}
      onInput=${(event: Event) => setValues({ ...values, [name]: (event.target as HTMLInputElement).value })}
    />
    ${hint ? html`<p class="hint">${hint}</p>` : null}
    ${errors[name] ? html`<p class="field-error" role="alert">${errors[name]}</p>` : null}
  </div>`;
  return html`<section class="card" aria-labelledby="symbol-h">
    <a href="#/" class="back">← All jobs</a>
    <h2 id="symbol-h">Code navigation</h2>
    <form class="symbol-lookup" novalidate onSubmit=${submit}>
      ${field('root', ROOT_FIELD.label, ROOT_FIELD.placeholder ?? '')}
      ${field('ref', REF_FIELD.label, REF_FIELD.placeholder ?? '')}
      ${field('symbol', 'Symbol', 'Server.start or src/server.ts:42', 'A name, Class.method, or a place path:line (the definition there, or the one a use there names).')}
      <div class="actions"><button type="submit" class="primary">Look up</button></div>
    </form>
  </section>`;
}

function Definition({ answer, href }: { answer: ReferencesAnswer; href: (target: string) => string }) {
  const { symbol, alternatives, source } = answer;
  return html`<section class="card" data-section="definition" aria-labelledby="definition-h">
    <h3 id="definition-h"><code data-symbol-name>${named(symbol)}</code> <span class="badge">${symbol.kind}</span></h3>
    <p><code data-definition-place>${placeOf(symbol)}</code> <span class="muted small">lines ${symbol.startLine}–${symbol.endLine} · commit <code title=${source.commit}>${source.commit.slice(0, 12)}</code></span></p>
    ${symbol.signature ? html`<pre class="text-preview signature">${symbol.signature}</pre>` : null}
    ${alternatives.length
      ? html`<p class="small" data-alternatives>Also named so: ${alternatives.map(
          (other, index) => html`${index ? ', ' : ''}<a href=${href(placeOf(other))}>${named(other)}</a> <span class="muted">(${placeOf(other)})</span>`,
        )}</p>`
      : null}
  </section>`;
}

/** References grouped by file, in the order the graph lists them. */
function References({ answer, href }: { answer: ReferencesAnswer; href: (target: string) => string }) {
  const files = new Map<string, Reference[]>();
  for (const reference of answer.references) files.set(reference.path, [...(files.get(reference.path) ?? []), reference]);
  return html`<section class="card" data-section="references" aria-labelledby="references-h">
    <h3 id="references-h">References <span class="muted small">${formatCount(answer.total)} use${answer.total === 1 ? '' : 's'} in ${formatCount(answer.files)} file${answer.files === 1 ? '' : 's'}${answer.truncated ? `, first ${formatCount(answer.references.length)} shown` : ''}</span></h3>
    ${files.size === 0 ? html`<p class="muted">No uses in the repository.</p>` : null}
    ${[...files].map(
      ([path, uses]) => html`<div class="ref-file" data-file=${path}>
        <h4><code>${path}</code> <span class="muted small">${uses.length}</span></h4>
        <ol class="ref-lines">
          ${uses.map(
            (use) => html`<li data-line=${use.line}>
              <span class="ref-place">${use.line}:${use.column}</span>
              <code class="ref-text">${use.text.trim()}</code>
              ${use.enclosing ? html`<span class="muted small">in <a href=${href(`${path}:${use.enclosing.line}`)}>${named(use.enclosing)}</a></span>` : null}
              ${use.ambiguous || use.resolution === 'member' ? html`<span class="badge warn" title="Resolved by name only: another definition is as likely">guessed</span>` : null}
            </li>`,
          )}
        </ol>
      </div>`,
    )}
  </section>`;
}

function CallList({ title, name, section, href }: { title: string; name: string; section?: Section<CallGraphAnswer>; href: (target: string) => string }) {
  const body = () => {
    if (!section || section.state === 'loading') return html`<p class="muted">Loading…</p>`;
    if (section.state === 'failed') return html`<${ErrorBox} error=${section.error} />`;
    const { entries } = section.answer;
    if (entries.length === 0) return html`<p class="muted">${name === 'callers' ? 'Nothing in the repository calls it.' : 'It calls nothing defined in the repository.'}</p>`;
    return html`<ul class="call-list">
      ${entries.map(
        (entry: NavigationSymbol & { sites: { line: number }[]; ambiguous: boolean }) => html`<li data-entry=${named(entry)}>
          <a href=${href(placeOf(entry))}>${named(entry)}</a> <span class="badge">${entry.kind}</span>
          <code class="muted small">${placeOf(entry)}</code>
          <span class="muted small">${entry.sites.length === 1 ? `line ${entry.sites[0].line}` : `${entry.sites.length} sites`}${entry.ambiguous ? ', guessed' : ''}</span>
        </li>`,
      )}
    </ul>`;
  };
  return html`<section class="card" data-section=${name} aria-label=${title}><h3>${title}</h3>${body()}</section>`;
}
