import type { QueryContext } from './plan';

/**
 * "this file", "here", "that folder": words whose meaning is in the editor, not in the query.
 * They are resolved from the context before any planner runs and handed to it as references; the
 * query text itself is never rewritten, so a search for the literal words "this file" stays one.
 */

export type ContextSlot = keyof QueryContext;

export interface Reference {
  /** The words as the user wrote them. */
  phrase: string;
  kind: 'file' | 'directory';
  slot: ContextSlot;
  /** The path from the context, or undefined when the context does not say. */
  value?: string;
}

export interface References {
  file?: Reference;
  directory?: Reference;
}

const DIR = '(?:directory|folder|dir)';
const PATTERNS: ReadonlyArray<{ pattern: RegExp; kind: Reference['kind']; slot: ContextSlot }> = [
  {
    pattern: /\b(?:the\s+)?(?:file\s+above|previous\s+file|last\s+file|same\s+file|earlier\s+file|that\s+file|file\s+(?:i|we)\s+(?:was\s+|were\s+)?(?:just\s+)?(?:looking\s+at|viewing|reading|opened|saw))\b/i,
    kind: 'file',
    slot: 'lastFile',
  },
  { pattern: /\b(?:this\s+file|(?:the\s+)?current(?:ly\s+open)?\s+file|(?:the\s+)?active\s+file|(?:the\s+)?open\s+file|the\s+file\s+i'?m\s+(?:in|editing|on))\b/i, kind: 'file', slot: 'activeFile' },
  { pattern: new RegExp(`\\b(?:that\\s+${DIR}|(?:the\\s+)?(?:previous|last|same|earlier)\\s+${DIR}|the\\s+${DIR}\\s+above)\\b`, 'i'), kind: 'directory', slot: 'lastDir' },
  {
    pattern: new RegExp(`\\b(?:this\\s+${DIR}|(?:the\\s+)?current\\s+(?:working\\s+)?${DIR}|(?:the\\s+)?working\\s+${DIR}|cwd|here)\\b`, 'i'),
    kind: 'directory',
    slot: 'cwd',
  },
];

/** Quoted text is what the user wants searched for, never a reference. */
export function withoutQuotes(text: string): string {
  return text.replace(/"[^"]*"|'[^']*'|`[^`]*`|“[^”]*”/g, (quoted) => ' '.repeat(quoted.length));
}

export function resolveReferences(query: string, context: QueryContext = {}): References {
  const text = withoutQuotes(query);
  const found: References = {};
  for (const { pattern, kind, slot } of PATTERNS) {
    if (found[kind]) continue;
    const match = pattern.exec(text);
    if (!match) continue;
    const value = context[slot]?.trim() || undefined;
    found[kind] = { phrase: match[0], kind, slot, value };
  }
  return found;
}
