import { Language, Node, Parser, Tree, TreeCursor } from 'web-tree-sitter';
import { GrammarName, loadGrammar } from './grammars';
import { DefinitionRule, LANGUAGE_SPECS, LanguageSpec, METHOD_CONTAINERS, languageSpecFor } from './language-specs';
import type { Definition, IndexWarning, SymbolKind } from './symbol-types';

/** Files larger than this get no symbols (a warning says so): generated tables, not code to navigate. */
export const DEFAULT_MAX_SYMBOL_BYTES = 2 * 1024 * 1024;
/** A parse that takes longer than this is abandoned (the file gets no symbols and a warning). */
export const DEFAULT_PARSE_TIMEOUT_MS = 10_000;
const MAX_SIGNATURE_LENGTH = 240;
const MAX_NAME_LENGTH = 200;
const UNSTORABLE_NAME = /[\s:]/;

export interface SymbolExtractorOptions {
  maxBytes?: number;
  parseTimeoutMs?: number;
}

export interface ExtractedSymbols {
  /** `parsed`: the grammar ran; `unsupported`: no grammar for the language; `failed`/`skipped`: see warnings. */
  status: 'parsed' | 'unsupported' | 'failed' | 'skipped';
  definitions: Definition[];
  /** Names used in the file (not where they are defined), with how often. */
  references: Map<string, number>;
  warnings: IndexWarning[];
}

export interface CompressedSource {
  text: string;
  /** Bodies replaced by a placeholder. */
  elidedBodies: number;
}

/** One grammar, ready: its parser and its rules indexed by node type id (a cursor reports ids). */
interface PreparedGrammar {
  language: Language;
  parser: Parser;
  rules: (DefinitionRule | undefined)[];
  identifiers: boolean[];
}

interface OpenDefinition {
  end: number;
  kind: SymbolKind | 'impl';
  name: string;
}

interface FoundDefinition {
  node: Node;
  rule: DefinitionRule;
  kind: SymbolKind | 'impl';
  nameNode: Node;
}

/**
 * Definitions and references of a file with tree-sitter: one parse, one cursor walk. Create it
 * once per process (or worker thread) with `SymbolExtractor.create()`; `extract` is then
 * synchronous and never throws for a file's content.
 */
export class SymbolExtractor {
  private readonly grammars = new Map<GrammarName, PreparedGrammar>();
  private readonly maxBytes: number;
  private readonly parseTimeoutMs: number;

  private constructor(options: SymbolExtractorOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_SYMBOL_BYTES;
    this.parseTimeoutMs = options.parseTimeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS;
  }

  static async create(options: SymbolExtractorOptions = {}): Promise<SymbolExtractor> {
    const extractor = new SymbolExtractor(options);
    await Promise.all(LANGUAGE_SPECS.map(async (spec) => extractor.grammars.set(spec.grammar, prepare(spec, await loadGrammar(spec.grammar)))));
    return extractor;
  }

  extract(path: string, language: string | undefined, text: string): ExtractedSymbols {
    const spec = languageSpecFor(language, path);
    const empty = { definitions: [], references: new Map<string, number>() };
    if (spec === undefined) return { status: 'unsupported', ...empty, warnings: [] };
    if (text.length > this.maxBytes) {
      return { status: 'skipped', ...empty, warnings: [{ kind: 'too_large', message: `${path}: larger than ${this.maxBytes} bytes, symbols not extracted` }] };
    }
    const grammar = this.grammars.get(spec.grammar)!;
    const parsed = this.parse(grammar, path, text);
    if ('warning' in parsed) return { status: 'failed', ...empty, warnings: [parsed.warning] };
    try {
      return { status: 'parsed', ...collect(grammar, text, parsed.tree), warnings: [] };
    } finally {
      parsed.tree.delete();
    }
  }

  /**
   * The file with the bodies of its functions and methods (those defined over more than one line)
   * replaced by a placeholder: what `pack --compress` writes. Undefined when the language has no
   * grammar or the parse failed; the caller then keeps the text.
   */
  compress(path: string, language: string | undefined, text: string): CompressedSource | undefined {
    const spec = languageSpecFor(language, path);
    if (spec === undefined || text.length > this.maxBytes) return undefined;
    const grammar = this.grammars.get(spec.grammar)!;
    const parsed = this.parse(grammar, path, text);
    if ('warning' in parsed) return undefined;
    try {
      const bodies: [number, number][] = [];
      walkDefinitions(grammar, parsed.tree, (found) => {
        if (found.kind !== 'function' && found.kind !== 'method') return;
        const body = bodyOf(found.node, found.rule);
        // One-line definitions stay as they are: eliding would save nothing.
        if (body === null || found.node.startPosition.row === found.node.endPosition.row) return;
        const last = bodies[bodies.length - 1];
        if (last !== undefined && body.startIndex < last[1]) return; // nested in a body already dropped
        bodies.push([body.startIndex, body.endIndex]);
      });
      let output = '';
      let cursor = 0;
      for (const [start, end] of bodies) {
        output += text.slice(cursor, start) + spec.elidedBody;
        cursor = end;
      }
      return { text: output + text.slice(cursor), elidedBodies: bodies.length };
    } finally {
      parsed.tree.delete();
    }
  }

  private parse(grammar: PreparedGrammar, path: string, text: string): { tree: Tree } | { warning: IndexWarning } {
    const deadline = performance.now() + this.parseTimeoutMs;
    try {
      // Returning true from the progress callback cancels the parse (web-tree-sitter ≥ 0.25).
      const progressCallback = (() => performance.now() > deadline) as () => void;
      const tree = grammar.parser.parse(text, null, { progressCallback });
      if (tree === null) return { warning: { kind: 'grammar_failed', message: `${path}: parsing took longer than ${this.parseTimeoutMs} ms, symbols not extracted` } };
      return { tree };
    } catch (error) {
      // A parser that threw may be in any state: start a fresh one for the next file.
      grammar.parser.delete();
      grammar.parser = newParser(grammar.language);
      return { warning: { kind: 'grammar_failed', message: `${path}: the ${grammar.language.name ?? 'language'} grammar failed: ${(error as Error).message}` } };
    }
  }
}

function prepare(spec: LanguageSpec, language: Language): PreparedGrammar {
  const rules: (DefinitionRule | undefined)[] = [];
  const identifiers: boolean[] = [];
  const identifierTypes = new Set(spec.identifiers);
  // By id, not by name: a cursor reports ids, and an aliased node type has an id of its own.
  for (let id = 0; id < language.nodeTypeCount; id++) {
    const type = language.nodeTypeForId(id);
    if (type === null || !language.nodeTypeIsNamed(id)) continue;
    rules[id] = Object.hasOwn(spec.definitions, type) ? spec.definitions[type] : undefined;
    identifiers[id] = identifierTypes.has(type);
  }
  return { language, parser: newParser(language), rules, identifiers };
}

function newParser(language: Language): Parser {
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/** Visits every definition node in document order (parents before children). */
function walkDefinitions(grammar: PreparedGrammar, tree: Tree, visit: (found: FoundDefinition) => void): void {
  walk(tree.walk(), (cursor, typeId) => {
    const rule = grammar.rules[typeId];
    if (rule === undefined) return;
    const found = definitionAt(cursor.currentNode, rule);
    if (found !== undefined) visit(found);
  });
}

function definitionAt(node: Node, rule: DefinitionRule): FoundDefinition | undefined {
  const kind = typeof rule.kind === 'function' ? rule.kind(node) : rule.kind;
  if (kind === undefined) return undefined;
  const nameNode = rule.name === undefined ? node.childForFieldName('name') : rule.name(node);
  if (nameNode === null || nameNode.text.length === 0 || nameNode.text.length > MAX_NAME_LENGTH) return undefined;
  return { node, rule, kind, nameNode };
}

/**
 * Depth-first over every node: `visit` runs on each, `leaf` on those without children. Each gets
 * the node's type id, read once (every cursor getter is a call into the WebAssembly module).
 */
function walk(cursor: TreeCursor, visit: (cursor: TreeCursor, typeId: number) => void, leaf?: (cursor: TreeCursor, typeId: number) => void): void {
  try {
    for (;;) {
      const typeId = cursor.nodeTypeId;
      visit(cursor, typeId);
      if (cursor.gotoFirstChild()) continue;
      leaf?.(cursor, typeId);
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return;
      }
    }
  } finally {
    cursor.delete();
  }
}

function collect(grammar: PreparedGrammar, text: string, tree: Tree): { definitions: Definition[]; references: Map<string, number> } {
  const definitions: Definition[] = [];
  const references = new Map<string, number>();
  const nameStarts = new Set<number>();
  const open: OpenDefinition[] = [];

  walk(
    tree.walk(),
    (cursor, typeId) => {
      const rule = grammar.rules[typeId];
      if (rule === undefined) return;
      const found = definitionAt(cursor.currentNode, rule);
      if (found === undefined) return;
      const { node, nameNode } = found;
      while (open.length > 0 && open[open.length - 1].end <= node.startIndex) open.pop();
      const enclosing = nearestContainer(open);
      const ownContainer = found.rule.container?.(node);
      const container = ownContainer ?? enclosing?.name;
      let kind = found.kind;
      if (kind === 'function' && (ownContainer !== undefined || (enclosing !== undefined && METHOD_CONTAINERS.has(enclosing.kind)))) kind = 'method';
      const name = nameNode.text;
      nameStarts.add(nameNode.startIndex);
      open.push({ end: node.endIndex, kind, name });
      if (kind === 'impl') return;
      const end = node.endPosition;
      const definition: Definition = {
        kind,
        name,
        line: nameNode.startPosition.row + 1,
        startLine: node.startPosition.row + 1,
        // A node that ends at column 0 ends on the line before (a trailing newline belongs to it).
        endLine: end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1,
        signature: signatureOf(text, node, nameNode, found.rule),
      };
      if (container !== undefined) definition.container = container;
      definitions.push(definition);
    },
    (cursor, typeId) => {
      if (!grammar.identifiers[typeId]) return;
      const start = cursor.startIndex;
      if (nameStarts.has(start)) return;
      const name = text.slice(start, cursor.endIndex);
      // The stored form separates names with spaces and counts with colons; no identifier has either.
      if (name.length === 0 || name.length > MAX_NAME_LENGTH || UNSTORABLE_NAME.test(name)) return;
      references.set(name, (references.get(name) ?? 0) + 1);
    },
  );
  return { definitions, references };
}

/** Functions and blocks are not containers: `Class.method` names the class, not the function around it. */
function nearestContainer(open: OpenDefinition[]): OpenDefinition | undefined {
  for (let index = open.length - 1; index >= 0; index--) {
    const candidate = open[index];
    if (candidate.kind !== 'function' && candidate.kind !== 'method' && candidate.kind !== 'constant' && candidate.kind !== 'type' && candidate.kind !== 'macro') return candidate;
  }
  return undefined;
}

function bodyOf(node: Node, rule: DefinitionRule): Node | null {
  if (typeof rule.body === 'function') return rule.body(node);
  return node.childForFieldName(rule.body ?? 'body');
}

/** The head of a definition on one line: up to its body, or the line of its name when it has none. */
function signatureOf(text: string, node: Node, nameNode: Node, rule: DefinitionRule): string {
  const body = bodyOf(node, rule);
  let head: string;
  if (body !== null && body.startIndex > node.startIndex) {
    head = text.slice(node.startIndex, Math.min(body.startIndex, node.startIndex + 4 * MAX_SIGNATURE_LENGTH));
  } else {
    const lineStart = text.lastIndexOf('\n', nameNode.startIndex - 1) + 1;
    const lineEnd = text.indexOf('\n', nameNode.endIndex);
    head = text.slice(Math.max(lineStart, node.startIndex), lineEnd === -1 ? text.length : Math.min(lineEnd, node.endIndex));
  }
  const collapsed = head.replace(/\s+/g, ' ').trim().replace(/\s*[{:=]$/, '').trimEnd();
  return collapsed.length > MAX_SIGNATURE_LENGTH ? `${collapsed.slice(0, MAX_SIGNATURE_LENGTH - 1)}…` : collapsed;
}
