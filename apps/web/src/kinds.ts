import type { VNode } from 'preact';
import type { JobKind, JobView, QuarryErrorBody } from './contracts.js';

export type FormValues = Record<string, string | boolean>;

export interface FieldDef {
  name: string;
  label: string;
  type: 'text' | 'url' | 'textarea' | 'checkbox';
  placeholder?: string;
  hint?: string;
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

/** Names the field a message such as "input.root: …" or "root must be …" is about. */
export function fieldNamedIn(error: QuarryErrorBody, fields: string[]): string | undefined {
  return fields.find((field) => new RegExp(`\\b${field}\\b`).test(error.message));
}
