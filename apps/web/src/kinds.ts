import type { VNode } from 'preact';
import type { JobKind, JobView, QuarryErrorBody } from './contracts.js';

export type FormValues = Record<string, string | boolean>;

export interface FieldDef {
  name: string;
  label: string;
  type: 'text' | 'url' | 'textarea' | 'checkbox' | 'select';
  placeholder?: string;
  hint?: string;
  /** `select` only; the first option is what an untouched field sends. */
  options?: { value: string; label: string }[];
  /** `textarea` only (default 5). */
  rows?: number;
}

/**
 * What the dashboard knows about one job kind: its submit form, how its input reads in a list,
 * and how its result looks. Forms appear only for kinds the gateway lists as available, so a kind
 * that lands later (detect, mentions, interpret) adds an entry here and shows up.
 */
export interface KindDef {
  kind: JobKind;
  title: string;
  description: string;
  fields: FieldDef[];
  /** Client-side checks before sending: field name → message. */
  validate(values: FormValues): Record<string, string | undefined>;
  toInput(values: FormValues): unknown;
  /** Which field a server refusal concerns (undefined: show it above the form). */
  fieldFor(error: QuarryErrorBody): string | undefined;
  /** One line describing the input, for the jobs list. */
  summary(input: unknown): string;
  Result?: (props: { job: JobView; result: any }) => VNode<any>;
}

const registry = new Map<string, KindDef>();

export function registerKind(def: KindDef): void {
  registry.set(def.kind, def);
}

/** A kind the gateway offers but this page has no form for: raw JSON input, raw JSON result. */
function genericKind(kind: JobKind): KindDef {
  return {
    kind,
    title: kind,
    description: `Submit a ${kind} job with its input as JSON.`,
    fields: [{ name: 'input', label: 'Input (JSON)', type: 'textarea', placeholder: '{ }' }],
    validate(values) {
      try {
        JSON.parse(String(values.input || '{}'));
        return {};
      } catch (error) {
        return { input: `Not valid JSON: ${(error as Error).message}` };
      }
    },
    toInput: (values) => JSON.parse(String(values.input || '{}')),
    fieldFor: () => 'input',
    summary: (input) => JSON.stringify(input).slice(0, 120),
  };
}

export function kindDef(kind: JobKind): KindDef {
  return registry.get(kind) ?? genericKind(kind);
}

/** The repository field every kind that reads a repository starts with: a git URL or a path. */
export const ROOT_FIELD: FieldDef = {
  name: 'root',
  label: 'Repository',
  type: 'text',
  placeholder: 'https://github.com/owner/repo.git or /absolute/path',
  hint: 'A git URL (https://), fetched by the worker at the ref below; or an absolute path inside the workspace roots of this Quarry.',
};

/** The optional ref beside a git URL. */
export const REF_FIELD: FieldDef = {
  name: 'ref',
  label: 'Ref (optional)',
  type: 'text',
  placeholder: 'main, v1.2.0 or a commit id',
  hint: 'Branch, tag or commit of a git URL; empty: the default branch. The job pins it to a commit when it starts.',
};

/** Whether the repository field holds a URL rather than a path (any scheme: the server says which it takes). */
export function isRepositoryUrl(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) || /^[^/\s]+@[^/\s]+:/.test(value);
}

/** What is wrong with a repository URL or path before the server sees it, if anything. */
export function rootProblem(value: unknown): string | undefined {
  const root = String(value ?? '').trim();
  if (!root) return 'Enter a repository: a git URL or an absolute path.';
  if (isRepositoryUrl(root)) return root.length > 2048 ? 'A URL is at most 2,048 characters.' : undefined;
  if (!root.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(root)) return 'Use a git URL (https://…) or an absolute path, starting with "/".';
  if (root.length > 4096) return 'A path is at most 4,096 characters.';
  return undefined;
}

/** A ref only means something beside a URL. */
export function refProblem(values: FormValues): string | undefined {
  const ref = text(values, 'ref');
  if (!ref) return undefined;
  if (!isRepositoryUrl(text(values, 'root'))) return 'A ref goes with a git URL; a directory is read as it is.';
  return ref.length > 256 ? 'A ref is at most 256 characters.' : undefined;
}

/** The job input fields for the repository the form names: `source` for a URL, `root` for a path. */
export function repositoryInput(values: FormValues): { root: string } | { source: { git: string; ref?: string } } {
  const root = text(values, 'root');
  const ref = text(values, 'ref');
  return isRepositoryUrl(root) ? { source: ref ? { git: root, ref } : { git: root } } : { root };
}

/** How a job input's repository reads in a list: the path, or `url @ ref`. */
export function repositorySummary(input: unknown): string {
  const value = input as { root?: string; source?: { git?: string; ref?: string; path?: string } } | undefined;
  if (value?.root) return value.root;
  if (value?.source?.git) return value.source.ref ? `${value.source.git} @ ${value.source.ref}` : value.source.git;
  return value?.source?.path ?? '';
}

/** The form field a refusal concerns for a kind that reads a repository: path, URL and repository errors are its field's. */
export function workspaceFieldFor(error: QuarryErrorBody, fields: string[]): string | undefined {
  if (error.kind === 'ref_not_found' && fields.includes('ref')) return 'ref';
  return /^(path_|root_|url_|repo_)/.test(error.kind) ? 'root' : fieldNamedIn(error, fields);
}

/** A form value as trimmed text ('' when absent). */
export const text = (values: FormValues, name: string) => String(values[name] ?? '').trim();

/** Names the field a message such as "input.root: …" or "root must be …" is about. */
export function fieldNamedIn(error: QuarryErrorBody, fields: string[]): string | undefined {
  return fields.find((field) => new RegExp(`\\b${field}\\b`).test(error.message));
}
