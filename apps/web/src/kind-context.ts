import type { ContextInput, ContextResult, QuarryErrorBody } from './contracts.js';
import { REF_FIELD, ROOT_FIELD, fieldNamedIn, refProblem, registerKind, repositoryInput, repositorySummary, rootProblem, text, workspaceFieldFor } from './kinds.js';
import { formatCount, html } from './ui.js';

/*
 * The context kind: a task (an issue, a question, a stack trace) → the files and spans of code it
 * touches, ranked with the signals that put them there, and the spans' code within the budget.
 */

const TASK_MAX_BYTES = 64 * 1024;

type Why = ContextResult['files'][number]['why'];

/** The signals behind a score, strongest first, each with what it matched. */
function Signals({ why }: { why: Why }) {
  const shown = [...why].filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score).slice(0, 4);
  return html`<span class="signals">${shown.map(
    (entry) => html`<span class="badge signal" data-signal=${entry.signal} title=${entry.notes.join('\n')}>${entry.signal}${entry.notes[0] ? html` <span class="muted">${entry.notes[0]}</span>` : null}</span> `,
  )}</span>`;
}

/** The context's code blocks, one per span it holds (blocks are separated by a blank line; code lines always carry their number). */
function blocksOf(context: string): string[] {
  return context.split('\n\n').map((block) => block.trim()).filter(Boolean);
}

function ContextResultView({ result }: { result: ContextResult }) {
  const blocks = blocksOf(result.context);
  const inContext = result.spans.filter((span) => span.inContext !== 'omitted');
  return html`<div class="result context-result" data-result="context">
    <div class="stats">
      <div class="stat"><span class="stat-value" data-stat="tokens">${formatCount(result.tokens)} / ${formatCount(result.budget)}</span><span class="stat-label">tokens (${result.encoding})</span></div>
      <div class="stat"><span class="stat-value" data-stat="spans">${formatCount(inContext.length)}</span><span class="stat-label">spans in the context</span></div>
      <div class="stat"><span class="stat-value">${formatCount(result.stats.files)}</span><span class="stat-label">files searched</span></div>
      ${result.commit ? html`<div class="stat"><span class="stat-value"><code>${result.commit.slice(0, 12)}</code></span><span class="stat-label">commit</span></div>` : null}
    </div>
    ${result.warnings.map((warning) => html`<p class="warning" data-warning>${warning}</p>`)}
    <section class="card" aria-label="Ranked files">
      <h3>Files, best first</h3>
      <table class="context-files">
        <thead><tr><th scope="col">File</th><th scope="col">Role</th><th scope="col" class="num">Score</th><th scope="col">Why</th></tr></thead>
        <tbody>
          ${result.files.map(
            (file) => html`<tr data-file=${file.path}>
              <td class="path"><code>${file.path}</code></td>
              <td><span class="badge">${file.role}</span></td>
              <td class="num">${file.score.toFixed(2)}</td>
              <td><${Signals} why=${file.why} /></td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section class="card" aria-label="Spans">
      <h3>Spans, best first</h3>
      ${result.spans.map((span) => {
        const shown = span.inContext === 'omitted' ? undefined : blocks[inContext.indexOf(span)];
        return html`<article class="context-span" data-span=${`${span.path}:${span.startLine}-${span.endLine}`} data-in-context=${span.inContext}>
          <header>
            <code>${span.path}:${span.startLine}-${span.endLine}</code>
            ${span.symbol ? html` <span class="badge">${span.kind ?? 'definition'}</span> <code>${span.container ? `${span.container}.` : ''}${span.symbol}</code>` : null}
            <span class="muted small"> ${span.score.toFixed(2)} · ${span.inContext === 'omitted' ? 'over the budget' : span.inContext === 'cut' ? 'cut to the budget' : 'in the context'}</span>
            <div><${Signals} why=${span.why} /></div>
          </header>
          ${shown ? html`<pre class="text-preview span-code" tabindex="0">${shown}</pre>` : null}
        </article>`;
      })}
    </section>
  </div>`;
}

registerKind({
  kind: 'context',
  title: 'Context',
  description: 'The code a task touches: paste an issue, a question or a stack trace; get the files and functions ranked, with why, and their code within a token budget.',
  fields: [
    ROOT_FIELD,
    REF_FIELD,
    { name: 'task', label: 'Task', type: 'textarea', rows: 8, placeholder: 'TypeError in parse_duration when the unit is missing\n\nTraceback (most recent call last): …', hint: 'An issue, a question or a stack trace (up to 64 KiB).' },
    { name: 'tokens', label: 'Token budget', type: 'text', placeholder: '8000' },
    { name: 'focus', label: 'Focus', type: 'text', placeholder: 'src/app.ts', hint: 'Files you are working on, comma-separated (optional).' },
  ],
  validate(values) {
    const task = text(values, 'task');
    const bytes = new TextEncoder().encode(task).length;
    const tokens = text(values, 'tokens');
    return {
      root: rootProblem(values.root),
      ref: refProblem(values),
      task: task === '' ? 'Paste the task: an issue, a question or a stack trace.' : bytes > TASK_MAX_BYTES ? `The task is ${formatCount(bytes)} bytes; at most ${formatCount(TASK_MAX_BYTES)}.` : undefined,
      tokens: tokens !== '' && !(Number.isInteger(Number(tokens)) && Number(tokens) >= 1 && Number(tokens) <= 1_000_000) ? 'The budget is a whole number of tokens from 1 to 1,000,000.' : undefined,
    };
  },
  toInput: (values): ContextInput => {
    const focus = text(values, 'focus').split(',').map((item) => item.trim()).filter(Boolean);
    return {
      ...repositoryInput(values),
      task: String(values.task ?? ''),
      ...(text(values, 'tokens') ? { tokens: Number(text(values, 'tokens')) } : {}),
      ...(focus.length ? { focus } : {}),
    };
  },
  fieldFor: (error: QuarryErrorBody) => {
    if (error.kind === 'task_empty' || error.kind === 'task_too_large') return 'task';
    if (error.kind === 'budget_invalid') return 'tokens';
    if (error.kind === 'path_outside_root' && /focus/.test(error.message)) return 'focus';
    return workspaceFieldFor(error, ['root', 'ref']) ?? fieldNamedIn(error, ['root', 'ref', 'task', 'tokens', 'focus']);
  },
  summary: (input) => {
    const value = input as ContextInput;
    const first = (value?.task ?? '').split('\n')[0].slice(0, 60);
    return `${first}${(value?.task ?? '').length > 60 ? '…' : ''} · ${repositorySummary(value)}`;
  },
  Result: ({ result }) => html`<${ContextResultView} result=${result as ContextResult} />`,
});
