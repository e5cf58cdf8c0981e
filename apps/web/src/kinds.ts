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

/** The repository field every workspace kind starts with (detect, mentions, interpret). */
export const ROOT_FIELD: FieldDef = {
  name: 'root',
  label: 'Repository path',
  type: 'text',
  placeholder: '/absolute/path/to/repo',
  hint: 'An absolute path inside the workspace roots of this Quarry.',
};

/** What is wrong with a repository path before the server sees it, if anything. */
export function rootProblem(value: unknown): string | undefined {
  const root = String(value ?? '').trim();
  if (!root) return 'Enter the path of a repository.';
  if (!root.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(root)) return 'Use an absolute path, starting with "/".';
  if (root.length > 4096) return 'A path is at most 4,096 characters.';
  return undefined;
}

/** The form field a refusal concerns for a kind that reads a workspace: path errors are the root's. */
export function workspaceFieldFor(error: QuarryErrorBody, fields: string[]): string | undefined {
  return /^(path_|root_)/.test(error.kind) ? 'root' : fieldNamedIn(error, fields);
}

/** A form value as trimmed text ('' when absent). */
export const text = (values: FormValues, name: string) => String(values[name] ?? '').trim();

/** Names the field a message such as "input.root: …" or "root must be …" is about. */
export function fieldNamedIn(error: QuarryErrorBody, fields: string[]): string | undefined {
  return fields.find((field) => new RegExp(`\\b${field}\\b`).test(error.message));
}
