import { useState } from 'preact/hooks';
import type { DetectInput, DetectResult, UniversalBuild } from './contracts.js';
import { REF_FIELD, ROOT_FIELD, refProblem, registerKind, repositoryInput, repositorySummary, rootProblem, text, workspaceFieldFor } from './kinds.js';
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
export function ServiceCard({ service, shownElsewhere = [] }: { service: UniversalBuild; shownElsewhere?: string[] }) {
  const { metadata, runtime, build, workspace } = service;
  const warnings = metadata.warnings.filter((warning) => !shownElsewhere.includes(warning));
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
      <${StackBadge} field="bundler" value=${metadata.bundler} />
    </div>
    ${warnings.length ? html`<ul class="warnings" aria-label="Warnings">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : null}
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

/** Above this many services, cards start collapsed and a filter appears (Linux has hundreds of Makefiles). */
const COLLAPSE_ABOVE = 6;

/**
 * Warnings every service carries (the run's mode, a truncated scan) are the run's, not the
 * services': shown once above the list instead of on every card.
 */
export function runWarnings(services: DetectResult): string[] {
  if (services.length < 2) return [];
  const [first, ...rest] = services;
  return first.metadata.warnings.filter((warning) => rest.every((service) => service.metadata.warnings.includes(warning)));
}

function matches(service: UniversalBuild, query: string): boolean {
  const { metadata } = service;
  const haystack = [metadata.path, metadata.project_name, metadata.language, metadata.build_system, metadata.framework ?? '', metadata.bundler ?? ''].join(' ').toLowerCase();
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((word) => haystack.includes(word));
}

function SummaryTable({ services }: { services: DetectResult }) {
  return html`<div class="table-scroll"><table class="service-summary" aria-label="Services">
    <thead><tr><th scope="col">Service</th><th scope="col">Language</th><th scope="col">Build</th><th scope="col">Framework</th><th scope="col" class="num">Confidence</th></tr></thead>
    <tbody>
      ${services.map(
        ({ metadata }) => html`<tr key=${metadata.path} data-service-row=${metadata.path}>
          <th scope="row"><a href=${`#service-${metadata.path}`} onClick=${(event: Event) => openCard(event, metadata.path)}><code>${metadata.path === '.' ? './' : `${metadata.path}/`}</code></a> <span class="muted small">${metadata.project_name}</span></th>
          <td>${metadata.language}</td>
          <td>${metadata.build_system}</td>
          <td>${metadata.framework ?? html`<span class="muted">none</span>`}${metadata.bundler ? html` <span class="muted small">(${metadata.bundler})</span>` : null}</td>
          <td class="num">${percent(metadata.confidence)}</td>
        </tr>`,
      )}
    </tbody>
  </table></div>`;
}

/** The summary row opens and scrolls to its card instead of changing the page's route. */
function openCard(event: Event, path: string): void {
  event.preventDefault();
  const card = (globalThis as any).document?.getElementById(`service-${path}`);
  if (!card) return;
  if (card.tagName === 'DETAILS') card.open = true;
  card.scrollIntoView({ block: 'start' });
}

/**
 * The services of a detection, also used for the scan view and the detect_stack step of an
 * interpret job: the run's warnings once, a summary table when there are several, and — past
 * COLLAPSE_ABOVE — collapsed cards and a filter, so a repository of hundreds of services stays usable.
 */
export function ServiceCards({ services }: { services: DetectResult }) {
  const [query, setQuery] = useState('');
  const shared = runWarnings(services);
  const many = services.length > COLLAPSE_ABOVE;
  const shown = query ? services.filter((service) => matches(service, query)) : services;
  const card = (service: UniversalBuild) => html`<${ServiceCard} service=${service} shownElsewhere=${shared} />`;
  return html`<div class="service-list" data-services=${services.length}>
    ${shared.length
      ? html`<ul class="warnings run-warnings" aria-label="Warnings for the whole run" data-run-warnings>${shared.map((warning) => html`<li>${warning}</li>`)}</ul>`
      : null}
    ${many
      ? html`<label class="service-filter">Filter services <input type="search" value=${query} placeholder="path, language, framework…"
          onInput=${(event: Event) => setQuery((event.target as HTMLInputElement).value)} /></label>
        <span class="muted small" data-filter-count>${shown.length} of ${services.length}</span>`
      : null}
    ${services.length > 1 ? html`<${SummaryTable} services=${shown} />` : null}
    <div class="service-cards">
      ${shown.map((service) =>
        many
          ? html`<details key=${service.metadata.path} class="service-details" id=${`service-${service.metadata.path}`}>
              <summary><code>${service.metadata.path === '.' ? './' : `${service.metadata.path}/`}</code> ${service.metadata.language} · ${service.metadata.build_system}${service.metadata.framework ? ` · ${service.metadata.framework}` : ''}</summary>
              ${card(service)}
            </details>`
          : html`<div key=${service.metadata.path} id=${`service-${service.metadata.path}`}>${card(service)}</div>`,
      )}
    </div>
  </div>`;
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
    REF_FIELD,
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
      ref: refProblem(values),
      mode: mode && !(MODES as readonly string[]).includes(mode) ? 'Choose full, static or LLM only.' : undefined,
    };
  },
  toInput(values): DetectInput {
    const mode = text(values, 'mode') as DetectInput['mode'] | '';
    return { ...repositoryInput(values), ...(mode ? { mode } : {}) };
  },
  fieldFor: (error) => workspaceFieldFor(error, ['root', 'ref', 'mode']),
  summary: repositorySummary,
  Result: ({ result }) => html`<${DetectResultView} result=${result as DetectResult} />`,
});
