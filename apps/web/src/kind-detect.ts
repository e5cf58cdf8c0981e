import type { DetectInput, DetectResult, UniversalBuild } from './contracts.js';
import { ROOT_FIELD, registerKind, rootProblem, text, workspaceFieldFor } from './kinds.js';
import { html } from './ui.js';

const UNKNOWN = 'unknown';

const percent = (confidence: number) => `${Math.round(Math.max(0, Math.min(1, confidence)) * 100)}%`;

/** Lowercase ids (`typescript`, `pnpm`, `nextjs`) as badges; "unknown" is dimmed, not hidden: it is an answer. */
function StackBadge({ field, value }: { field: string; value: string | undefined }) {
  if (!value) return null;
  return html`<span class=${`badge stack stack-${field} ${value === UNKNOWN ? 'unknown' : ''}`} data-field=${field} title=${field.replace('_', ' ')}>${value}</span>`;
}

function CodeList({ items, ordered }: { items: string[]; ordered?: boolean }) {
  if (items.length === 0) return html`<span class="muted">none</span>`;
  const rows = items.map((item) => html`<li><code>${item}</code></li>`);
  return ordered ? html`<ol class="code-list">${rows}</ol>` : html`<ul class="code-list">${rows}</ul>`;
}

function runtimeText(runtime: UniversalBuild['runtime']): string {
  const requested = runtime.version.requested;
  return `${runtime.name}${requested ? ` ${requested}` : ''}`;
}

function workspaceText(workspace: UniversalBuild['workspace']): string | undefined {
  const parts = [workspace.orchestrator, workspace.manager].filter((part): part is string => !!part && part !== UNKNOWN);
  if (parts.length === 0 && workspace.members.length === 0) return undefined;
  const members = `${workspace.members.length} member${workspace.members.length === 1 ? '' : 's'}`;
  return [...new Set(parts), members].join(' · ');
}

/** One detected service: what it is, how it builds and starts, what to cache, and what was uncertain. */
export function ServiceCard({ service }: { service: UniversalBuild }) {
  const { metadata, runtime, build, workspace } = service;
  const ws = workspaceText(workspace);
  const env = Object.entries(build.env);
  return html`<article class="card service-card" data-service=${metadata.path} aria-label=${`Service ${metadata.project_name}`}>
    <div class="service-head">
      <div class="service-title">
        <h3 class="service-name">${metadata.project_name}</h3>
        <code class="service-path">${metadata.path === '.' ? './' : `${metadata.path}/`}</code>
      </div>
      <span class=${`badge detected-by by-${metadata.detected_by}`} data-detected-by=${metadata.detected_by} title="How it was detected, and the lowest confidence of its verdicts">
        ${metadata.detected_by} · ${percent(metadata.confidence)}
      </span>
    </div>
    <div class="service-badges">
      <${StackBadge} field="language" value=${metadata.language} />
      <${StackBadge} field="build_system" value=${metadata.build_system} />
      <${StackBadge} field="framework" value=${metadata.framework} />
    </div>
    ${metadata.warnings.length
      ? html`<ul class="warnings" aria-label="Warnings">${metadata.warnings.map((warning) => html`<li>${warning}</li>`)}</ul>`
      : null}
    <dl class="facts service-facts">
      <dt>Runtime</dt>
      <dd data-fact="runtime">${runtimeText(runtime)} <span class="muted small">(${runtime.version.source})</span></dd>
      <dt>Start</dt>
      <dd data-fact="start">${runtime.command ? html`<code>${runtime.command}</code>` : html`<span class="muted">unknown</span>`}</dd>
      <dt>Ports</dt>
      <dd data-fact="ports">${runtime.ports.length ? runtime.ports.join(', ') : html`<span class="muted">none</span>`}</dd>
      <dt>Build</dt>
      <dd data-fact="commands"><${CodeList} items=${build.commands} ordered=${true} /></dd>
      <dt>Caches</dt>
      <dd data-fact="caches"><${CodeList} items=${build.cache} /></dd>
      ${ws
        ? html`<dt>Workspace</dt>
            <dd data-fact="workspace">${ws}${workspace.root === '.' ? null : html` <span class="muted small">at <code>${workspace.root}</code></span>`}</dd>`
        : null}
      ${env.length ? html`<dt>Env</dt><dd data-fact="env"><${CodeList} items=${env.map(([name, value]) => `${name}=${value}`)} /></dd>` : null}
      ${runtime.health ? html`<dt>Health</dt><dd><code>${runtime.health}</code></dd>` : null}
      ${runtime.base_image ? html`<dt>Image</dt><dd><code>${runtime.base_image}</code></dd>` : null}
    </dl>
    ${metadata.reasoning ? html`<p class="reasoning"><span class="muted">Reasoning:</span> ${metadata.reasoning}</p>` : null}
  </article>`;
}

/** The services of a detection, also used for the detect_stack step of an interpret job. */
export function ServiceCards({ services }: { services: DetectResult }) {
  return html`<div class="service-cards">${services.map((service) => html`<${ServiceCard} key=${service.metadata.path} service=${service} />`)}</div>`;
}

function DetectResultView({ result }: { result: DetectResult }) {
  const llm = result.filter((service) => service.metadata.detected_by === 'llm').length;
  return html`<div class="result detect-result" data-result="detect">
    <p class="result-summary" data-summary>
      <strong>${result.length} service${result.length === 1 ? '' : 's'}</strong>
      ${llm ? html` · ${llm} with help from the LLM` : null}
    </p>
    <${ServiceCards} services=${result} />
  </div>`;
}

const MODES = ['full', 'static', 'llm-only'] as const;

registerKind({
  kind: 'detect',
  title: 'Detect',
  description: 'Find every service of a repository: language, build system, framework, runtime, build and start commands, caches.',
  fields: [
    ROOT_FIELD,
    {
      name: 'mode',
      label: 'Detection mode',
      type: 'select',
      options: [
        { value: '', label: "The server's default" },
        { value: 'full', label: 'Full (manifests, then the LLM)' },
        { value: 'static', label: 'Static (manifests only)' },
        { value: 'llm-only', label: 'LLM only' },
      ],
    },
  ],
  validate(values) {
    const mode = text(values, 'mode');
    return {
      root: rootProblem(values.root),
      mode: mode && !(MODES as readonly string[]).includes(mode) ? 'Choose full, static or LLM only.' : undefined,
    };
  },
  toInput(values): DetectInput {
    const mode = text(values, 'mode') as DetectInput['mode'] | '';
    return { root: text(values, 'root'), ...(mode ? { mode } : {}) };
  },
  fieldFor: (error) => workspaceFieldFor(error, ['root', 'mode']),
  summary: (input) => (input as DetectInput)?.root ?? '',
  Result: ({ result }) => html`<${DetectResultView} result=${result as DetectResult} />`,
});
