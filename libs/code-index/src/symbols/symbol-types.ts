/** What a definition is. Function-like definitions inside a class-like one become `method`. */
export const SYMBOL_KINDS = [
  'function',
  'method',
  'class',
  'struct',
  'union',
  'enum',
  'interface',
  'trait',
  'type',
  'constant',
  'macro',
  'module',
  'namespace',
] as const;
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/** One definition in a file. Lines are 1-based and inclusive. */
export interface Definition {
  kind: SymbolKind;
  name: string;
  /** The line of the name (what ctags reports, and what `@symbol:` jumps to). */
  line: number;
  /** The whole definition, including its body. */
  startLine: number;
  endLine: number;
  /** The definition's head on one line: up to its body, whitespace collapsed (`int add(int a, int b)`). */
  signature: string;
  /** The enclosing class, struct, trait, impl or namespace, for `Class.method`. */
  container?: string;
  /**
   * Lines of the block the definition is local to (`type a = …` inside a callback's body), when
   * it is not at a module's or class's level: names resolve to it only there.
   */
  local?: [startLine: number, endLine: number];
}

/** Why a file has no symbols although its language has a grammar. Counted, never fatal. */
export interface IndexWarning {
  kind: 'grammar_failed' | 'too_large';
  message: string;
}

/**
 * Files larger than this get no symbols (a warning says so) and no retrieval chunks: generated
 * tables, not code to navigate or to answer from. (Here, not in the extractor, so the chunker can
 * share it without loading tree-sitter.)
 */
export const DEFAULT_MAX_SYMBOL_BYTES = 2 * 1024 * 1024;
