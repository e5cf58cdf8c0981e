import type { VNode } from 'preact';
import type { DetectResult, FetchResult, InterpretInput, InterpretResult } from './contracts.js';
import { ServiceCards } from './kind-detect.js';
import { REF_FIELD, ROOT_FIELD, refProblem, registerKind, repositoryInput, repositorySummary, rootProblem, text, workspaceFieldFor } from './kinds.js';
import { ErrorBox, formatBytes, formatCount, html } from './ui.js';

type Step = InterpretResult['plan']['tools'][number];
type StepResult = InterpretResult['results'][number];

const MAX_QUERY_CHARS = 4000;
const AI_MODES = ['auto', 'off', 'only'] as const;
const PREVIEW_CHARS = 4000;
const ROWS_SHOWN = 200;

// Tool outputs are `unknown` in the contract: each view checks the shape it needs and the
// caller falls back to JSON, so a tool that changes its output degrades instead of breaking the page.
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayIn = (value: unknown, key: string): unknown[] | undefined => (isObject(value) && Array.isArray(value[key]) ? (value[key] as unknown[]) : undefined);

function More({ shown, total, what }: { shown: number; total: number; what: string }) {
  return total > shown ? html`<p class="muted small">${formatCount(total - shown)} more ${what} not shown.</p>` : null;
}

function ReadFileOutput({ output }: { output: Record<string, unknown> }) {
  const range = output.range as { start: number; end: number } | undefined;
  const total = typeof output.totalLines === 'number' ? output.totalLines : undefined;
  return html`<div class="tool-output read-file">
    <p class="muted small">
      <code>${String(output.path)}</code>
      ${range ? ` · lines ${range.start}–${range.end}` : ''}${total !== undefined ? ` of ${formatCount(total)}` : ''}
      ${output.redactions ? html` · <span class="badge warn">${output.redactions} secret${output.redactions === 1 ? '' : 's'} redacted</span>` : null}
    </p>
    <pre class="text-preview file-text" tabindex="0" data-first-line=${range?.start ?? 1}>${String(output.text)}</pre>
  </div>`;
}

function ListFilesOutput({ output }: { output: Record<string, unknown> }) {
  const entries = (arrayIn(output, 'entries') ?? []).filter(isObject);
  const total = typeof output.totalEntries === 'number' ? output.totalEntries : entries.length;
  return html`<div class="tool-output list-files">
    <p class="muted small"><code>${String(output.path) || './'}</code> · ${formatCount(total)} entr${total === 1 ? 'y' : 'ies'}</p>
    <ul class="entries">
      ${entries.slice(0, ROWS_SHOWN).map(
        (entry) => html`<li class=${`entry entry-${entry.type}`}>
          <code>${String(entry.path)}${entry.type === 'directory' ? '/' : ''}</code>
          ${typeof entry.size === 'number' ? html`<span class="muted small">${formatBytes(entry.size)}</span>` : null}
        </li>`,
      )}
    </ul>
    <${More} shown=${Math.min(entries.length, ROWS_SHOWN)} total=${total} what="entries" />
  </div>`;
}

function FindFilesOutput({ output }: { output: Record<string, unknown> }) {
  const matches = (arrayIn(output, 'matches') ?? []).map(String);
  const total = typeof output.total === 'number' ? output.total : matches.length;
  return html`<div class="tool-output find-files">
    <p class="muted small">${formatCount(total)} file${total === 1 ? '' : 's'}${output.caseInsensitive ? ' (ignoring case: nothing matched exactly)' : ''}</p>
    ${matches.length ? html`<ul class="entries">${matches.slice(0, ROWS_SHOWN).map((path) => html`<li class="entry"><code>${path}</code></li>`)}</ul>` : null}
    <${More} shown=${Math.min(matches.length, ROWS_SHOWN)} total=${total} what="files" />
  </div>`;
}

function SearchOutput({ output }: { output: Record<string, unknown> }) {
  const matches = (arrayIn(output, 'matches') ?? []).filter(isObject);
  const total = typeof output.totalMatches === 'number' ? output.totalMatches : matches.length;
  const searched = typeof output.filesSearched === 'number' ? ` in ${formatCount(output.filesSearched)} files` : '';
  return html`<div class="tool-output search">
    <p class="muted small">
      ${formatCount(total)} match${total === 1 ? '' : 'es'}${searched}
      ${output.timedOut ? html` <span class="badge warn">timed out</span>` : null}${output.truncated ? html` <span class="badge warn">truncated</span>` : null}
    </p>
    ${matches.length
      ? html`<div class="matches" tabindex="0">
          ${matches.slice(0, ROWS_SHOWN).map(
            (match) => html`<div class="match"><code class="where">${String(match.path)}:${String(match.line)}:</code> <code class="line-text">${String(match.text)}</code></div>`,
          )}
        </div>`
      : null}
    <${More} shown=${Math.min(matches.length, ROWS_SHOWN)} total=${total} what="matches" />
  </div>`;
}

function FetchUrlOutput({ output }: { output: FetchResult }) {
  const preview = output.text.length > PREVIEW_CHARS ? `${output.text.slice(0, PREVIEW_CHARS)}…` : output.text;
  return html`<div class="tool-output fetch-url">
    <p class="fetch-line"><strong>${output.title || '(untitled)'}</strong> · <a href=${output.finalUrl} rel="noopener noreferrer nofollow" target="_blank"><code>${output.finalUrl}</code></a></p>
    <pre class="text-preview" tabindex="0">${preview}</pre>
  </div>`;
}

function JsonOutput({ output }: { output: unknown }) {
  return html`<pre class="text-preview" tabindex="0">${JSON.stringify(output, null, 2)}</pre>`;
}

/** The executor cuts an output over 64 KiB to its JSON text: say so, show that text. */
function CutOutput({ output }: { output: Record<string, unknown> }) {
  return html`<div class="tool-output cut-output">
    <p><span class="badge warn">truncated</span> <span class="muted small">${String(output.note ?? '')}</span></p>
    <pre class="text-preview" tabindex="0">${String(output.partial ?? '')}</pre>
  </div>`;
}

/** How each tool's output reads; a shape it does not recognise is shown as JSON. */
const OUTPUT_VIEWS: Record<string, (output: unknown) => VNode<any> | undefined> = {
  read_file: (output) => (isObject(output) && typeof output.text === 'string' ? html`<${ReadFileOutput} output=${output} />` : undefined),
  list_files: (output) => (arrayIn(output, 'entries') ? html`<${ListFilesOutput} output=${output} />` : undefined),
  find_files: (output) => (arrayIn(output, 'matches') ? html`<${FindFilesOutput} output=${output} />` : undefined),
  search: (output) => (arrayIn(output, 'matches') ? html`<${SearchOutput} output=${output} />` : undefined),
  grep: (output) => (arrayIn(output, 'matches') ? html`<${SearchOutput} output=${output} />` : undefined),
  detect_stack: (output) =>
    Array.isArray(output) && output.every((service) => isObject(service) && isObject(service.metadata))
      ? html`<${ServiceCards} services=${output as DetectResult} />`
      : undefined,
  fetch_url: (output) =>
    isObject(output) && typeof output.finalUrl === 'string' && typeof output.text === 'string' ? html`<${FetchUrlOutput} output=${output as FetchResult} />` : undefined,
};

function ToolOutput({ tool, output }: { tool: string; output: unknown }) {
  if (isObject(output) && output.truncated === true && typeof output.partial === 'string') return html`<${CutOutput} output=${output} />`;
  return OUTPUT_VIEWS[tool]?.(output) ?? html`<${JsonOutput} output=${output} />`;
}

function argsText(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
    .join(' ');
}

function StepSection({ index, step, result }: { index: number; step: Step | undefined; result: StepResult | undefined }) {
  const tool = step?.name ?? result?.tool ?? '?';
  const state = result ? (result.ok ? 'ok' : 'error') : 'planned';
  return html`<section class="card step" data-tool=${tool} data-step=${index} data-outcome=${state} aria-label=${`Step ${index + 1}: ${tool}`}>
    <div class="step-head">
      <span class="step-number">${index + 1}</span>
      <code class="step-tool">${tool}</code>
      ${step ? html`<code class="step-args" title="Arguments">${argsText(step.args)}</code>` : null}
      <span class="step-badges">
        ${step ? html`<span class="badge" title="Planner confidence">${Math.round(step.confidence * 100)}%</span>` : null}
        <span class=${`badge outcome-${state}`}>${state === 'planned' ? 'not run' : state}</span>
      </span>
    </div>
    ${result?.ok ? html`<${ToolOutput} tool=${tool} output=${result.output} />` : null}
    ${result && !result.ok && result.error ? html`<${ErrorBox} error=${result.error} />` : null}
  </section>`;
}

function InterpretResultView({ result }: { result: InterpretResult }) {
  const { plan } = result;
  const steps = Math.max(plan.tools.length, result.results.length);
  return html`<div class="result interpret-result" data-result="interpret">
    <section class="card plan">
      <div class="plan-head">
        <h3>Plan</h3>
        <span class=${`badge source source-${result.source}`} data-source=${result.source} title="Who planned the tools">${result.source === 'ai' ? 'AI' : 'rules'}</span>
        <span class="muted small">${plan.needs_tools ? `${plan.tools.length} step${plan.tools.length === 1 ? '' : 's'}` : 'no tools needed'}</span>
      </div>
      ${plan.clarification
        ? html`<div class="clarification" role="alert" data-clarification>
            <strong>Which one?</strong> ${plan.clarification}
            <p class="muted small">Nothing ran: ask again with the answer in the question.</p>
          </div>`
        : null}
      <p class="rationale">${plan.rationale}</p>
      ${plan.notes ? html`<p class="notes muted small">${plan.notes}</p>` : null}
      ${result.dropped.length
        ? html`<div class="dropped">
            <span class="muted small">Dropped from the plan:</span>
            <ul>${result.dropped.map((drop) => html`<li><code>${drop.tool}</code> — ${drop.reason}</li>`)}</ul>
          </div>`
        : null}
    </section>
    ${Array.from({ length: steps }, (_, index) => html`<${StepSection} key=${index} index=${index} step=${plan.tools[index]} result=${result.results[index]} />`)}
  </div>`;
}

registerKind({
  kind: 'interpret',
  title: 'Interpret',
  description: 'Ask about a repository in plain words; Quarry plans the tools (AI, or rules as a fallback) and runs them.',
  fields: [
    ROOT_FIELD,
    REF_FIELD,
    { name: 'query', label: 'Question', type: 'textarea', rows: 3, placeholder: 'Which files mention fetchUser in the api folder?' },
    { name: 'cwd', label: 'Current directory (optional)', type: 'text', placeholder: 'src/api', hint: 'What "here" and "this folder" mean; relative to the repository.' },
    { name: 'activeFile', label: 'Active file (optional)', type: 'text', placeholder: 'src/api/users.ts', hint: 'What "this file" means.' },
    {
      name: 'ai',
      label: 'AI planner',
      type: 'select',
      options: [
        { value: 'auto', label: 'Auto (AI, rules if it fails)' },
        { value: 'off', label: 'Off (rules only)' },
        { value: 'only', label: 'Only (fail without the AI)' },
      ],
    },
    { name: 'planOnly', label: 'Plan only: do not run the tools', type: 'checkbox' },
  ],
  validate(values) {
    const query = text(values, 'query');
    const ai = text(values, 'ai');
    return {
      root: rootProblem(values.root),
      ref: refProblem(values),
      query: !query ? 'Ask a question.' : query.length > MAX_QUERY_CHARS ? `A question is at most ${formatCount(MAX_QUERY_CHARS)} characters.` : undefined,
      ai: ai && !(AI_MODES as readonly string[]).includes(ai) ? 'Choose auto, off or only.' : undefined,
    };
  },
  toInput(values): InterpretInput {
    const context = { cwd: text(values, 'cwd'), activeFile: text(values, 'activeFile') };
    const given = Object.fromEntries(Object.entries(context).filter(([, value]) => value));
    return {
      ...repositoryInput(values),
      query: text(values, 'query'),
      ...(Object.keys(given).length ? { context: given } : {}),
      execute: values.planOnly !== true,
      ai: (text(values, 'ai') || 'auto') as InterpretInput['ai'],
    };
  },
  fieldFor: (error) => (/^llm_/.test(error.kind) ? 'ai' : workspaceFieldFor(error, ['root', 'ref', 'query', 'cwd', 'activeFile', 'ai'])),
  summary: (input) => (input as InterpretInput)?.query ?? '',
  Result: ({ result }) => html`<${InterpretResultView} result=${result as InterpretResult} />`,
});
