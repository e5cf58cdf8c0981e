import { useEffect, useRef, useState } from 'preact/hooks';
import type { MentionsInput, MentionsResult } from './contracts.js';
import { REF_FIELD, ROOT_FIELD, refProblem, registerKind, repositoryInput, repositorySummary, rootProblem, text, workspaceFieldFor } from './kinds.js';
import { ErrorBox, formatBytes, formatCount, html } from './ui.js';

type Mention = MentionsResult['mentions'][number];

const KB = 1024;
/** The server's limits (mentionsInputSchema): a prompt of 1,000,000 characters, a budget of 50,000,000 bytes. */
const MAX_PROMPT_CHARS = 1_000_000;
const MAX_BUDGET_KB = Math.floor(50_000_000 / KB);
const COPIED_MS = 2000;

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** The CLI's first line (summarizeMentions): mentions left as text are not counted. */
export function mentionsSummary(result: MentionsResult): string {
  const counted = result.mentions.filter((mention) => mention.status !== 'ignored');
  const loaded = counted.filter((mention) => mention.status === 'loaded').length;
  const ignored = result.mentions.length - counted.length;
  const failed = counted.length - loaded;
  return [
    `Loaded ${loaded} of ${plural(counted.length, 'mention')}`,
    failed ? `${failed} failed` : '',
    ignored ? `${ignored} left as text` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Copies through the Clipboard API; where there is none (plain http off localhost), by selecting the text. */
async function copyText(text: string, source: HTMLElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!source) return false;
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    return document.execCommand('copy');
  }
}

function CopyButton({ text, source }: { text: string; source: () => HTMLElement | null }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    const ok = await copyText(text, source());
    setState(ok ? 'copied' : 'failed');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), COPIED_MS);
  };
  return html`<span class="copy">
    <button type="button" class=${`copy-button ${state}`} onClick=${copy} data-copy=${state}>${state === 'copied' ? 'Copied ✓' : 'Copy'}</button>
    <span class="sr-only" role="status" aria-live="polite">${state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy: select the text and copy it by hand.' : ''}</span>
    ${state === 'failed' ? html`<span class="muted small">Select the text and copy it by hand.</span>` : null}
  </span>`;
}

function amountOf(mention: Mention): string {
  if (mention.status !== 'loaded') return '';
  const parts = [
    mention.lines === undefined ? '' : plural(mention.lines, 'line'),
    mention.bytes === undefined ? '' : formatBytes(mention.bytes),
    mention.matches === undefined ? '' : plural(mention.matches, 'match', 'matches'),
    mention.references === undefined ? '' : plural(mention.references, 'use'),
  ];
  return parts.filter(Boolean).join(' · ');
}

function MentionRow({ mention }: { mention: Mention }) {
  return html`<li class="mention-row" data-mention=${mention.raw} data-status=${mention.status}>
    <span class="badge kind">${mention.kind}</span>
    <code class="mention-raw">${mention.raw}</code>
    <span class="mention-amount">${mention.status === 'failed' ? html`<code class="error-kind">${mention.error?.kind ?? 'failed'}</code>` : amountOf(mention)}</span>
    <span class=${`badge mention-${mention.status}`}>${mention.status}</span>
  </li>`;
}

function Coverage({ coverage }: { coverage: MentionsResult['coverage'] }) {
  const stats: [string, string][] = [
    [formatCount(coverage.files), 'files'],
    [formatCount(coverage.lines), 'lines'],
    [formatCount(coverage.searches), 'searches'],
    [formatCount(coverage.matches), 'matches'],
    [formatCount(coverage.urls), 'URLs'],
    [formatBytes(coverage.bytes), 'in the prompt'],
    [`~${formatCount(coverage.estimatedTokens)}`, 'tokens'],
  ];
  return html`<section class="coverage" aria-label="Coverage">
    <div class="stats compact-stats">
      ${stats.map(([value, label]) => html`<div class="stat" data-stat=${label}><span class="stat-value">${value}</span><span class="stat-label">${label}</span></div>`)}
    </div>
    ${coverage.cut.length
      ? html`<div class="cut"><span class="badge warn">cut to fit the budget</span><ul>${coverage.cut.map((cut) => html`<li>${cut}</li>`)}</ul></div>`
      : null}
  </section>`;
}

function MentionsResultView({ result }: { result: MentionsResult }) {
  const prompt = useRef<HTMLPreElement>(null);
  return html`<div class="result mentions-result" data-result="mentions">
    <p class="result-summary" data-summary><strong>${mentionsSummary(result)}</strong></p>
    ${result.errors.length
      ? html`<section class="card attention" aria-labelledby="mention-errors-h">
          <h3 id="mention-errors-h">To fix</h3>
          <ul class="mention-errors">
            ${result.errors.map((error) => html`<li data-error-source=${error.source}><code class="source">${error.source}</code><${ErrorBox} error=${error} /></li>`)}
          </ul>
        </section>`
      : null}
    <${Coverage} coverage=${result.coverage} />
    <section class="card" aria-labelledby="mentions-h">
      <h3 id="mentions-h">Mentions</h3>
      ${result.mentions.length === 0
        ? html`<p class="muted">No mentions in this prompt: write <code>@path</code>, <code>@path#L10-20</code>, <code>@search:"text"</code>, <code>@grep:"regex"</code> or <code>@url:https://…</code>.</p>`
        : html`<ul class="mention-list">${result.mentions.map((mention) => html`<${MentionRow} key=${`${mention.span[0]}`} mention=${mention} />`)}</ul>`}
    </section>
    <section class="card" aria-labelledby="augmented-h">
      <div class="card-head">
        <h3 id="augmented-h">Augmented prompt <span class="muted small">${formatCount(result.augmentedPrompt.length)} characters</span></h3>
        <${CopyButton} text=${result.augmentedPrompt} source=${() => prompt.current} />
      </div>
      <pre class="text-preview augmented-prompt" tabindex="0" ref=${prompt}>${result.augmentedPrompt}</pre>
    </section>
  </div>`;
}

registerKind({
  kind: 'mentions',
  title: 'Mentions',
  description: 'Expand the @mentions of a prompt (files, line ranges, directories, searches, URLs) into context blocks after it.',
  fields: [
    ROOT_FIELD,
    REF_FIELD,
    {
      name: 'prompt',
      label: 'Prompt',
      type: 'textarea',
      rows: 7,
      placeholder: 'Why does @src/app.ts#L10-40 fail? See @grep:"TODO\\(\\w+\\)" and @docs/',
      hint: '@path, @path#L10-20, @dir/, @search:"text", @grep:"regex", @url:https://…',
    },
    { name: 'budget', label: 'Budget (KiB, optional)', type: 'text', placeholder: '195', hint: 'Most the augmented prompt may hold; blank for the server’s 200,000 bytes.' },
  ],
  validate(values) {
    const prompt = String(values.prompt ?? '');
    const budget = text(values, 'budget');
    return {
      root: rootProblem(values.root),
      ref: refProblem(values),
      prompt: !prompt.trim()
        ? 'Write a prompt with at least one @mention.'
        : prompt.length > MAX_PROMPT_CHARS
          ? `A prompt is at most ${formatCount(MAX_PROMPT_CHARS)} characters.`
          : undefined,
      budget:
        budget && !(/^\d+$/.test(budget) && Number(budget) >= 1 && Number(budget) <= MAX_BUDGET_KB)
          ? `A whole number of KiB from 1 to ${formatCount(MAX_BUDGET_KB)}, or blank.`
          : undefined,
    };
  },
  toInput(values): MentionsInput {
    const budget = text(values, 'budget');
    return { ...repositoryInput(values), prompt: String(values.prompt), ...(budget ? { budget: { maxBytes: Number(budget) * KB } } : {}) };
  },
  fieldFor: (error) => workspaceFieldFor(error, ['root', 'ref', 'prompt', 'budget']),
  summary: (input) => {
    const { prompt } = (input ?? {}) as Partial<MentionsInput>;
    return prompt ? prompt.replace(/\s+/g, ' ').slice(0, 120) : repositorySummary(input);
  },
  Result: ({ result }) => html`<${MentionsResultView} result=${result as MentionsResult} />`,
});
