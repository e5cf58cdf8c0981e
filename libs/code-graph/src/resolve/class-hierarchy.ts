import type { Definition } from '@quarry/code-index';
import type { CodeGraph } from '../graph/code-graph';

export const CLASS_KINDS: ReadonlySet<string> = new Set(['class', 'struct', 'interface', 'trait', 'enum', 'union']);

/** The innermost part of a qualified container (`Example.Shop` → `Shop`, `ns::Foo` → `Foo`). */
export function innermost(container: string): string {
  const parts = container.split(/::|\.|\\/);
  return parts[parts.length - 1];
}

/**
 * The base classes a class-like definition names in its head, read from its one-line signature
 * (no second parse): `class A extends B implements C, D`, `class A(B, metaclass=M)`,
 * `class A : public B`. Generic arguments and qualifiers are dropped (`ns.B<T>` → `B`).
 */
export function basesOf(definition: Definition): string[] {
  if (!CLASS_KINDS.has(definition.kind)) return [];
  const signature = withoutTypeParameters(definition.signature, definition.name);
  const names: string[] = [];
  const add = (list: string) => {
    for (const part of splitTopLevel(list)) {
      const cleaned = part.replace(/<.*$/s, '').replace(/\[.*$/s, '').replace(/\b(public|private|protected|virtual)\b/g, '').trim();
      if (cleaned === '' || cleaned.includes('=')) continue;
      const name = innermost(cleaned.split(/\s+/).pop()!);
      if (/^[A-Za-z_$][\w$]*$/.test(name)) names.push(name);
    }
  };
  const extendsClause = /\bextends\s+(.+?)(?=\bimplements\b|\{|$)/.exec(signature);
  if (extendsClause) add(extendsClause[1]);
  const implementsClause = /\bimplements\s+(.+?)(?=\{|$)/.exec(signature);
  if (implementsClause) add(implementsClause[1]);
  if (names.length === 0) {
    const parenthesised = new RegExp(`${wordStart(definition.name)}\\s*(?:\\[[^\\]]*\\])?\\((.*)\\)\\s*:?$`).exec(signature);
    if (parenthesised) add(parenthesised[1]);
    const colon = new RegExp(`${wordStart(definition.name)}(?![\\w$])[^:(]*:(?!:)\\s*(.+)$`).exec(signature);
    if (colon && /\b(class|struct)\b/.test(signature)) add(colon[1]);
  }
  return names;
}

/**
 * The head without the class's own type parameters (`A<T extends B>` extends nothing by that
 * `extends`); a head cut short inside them has no bases to read.
 */
function withoutTypeParameters(signature: string, name: string): string {
  const at = new RegExp(`${wordStart(name)}\\s*<`).exec(signature);
  if (at === null) return signature;
  let depth = 0;
  for (let index = at.index + at[0].length - 1; index < signature.length; index++) {
    if (signature[index] === '<') depth++;
    else if (signature[index] === '>' && signature[index - 1] !== '=') {
      depth--;
      if (depth === 0) return signature.slice(0, at.index + at[0].length - 1) + signature.slice(index + 1);
    }
  }
  return signature.slice(0, at.index + at[0].length - 1);
}

function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < list.length; index++) {
    const character = list[index];
    if (character === '<' || character === '(' || character === '[') depth++;
    else if (character === '>' || character === ')' || character === ']') depth--;
    else if (character === ',' && depth === 0) {
      parts.push(list.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(list.slice(start));
  return parts;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A regular expression source matching `name` where a name starts (`\b` does not see `$`, which JavaScript names may begin with). */
function wordStart(name: string): string {
  return `(?<![\\w$])${escape(name)}`;
}

/** A regular expression matching `name` as a whole identifier (`$` counts as a name character). */
export function wordPattern(name: string): RegExp {
  return new RegExp(`${wordStart(name)}(?![\\w$])`);
}

/** Subclasses and base classes by name, over every class-like definition of a graph (built once, on first use). */
export class ClassHierarchy {
  private readonly bases = new Map<string, Set<string>>();
  private readonly derived = new Map<string, Set<string>>();

  constructor(graph: CodeGraph) {
    for (let id = 0; id < graph.definitionCount; id++) {
      const { definition } = graph.definition(id);
      for (const base of basesOf(definition)) {
        if (base === definition.name) continue;
        add(this.bases, definition.name, base);
        add(this.derived, base, definition.name);
      }
    }
  }

  /** The class names above `name`, nearest first, at most `limit` levels. */
  ancestors(name: string, limit = 6): string[] {
    return walk(this.bases, name, limit);
  }

  /** The class names below `name`. */
  descendants(name: string, limit = 6): string[] {
    return walk(this.derived, name, limit);
  }
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(value);
}

function walk(map: Map<string, Set<string>>, start: string, limit: number): string[] {
  const seen = new Set<string>([start]);
  const order: string[] = [];
  let frontier = [start];
  for (let level = 0; level < limit && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const name of frontier) {
      for (const related of map.get(name) ?? []) {
        if (seen.has(related)) continue;
        seen.add(related);
        order.push(related);
        next.push(related);
      }
    }
    frontier = next;
  }
  return order;
}
