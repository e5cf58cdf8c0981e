import { Language, Parser, Range, Tree } from 'web-tree-sitter';
import { CBodies, includedRanges, scanCBodies, withoutRegions } from './c-bodies';
import { CursorFactory, WalkCursor } from './fast-cursor';
import { FlatTree } from './flat-tree';
import { GrammarName, loadGrammar, treeSitterModule } from './grammars';
import type { ImportEntry, ImportRule } from './imports';
import { BindingRule, DefinitionRule, LANGUAGE_SPECS, LanguageSpec, METHOD_CONTAINERS, MemberRule, NO_BODY, languageSpecFor } from './language-specs';
import {
  NO_RECEIVER,
  OCCURRENCE_CALL,
  OCCURRENCE_DECLARES,
  OCCURRENCE_FIELD,
  OCCURRENCE_MEMBER,
  OCCURRENCE_RECEIVER_CALL,
  OCCURRENCE_RECEIVER_MEMBER,
  OCCURRENCE_RETURNED,
  OCCURRENCE_THIS,
  OCCURRENCE_TYPE,
  OCCURRENCE_UNNAMED_TYPE,
  OCCURRENCE_VALUE_CALL,
  OCCURRENCE_VALUE_MEMBER,
  OCCURRENCE_VALUE_NAME,
  type RawOccurrences,
} from './occurrences';
import { NativeCParser } from './native-c';
import { DEFAULT_MAX_SYMBOL_BYTES, type Definition, type IndexWarning, type SymbolKind } from './symbol-types';
import type { SyntaxNode, SyntaxTree } from './syntax-node';

/** A parse that takes longer than this is abandoned (the file gets no symbols and a warning). */
export const DEFAULT_PARSE_TIMEOUT_MS = 10_000;
const MAX_SIGNATURE_LENGTH = 240;
const MAX_NAME_LENGTH = 200;
const UNSTORABLE_NAME = /[\s:]/;

export interface SymbolExtractorOptions {
  maxBytes?: number;
  parseTimeoutMs?: number;
  /** Walk trees with web-tree-sitter's public cursor instead of calling the runtime directly (fast-cursor.ts), and read every definition through syntax nodes; for tests. */
  publicCursor?: boolean;
  /** Parse C function bodies and initializers too instead of lexing them (c-bodies.ts); for tests. */
  parseCBodies?: boolean;
  /** Parse C with the native build of its grammar when it is built (native-c.ts; the default), or always with WebAssembly (false; for tests). */
  nativeC?: boolean;
}

export interface ExtractedSymbols {
  /** `parsed`: the grammar ran; `unsupported`: no grammar for the language; `failed`/`skipped`: see warnings. */
  status: 'parsed' | 'unsupported' | 'failed' | 'skipped';
  definitions: Definition[];
  /** Names used in the file (not where they are defined), with how often. */
  references: Map<string, number>;
  /** Where each of those names is used (the packed form is made by the blob index). */
  occurrences: RawOccurrences;
  /** Offsets where lines start in the text (for packing occurrences). */
  lineStarts: number[];
  imports: ImportEntry[];
  /** The file's package (Go) or package declaration (Java). */
  package?: string;
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
  /** The native parser of the same grammar (C only, when built): trees as records (flat-tree.ts). */
  native?: NativeCParser;
  rules: (DefinitionRule | undefined)[];
  /**
   * By node type id: the rule is plain (a fixed kind, the `name` field, no body, no container of
   * its own) and the language has no local scopes, so the definition can be read off the cursor
   * (offsets) without making syntax node objects: C's macros, most definitions of a header.
   */
  plain: boolean[];
  /** The `name` field's id. */
  nameField: number;
  identifiers: boolean[];
  /** By node type id: member access rules with their field ids. */
  members: ({ receiver: number; member: number; call: boolean; implicit: boolean } | undefined)[];
  /** By node type id: the field id of what a call calls (-1: not a call). */
  callees: number[];
  /** By node type id: leaves that stand for the enclosing class (`this`). */
  selfLeaves: boolean[];
  selfNames: ReadonlySet<string>;
  imports: (ImportRule | undefined)[];
  packages: (((node: SyntaxNode) => string | undefined) | undefined)[];
  localScopes: ReadonlySet<string>;
  typeLeaves: boolean[];
  /** By node type id: how the node binds names (variables, parameters). */
  bindings: (PreparedBinding | undefined)[];
  /** By node type id: scopes of bindings; member scopes (class bodies) are 2. */
  bindingScopes: number[];
  transparent: boolean[];
  /** By node type id: a statement or expression that returns its operand (`''`: its first named child; else that field). */
  returns: (string | undefined)[];
}

interface PreparedBinding {
  /** A field id, `-1` for the identifier children without a field, or a function of the node. */
  name: number | ((node: SyntaxNode) => SyntaxNode | null);
  type: number;
  value: number | ((node: SyntaxNode) => SyntaxNode | null);
  member?: BindingRule['member'];
}

interface OpenDefinition {
  end: number;
  kind: SymbolKind | 'impl';
  name: string;
}

interface FoundDefinition {
  node: SyntaxNode;
  rule: DefinitionRule;
  kind: SymbolKind | 'impl';
  nameNode: SyntaxNode;
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
  private cursors!: CursorFactory;
  private readonly lexCBodies: boolean;

  private constructor(options: SymbolExtractorOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_SYMBOL_BYTES;
    this.parseTimeoutMs = options.parseTimeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS;
    this.lexCBodies = options.parseCBodies !== true;
  }

  static async create(options: SymbolExtractorOptions = {}): Promise<SymbolExtractor> {
    const extractor = new SymbolExtractor(options);
    await Promise.all(
      LANGUAGE_SPECS.map(async (spec) => {
        const grammar = prepare(spec, await loadGrammar(spec.grammar));
        if (spec.grammar === 'c' && options.nativeC !== false) grammar.native = NativeCParser.for(grammar.language);
        extractor.grammars.set(spec.grammar, grammar);
      }),
    );
    extractor.cursors = CursorFactory.for(treeSitterModule(), { fast: options.publicCursor !== true });
    return extractor;
  }

  /** Whether trees are walked by calling the runtime directly (see fast-cursor.ts). */
  get fastCursor(): boolean {
    return this.cursors.fast;
  }

  /** Whether C is parsed by the native build of its grammar (native-c.ts). */
  get nativeC(): boolean {
    return this.grammars.get('c')?.native !== undefined;
  }

  /** A walk over the tree: over its records (native), or through the runtime (WebAssembly). */
  private walk(tree: SyntaxTree): WalkCursor {
    return tree instanceof FlatTree ? tree.walk() : this.cursors.walk(tree as Tree);
  }

  extract(path: string, language: string | undefined, text: string): ExtractedSymbols {
    const spec = languageSpecFor(language, path);
    const empty = { definitions: [], references: new Map<string, number>(), occurrences: { names: [], data: [] }, lineStarts: [], imports: [] };
    if (spec === undefined) return { status: 'unsupported', ...empty, warnings: [] };
    if (text.length > this.maxBytes) {
      return { status: 'skipped', ...empty, warnings: [{ kind: 'too_large', message: `${path}: larger than ${this.maxBytes} bytes, symbols not extracted` }] };
    }
    const grammar = this.grammars.get(spec.grammar)!;
    // C: bodies and initializers are lexed, not parsed (c-bodies.ts).
    let bodies = spec.grammar === 'c' && this.lexCBodies ? scanCBodies(text) : undefined;
    let parsed = this.parse(grammar, path, text, bodies === undefined ? undefined : includedRanges(text, bodies.regions));
    for (let attempt = 0; bodies !== undefined && 'tree' in parsed; attempt++) {
      // Where the grammar lost its way in a function's head or around a body, how it recovers
      // may depend on what the body holds: those bodies are parsed after all (the whole file
      // after three tries).
      const lost = regionsNearErrors(parsed.tree, bodies, text);
      if (lost.length === 0) break;
      parsed.tree.delete();
      bodies = attempt < 2 ? withoutRegions(bodies, lost) : undefined;
      parsed = this.parse(grammar, path, text, bodies === undefined ? undefined : includedRanges(text, bodies.regions));
    }
    if ('warning' in parsed) return { status: 'failed', ...empty, warnings: [parsed.warning] };
    try {
      // Plain definitions are read off a cursor that makes no node objects; the public cursor is the spec's reference.
      const plainDefinitions = parsed.tree instanceof FlatTree || this.cursors.fast;
      return { status: 'parsed', ...collect(grammar, text, this.walk(parsed.tree), bodies, plainDefinitions), warnings: [] };
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
      walkDefinitions(grammar, this.walk(parsed.tree), (found) => {
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

  private parse(grammar: PreparedGrammar, path: string, text: string, includedRanges?: Range[]): { tree: SyntaxTree } | { warning: IndexWarning } {
    const timedOut = (): { warning: IndexWarning } => ({ warning: { kind: 'grammar_failed', message: `${path}: parsing took longer than ${this.parseTimeoutMs} ms, symbols not extracted` } });
    if (grammar.native !== undefined) {
      try {
        const tree = grammar.native.parse(text, this.parseTimeoutMs, includedRanges);
        return tree === null ? timedOut() : { tree };
      } catch (error) {
        return { warning: { kind: 'grammar_failed', message: `${path}: the native C parser failed: ${(error as Error).message}` } };
      }
    }
    const deadline = performance.now() + this.parseTimeoutMs;
    try {
      // Returning true from the progress callback cancels the parse (web-tree-sitter ≥ 0.25).
      const progressCallback = (() => performance.now() > deadline) as () => void;
      const tree =
        includedRanges === undefined
          ? grammar.parser.parse(text, null, { progressCallback })
          : grammar.parser.parse(rangedInput(text, includedRanges), null, { progressCallback, includedRanges });
      if (tree === null) return timedOut();
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
  const members: PreparedGrammar['members'] = [];
  const callees: number[] = [];
  const selfLeaves: boolean[] = [];
  const imports: PreparedGrammar['imports'] = [];
  const packages: PreparedGrammar['packages'] = [];
  const identifierTypes = new Set(spec.identifiers);
  const typeLeafTypes = new Set(spec.typeLeaves ?? []);
  const typeLeaves: boolean[] = [];
  const selfReceivers = new Set(spec.selfReceivers ?? []);
  const bindings: PreparedGrammar['bindings'] = [];
  const bindingScopes: number[] = [];
  const scopeTypes = new Set(spec.bindingScopes ?? []);
  const memberScopeTypes = new Set(spec.memberScopes ?? []);
  const transparentTypes = new Set(spec.transparent ?? []);
  const transparent: boolean[] = [];
  const returns: (string | undefined)[] = [];
  const fieldId = (name: string) => language.fieldIdForName(name) ?? -2;
  const own = <T>(table: Readonly<Record<string, T>> | undefined, type: string): T | undefined => (table !== undefined && Object.hasOwn(table, type) ? table[type] : undefined);
  // By id, not by name: a cursor reports ids, and an aliased node type has an id of its own.
  const plain: boolean[] = [];
  for (let id = 0; id < language.nodeTypeCount; id++) {
    const type = language.nodeTypeForId(id);
    callees[id] = -1;
    if (type === null || !language.nodeTypeIsNamed(id)) continue;
    rules[id] = own(spec.definitions, type);
    const rule = rules[id];
    plain[id] = rule !== undefined && typeof rule.kind === 'string' && rule.kind !== 'impl' && rule.name === undefined && rule.container === undefined && rule.body === NO_BODY && (spec.localScopes ?? []).length === 0;
    identifiers[id] = identifierTypes.has(type);
    typeLeaves[id] = typeLeafTypes.has(type);
    const member: MemberRule | undefined = own(spec.members, type);
    if (member !== undefined) members[id] = { receiver: member.receiver === '' ? -2 : fieldId(member.receiver), member: fieldId(member.member), call: member.call === true, implicit: member.implicitReceiver === true };
    const callee = own(spec.calls, type);
    if (callee !== undefined) callees[id] = fieldId(callee);
    selfLeaves[id] = selfReceivers.has(type);
    imports[id] = own(spec.imports, type);
    packages[id] = own(spec.packageDeclaration, type);
    const binding = own(spec.bindings, type);
    if (binding !== undefined) {
      bindings[id] = {
        name: typeof binding.name === 'function' ? binding.name : binding.name === '*' ? -1 : fieldId(binding.name),
        type: binding.type === undefined ? -2 : fieldId(binding.type),
        value: typeof binding.value === 'function' ? binding.value : binding.value === undefined ? -2 : fieldId(binding.value),
        ...(binding.member === undefined ? {} : { member: binding.member }),
      };
    }
    bindingScopes[id] = memberScopeTypes.has(type) ? 2 : scopeTypes.has(type) ? 1 : 0;
    transparent[id] = transparentTypes.has(type);
    returns[id] = own(spec.returns, type);
  }
  return {
    language,
    parser: newParser(language),
    rules,
    plain,
    nameField: fieldId('name'),
    identifiers,
    members,
    callees,
    selfLeaves,
    selfNames: selfReceivers,
    imports,
    packages,
    localScopes: new Set(spec.localScopes ?? []),
    typeLeaves,
    bindings,
    bindingScopes,
    transparent,
    returns,
  };
}

const SKIPPED_WORDS = /^[\w\s*]*$/;

/** The regions left out (by index) that an ERROR node of the tree reaches into, or into whose head. */
function regionsNearErrors(tree: SyntaxTree, { regions, heads }: CBodies, text: string): number[] {
  if (!tree.rootNode.hasError) return [];
  const lost: number[] = [];
  const count = regions.length / 2;
  for (const error of tree.rootNode.descendantsOfType('ERROR')) {
    if (error === null) continue;
    const { startIndex, endIndex } = error;
    // A name or two the grammar skipped (`char __user *buf`, `static int __init f(void)`): a local
    // repair that no body changes.
    if (SKIPPED_WORDS.test(text.slice(startIndex, endIndex))) continue;
    // The first region ending after the error starts, and those after it whose heads it reaches.
    let low = 0;
    let high = count;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (regions[2 * middle + 1] < startIndex) low = middle + 1;
      else high = middle;
    }
    for (let index = low; index < count && heads[index] < endIndex; index++) if (lost[lost.length - 1] !== index) lost.push(index);
  }
  return [...new Set(lost)].sort((a, b) => a - b);
}

/**
 * The text as tree-sitter reads it when it parses only some ranges: from where it asks, to the end
 * of the range it asks in. Given the whole string, web-tree-sitter copies the next ~5,000
 * characters into the WebAssembly heap, one at a time, at every range it jumps to, though it reads
 * only to the range's end (with C bodies left out, most ranges are a function's head). Offsets
 * only grow but for the grammar's occasional step back, so the range is found from the last one.
 */
function rangedInput(text: string, ranges: readonly Range[]): (index: number) => string {
  let at = 0;
  return (index) => {
    if (at >= ranges.length || ranges[at].startIndex > index) at = 0;
    while (at < ranges.length && ranges[at].endIndex <= index) at++;
    // Past the last range, or between two (never asked in practice): what the whole string would give.
    if (at === ranges.length || ranges[at].startIndex > index) return text.slice(index);
    return text.slice(index, ranges[at].endIndex);
  };
}

function newParser(language: Language): Parser {
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/** Visits every definition node in document order (parents before children). */
function walkDefinitions(grammar: PreparedGrammar, cursor: WalkCursor, visit: (found: FoundDefinition) => void): void {
  walk(cursor, (cursor, typeId) => {
    const rule = grammar.rules[typeId];
    if (rule === undefined) return;
    const found = definitionAt(cursor.node(), rule);
    if (found !== undefined) visit(found);
  });
}

function definitionAt(node: SyntaxNode, rule: DefinitionRule): FoundDefinition | undefined {
  const kind = typeof rule.kind === 'function' ? rule.kind(node) : rule.kind;
  if (kind === undefined) return undefined;
  const nameNode = rule.name === undefined ? node.childForFieldName('name') : rule.name(node);
  if (nameNode === null || nameNode.text.length === 0 || nameNode.text.length > MAX_NAME_LENGTH) return undefined;
  return { node, rule, kind, nameNode };
}

/**
 * Depth-first over every node: `visit` runs on each with the node's type id, read once (every
 * cursor getter is a call into the WebAssembly module).
 */
function walk(cursor: WalkCursor, visit: (cursor: WalkCursor, typeId: number) => void): void {
  try {
    for (;;) {
      const typeId = cursor.typeId;
      visit(cursor, typeId);
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return;
      }
    }
  } finally {
    cursor.delete();
  }
}

const RECEIVER_NONE = -1;
const RECEIVER_THIS = -2;
const RECEIVER_EXPRESSION = -3;

/** How an expression ends: in a name (`x`), a call of a name (`f()`, `a.f()`, `new F()`) or a member (`a.b`). */
const ENDS_IN_NAME = 0;
const ENDS_IN_CALL = 1;
const ENDS_IN_MEMBER = 2;

/** A declared type that names no class. */
const UNNAMED = 'unnamed';

/** What a binding (a variable, a parameter) says about the name it binds, kept until the name's leaf is recorded. */
interface BindingFacts {
  first: number;
  last: number;
  member: boolean;
  /** The name id of the value's last name and how the value ends in it. */
  value: number;
  valueKind: number;
  /** The name id of the declared type's name. */
  type: number;
  /** Declared with a type that names no class. */
  unnamedType: boolean;
}

/** What one walk of a tree finds: definitions, references with their occurrences, imports. */
type Collected = Omit<ExtractedSymbols, 'status' | 'warnings'>;

/**
 * One depth-first walk over every node. Besides definitions and references it records where each
 * name is used: the line comes from the offset (leaves arrive in document order), whether it is
 * called and its receiver from the member and call nodes above it, tracked on a stack of node
 * types so no syntax node object is made for a leaf. With `plainDefinitions` (the fast cursor; the
 * public one is the spec's reference), plain rules' definitions are read off the cursor too.
 */
function collect(grammar: PreparedGrammar, text: string, cursor: WalkCursor, lexed: CBodies | undefined, plainDefinitions: boolean): Collected {
  const definitions: Definition[] = [];
  // References counted by name id (a name's id is made at its first use of any kind), in the order
  // of their first reference: the Map is made at the end, one lookup per use instead of three.
  const referenceCounts: number[] = [];
  const referenceOrder: number[] = [];
  const reference = (id: number) => {
    if (referenceCounts[id] === undefined || referenceCounts[id] === 0) {
      referenceCounts[id] = 1;
      referenceOrder.push(id);
    } else referenceCounts[id]++;
  };
  const nameStarts = new Set<number>();
  const open: OpenDefinition[] = [];
  const imports: ImportEntry[] = [];
  let packageName: string | undefined;

  const nameIds = new Map<string, number>();
  const names: string[] = [];
  const data: number[] = [];
  const idOf = (name: string) => {
    let id = nameIds.get(name);
    if (id === undefined) {
      id = names.length;
      names.push(name);
      nameIds.set(name, id);
    }
    return id;
  };
  const lineStarts = [0];
  let nextNewline = text.indexOf('\n');
  /** The line (1-based) of an offset; offsets only grow between calls. */
  const lineAt = (offset: number) => {
    while (nextNewline !== -1 && nextNewline < offset) {
      lineStarts.push(nextNewline + 1);
      nextNewline = text.indexOf('\n', nextNewline + 1);
    }
    return lineStarts.length;
  };

  // Per depth: node type id; the node's field id in its parent, read only under member and call
  // nodes (-1 elsewhere); for member nodes, the receiver seen so far (RECEIVER_* or a name id).
  const types: number[] = [];
  const fields: number[] = [];
  const receivers: number[] = [];
  // Per member node depth: a receiver that is an expression, by its last name (name id) and how it ends in it.
  const receiverLinks: number[] = [];
  const receiverKinds: number[] = [];
  // Bindings and returned expressions, read from their statements' nodes, by the offset of the leaf they concern.
  const bindingAt = new Map<number, BindingFacts>();
  const returnedAt = new Set<number>();
  // Open binding scopes, outermost first.
  const scopes: { start: number; end: number; first: number; last: number; member: boolean }[] = [];
  let allLineStarts: number[] | undefined;
  /** The line (1-based) of any offset (bindings need their scope's last line, ahead of the walk). */
  const lineOf = (offset: number) => {
    if (allLineStarts === undefined) {
      allLineStarts = [0];
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) allLineStarts.push(at + 1);
    }
    let low = 0;
    let high = allLineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (allLineStarts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  let depth = 0;
  let nextLexed = 0;
  try {
    for (;;) {
      const typeId = cursor.typeId;
      types[depth] = typeId;
      const parentType = depth > 0 ? types[depth - 1] : -1;
      const parentMember = parentType === -1 ? undefined : grammar.members[parentType];
      if (parentMember !== undefined || (parentType !== -1 && grammar.callees[parentType] !== -1)) {
        const field = cursor.fieldId;
        fields[depth] = field;
        if (parentMember !== undefined && field === parentMember.receiver) {
          receivers[depth - 1] = RECEIVER_EXPRESSION;
          // `f().x`, `a.b.x`, `(await f()).x`: what the receiver expression ends in (a named receiver is recorded at its leaf).
          if (!grammar.identifiers[typeId] && !grammar.selfLeaves[typeId]) {
            const ending = lastName(cursor.node());
            if (ending !== undefined) {
              receiverLinks[depth - 1] = idOf(ending.leaf.text);
              receiverKinds[depth - 1] = ending.kind;
            }
          }
        }
      } else fields[depth] = -1;
      if (grammar.members[typeId] !== undefined) {
        receivers[depth] = grammar.members[typeId]!.implicit ? RECEIVER_EXPRESSION : RECEIVER_NONE;
        receiverLinks[depth] = -1;
      }
      const scopeKind = grammar.bindingScopes[typeId];
      const binding = grammar.bindings[typeId];
      const returned = grammar.returns[typeId];
      if (scopeKind !== 0 || binding !== undefined || returned !== undefined) {
        const start = cursor.startIndex;
        while (scopes.length > 0 && scopes[scopes.length - 1].end <= start) scopes.pop();
        // The module's scope starts at line 0: a module-level binding says so (its root node starts at its first token).
        // Lines are found when a binding needs them (most blocks bind nothing).
        if (scopeKind !== 0) scopes.push({ start, end: cursor.endIndex, first: depth === 0 ? 0 : -1, last: -1, member: scopeKind === 2 });
        if (binding !== undefined) recordBinding(cursor.node(), binding);
        if (returned !== undefined) {
          const node = cursor.node();
          const operand = returned === '' ? node.namedChild(0) : node.childForFieldName(returned);
          // An arrow function's block body returns with its statements, not as an expression.
          const ending = operand === null || grammar.bindingScopes[operand.typeId] !== 0 ? undefined : lastName(operand);
          if (ending !== undefined) returnedAt.add(ending.leaf.startIndex);
        }
      }
      const rule = grammar.rules[typeId];
      if (rule !== undefined && plainDefinitions && grammar.plain[typeId]) recordPlainDefinition(rule.kind as SymbolKind);
      else if (rule !== undefined) {
        const found = definitionAt(cursor.node(), rule);
        if (found !== undefined) {
          const { node, nameNode } = found;
          const enclosing = enclosingAt(node.startIndex);
          const ownContainer = found.rule.container?.(node);
          const container = ownContainer ?? enclosing?.name;
          let kind = found.kind;
          if (kind === 'function' && (ownContainer !== undefined || (enclosing !== undefined && METHOD_CONTAINERS.has(enclosing.kind)))) kind = 'method';
          const name = nameNode.text;
          opened(nameNode.startIndex, node.endIndex, kind, name);
          if (kind !== 'impl') {
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
            const local = localScopeOf(grammar, node);
            if (local !== undefined) definition.local = local;
            definitions.push(definition);
          }
        }
      }
      const importRule = grammar.imports[typeId];
      if (importRule !== undefined) {
        const node = cursor.node();
        const line = node.startPosition.row + 1;
        for (const entry of importRule(node)) imports.push({ line, ...entry });
      }
      const packageRule = grammar.packages[typeId];
      if (packageRule !== undefined && packageName === undefined) packageName = packageRule(cursor.node());

      if (cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      if (grammar.identifiers[typeId] || grammar.selfLeaves[typeId]) recordLeaf(typeId);
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          if (lexed !== undefined) recordLexed(text.length + 1);
          const references = new Map<string, number>();
          for (const id of referenceOrder) references.set(names[id], referenceCounts[id]);
          return { definitions, references, occurrences: { names, data }, lineStarts: finishLines(), imports, ...(packageName === undefined ? {} : { package: packageName }) };
        }
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }

  function finishLines(): number[] {
    lineAt(text.length + 1);
    return lineStarts;
  }

  /** The innermost container open at `start`, once the definitions that ended before it are closed. */
  function enclosingAt(start: number): OpenDefinition | undefined {
    while (open.length > 0 && open[open.length - 1].end <= start) open.pop();
    return nearestContainer(open);
  }

  /** A definition found: its name is no reference, and it stays open (a container of what follows) until `end`. */
  function opened(nameStart: number, end: number, kind: OpenDefinition['kind'], name: string): void {
    nameStarts.add(nameStart);
    open.push({ end, kind, name });
  }

  /**
   * A plain rule's definition (`PreparedGrammar.plain`), from the cursor's offsets: the same
   * fields `definitionAt` and `signatureOf` give, lines counted from the text as tree-sitter counts rows.
   */
  function recordPlainDefinition(kind: SymbolKind): void {
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    let nameStart = -1;
    let nameEnd = -1;
    if (cursor.gotoFirstChild()) {
      do {
        if (cursor.fieldId === grammar.nameField) {
          nameStart = cursor.startIndex;
          nameEnd = cursor.endIndex;
          break;
        }
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    if (nameStart === -1 || nameEnd === nameStart || nameEnd - nameStart > MAX_NAME_LENGTH) return;
    const name = text.slice(nameStart, nameEnd);
    const container = enclosingAt(start)?.name;
    opened(nameStart, end, kind, name);
    const startLine = lineOf(start);
    const lastLine = lineOf(end);
    const definition: Definition = {
      kind,
      name,
      line: lineOf(nameStart),
      startLine,
      // A node that ends at column 0 ends on the line before (a trailing newline belongs to it).
      endLine: lastLine > startLine && allLineStarts![lastLine - 1] === end ? lastLine - 1 : lastLine,
      signature: collapseSignature(headOnNameLine(text, start, end, nameStart, nameEnd), name),
    };
    if (container !== undefined) definition.container = container;
    definitions.push(definition);
  }

  /** The names lexed in the regions not parsed that come before `offset`, recorded as their leaves would be. */
  function recordLexed(offset: number): void {
    const lexedNames = lexed!.names;
    const positions = lexed!.positions;
    for (; nextLexed < lexedNames.length && positions[2 * nextLexed] < offset; nextLexed++) {
      const name = lexedNames[nextLexed];
      if (name.length > MAX_NAME_LENGTH) continue;
      const start = positions[2 * nextLexed];
      const id = idOf(name);
      reference(id);
      const line = lineAt(start);
      data.push(id, line, start - lineStarts[line - 1], positions[2 * nextLexed + 1] === 1 ? OCCURRENCE_CALL : 0, NO_RECEIVER, 0, 0, NO_RECEIVER);
    }
  }

  function recordLeaf(typeId: number): void {
    const start = cursor.startIndex;
    if (lexed !== undefined) recordLexed(start);
    const parent = depth > 0 ? types[depth - 1] : -1;
    const member = parent === -1 ? undefined : grammar.members[parent];
    const field = fields[depth];
    let flags = 0;
    let receiver = NO_RECEIVER;
    if (member !== undefined && field === member.receiver) {
      // The receiver of the member access above: remembered for the member's name that follows.
      const name = grammar.selfLeaves[typeId] ? undefined : text.slice(start, cursor.endIndex);
      receivers[depth - 1] = name === undefined || grammar.selfNames.has(name) ? RECEIVER_THIS : idOf(name);
    } else if (member !== undefined && field === member.member) {
      const seen = receivers[depth - 1];
      // No receiver at all (Java's bare `foo()` is a method_invocation): a bare name.
      if (seen === RECEIVER_THIS) flags |= OCCURRENCE_THIS;
      else if (seen !== RECEIVER_NONE) flags |= OCCURRENCE_MEMBER;
      if (seen >= 0) receiver = seen;
      else if (seen === RECEIVER_EXPRESSION && receiverLinks[depth - 1] >= 0) {
        receiver = receiverLinks[depth - 1];
        // An expression ending in a plain name (`(x).y`, `x!.y`) is that name.
        if (receiverKinds[depth - 1] === ENDS_IN_CALL) flags |= OCCURRENCE_RECEIVER_CALL;
        else if (receiverKinds[depth - 1] === ENDS_IN_MEMBER) flags |= OCCURRENCE_RECEIVER_MEMBER;
      }
      const grandparent = depth > 1 ? types[depth - 2] : -1;
      if (member.call || (grandparent !== -1 && fields[depth - 1] >= 0 && grammar.callees[grandparent] === fields[depth - 1])) flags |= OCCURRENCE_CALL;
    } else if (member === undefined && parent !== -1 && field >= 0 && field === grammar.callees[parent]) flags |= OCCURRENCE_CALL;
    if (!grammar.identifiers[typeId] || nameStarts.has(start)) return;
    if (grammar.typeLeaves[typeId]) flags |= OCCURRENCE_TYPE;
    const end = cursor.endIndex;
    const name = text.slice(start, end);
    // The stored form separates names with spaces and counts with colons; no identifier has either.
    if (name.length === 0 || name.length > MAX_NAME_LENGTH || UNSTORABLE_NAME.test(name)) return;
    const id = idOf(name);
    reference(id);
    const line = lineAt(start);
    let first = 0;
    let last = 0;
    let declaredType = NO_RECEIVER;
    const bound = bindingAt.get(start);
    if (bound !== undefined) {
      flags |= OCCURRENCE_DECLARES | (bound.member ? OCCURRENCE_FIELD : 0);
      first = bound.first;
      last = bound.last;
      declaredType = bound.type;
      if (bound.unnamedType) flags |= OCCURRENCE_UNNAMED_TYPE;
      if (bound.value >= 0) {
        receiver = bound.value;
        flags |= bound.valueKind === ENDS_IN_CALL ? OCCURRENCE_VALUE_CALL : bound.valueKind === ENDS_IN_MEMBER ? OCCURRENCE_VALUE_MEMBER : OCCURRENCE_VALUE_NAME;
      }
    }
    if (returnedAt.has(start)) flags |= OCCURRENCE_RETURNED;
    data.push(id, line, start - lineStarts[line - 1], flags, receiver, first, last, declaredType);
  }

  /** The names a binding node binds, recorded with what it says about them (scope, declared type, value). */
  function recordBinding(node: SyntaxNode, binding: PreparedBinding): void {
    const names: SyntaxNode[] = [];
    if (typeof binding.name === 'function') {
      const name = binding.name(node);
      if (name !== null) names.push(name);
    } else if (binding.name === -1) {
      for (let index = 0; index < node.childCount; index++) {
        const child = node.child(index);
        if (child !== null && child.isNamed && node.fieldNameForChild(index) === null) names.push(child);
      }
    } else {
      const name = node.childForFieldId(binding.name);
      if (name !== null) names.push(name);
    }
    // `self` and `cls` parameters stand for the class: `this`, not a variable.
    const named = names.filter((name) => grammar.identifiers[name.typeId] && !grammar.selfNames.has(name.text));
    if (named.length === 0 || scopes.length === 0) return;
    let scope = scopes[scopes.length - 1];
    let member = scope.member;
    if (binding.member?.(node) === true) {
      // A member of the class around the method (`constructor(private db: Db)`, `self.db = …`).
      const holder = scopes.findLast((candidate) => candidate.member);
      if (holder === undefined) return;
      scope = holder;
      member = true;
    }
    if (scope.last === -1) {
      if (scope.first === -1) scope.first = lineOf(scope.start);
      scope.last = lineOf(Math.max(scope.start, scope.end - 1));
    }
    const valueNode = typeof binding.value === 'function' ? binding.value(node) : binding.value >= 0 ? node.childForFieldId(binding.value) : null;
    let value = valueNode === null ? undefined : lastName(valueNode);
    const typeNode = binding.type >= 0 ? node.childForFieldId(binding.type) : null;
    const declared = typeNode === null ? undefined : typeName(typeNode);
    const type = declared === UNNAMED || declared === undefined || 'kind' in declared ? undefined : declared;
    // `x: typeof y` is `y` itself.
    if (declared !== undefined && declared !== UNNAMED && 'kind' in declared) value ??= declared;
    for (const name of named) {
      bindingAt.set(name.startIndex, {
        first: scope.first,
        last: scope.last,
        member,
        value: value === undefined ? -1 : idOf(value.leaf.text),
        valueKind: value?.kind ?? ENDS_IN_NAME,
        type: type === undefined ? NO_RECEIVER : idOf(type.text),
        unnamedType: declared === UNNAMED,
      });
    }
  }

  /** The name an expression ends in and how: `x`, `f()`/`a.f()`/`new F()` (a call), `a.b` (a member); through `(…)`, `await`, `!`. */
  function lastName(node: SyntaxNode, depth = 0): { leaf: SyntaxNode; kind: number } | undefined {
    if (depth > 16) return undefined;
    const typeId = node.typeId;
    if (grammar.identifiers[typeId]) return { leaf: node, kind: ENDS_IN_NAME };
    const member = grammar.members[typeId];
    if (member !== undefined) {
      if (member.implicit) return undefined;
      const leaf = node.childForFieldId(member.member);
      return leaf !== null && grammar.identifiers[leaf.typeId] ? { leaf, kind: member.call ? ENDS_IN_CALL : ENDS_IN_MEMBER } : undefined;
    }
    const callee = grammar.callees[typeId];
    if (callee !== undefined && callee >= 0) {
      const target = node.childForFieldId(callee);
      const inner = target === null ? undefined : lastName(target, depth + 1);
      return inner === undefined || inner.kind === ENDS_IN_CALL ? undefined : { leaf: inner.leaf, kind: ENDS_IN_CALL };
    }
    if (grammar.transparent[typeId]) {
      const inner = node.namedChild(0);
      return inner === null ? undefined : lastName(inner, depth + 1);
    }
    return undefined;
  }

  /**
   * The leaf naming a declared type: `Foo`, `ns.Foo<T>` → `Foo`, `Foo | null` and `Optional[Foo]`
   * → `Foo`; UNNAMED for a type that is no class (`string`, `Foo[]`, a literal, a function or
   * object type); `typeof y`: `y`, as a value.
   */
  function typeName(node: SyntaxNode | null, depth = 0): SyntaxNode | typeof UNNAMED | { leaf: SyntaxNode; kind: number } | undefined {
    if (node === null || depth > 8) return undefined;
    if (grammar.identifiers[node.typeId]) return node;
    switch (node.type) {
      case 'predefined_type':
      case 'array_type':
      case 'tuple_type':
      case 'literal_type':
      case 'function_type':
      case 'object_type':
      case 'template_literal_type':
        return UNNAMED;
      case 'type_query': {
        const queried = node.namedChild(0);
        return queried !== null && grammar.identifiers[queried.typeId] ? { leaf: queried, kind: ENDS_IN_NAME } : undefined;
      }
      case 'union_type': {
        // The first alternative that names something (`null | Foo`).
        let unnamed = false;
        for (const alternative of node.namedChildren) {
          const named = typeName(alternative, depth + 1);
          if (named === UNNAMED) unnamed = true;
          else if (named !== undefined) return named;
        }
        return unnamed ? UNNAMED : undefined;
      }
      case 'type_annotation':
      case 'type':
      case 'parenthesized_type':
      case 'readonly_type':
      case 'generic_type':
        return typeName(node.childForFieldName('name') ?? node.namedChild(0), depth + 1);
      case 'nested_type_identifier':
        return typeName(node.childForFieldName('name'), depth + 1);
      case 'attribute':
        return typeName(node.childForFieldName('attribute'), depth + 1);
      case 'binary_operator':
        return typeName(node.childForFieldName('left'), depth + 1);
      case 'subscript': {
        const base = typeName(node.childForFieldName('value'), depth + 1);
        return base !== undefined && base !== UNNAMED && !('kind' in base) && base.text === 'Optional' ? typeName(node.childForFieldName('subscript'), depth + 1) : base;
      }
      default:
        return undefined;
    }
  }
}

/** The lines of the innermost block a definition sits in (none at module or class level). */
function localScopeOf(grammar: PreparedGrammar, node: SyntaxNode): [number, number] | undefined {
  if (grammar.localScopes.size === 0) return undefined;
  for (let current = node.parent; current !== null; current = current.parent) {
    if (grammar.localScopes.has(current.type)) return [current.startPosition.row + 1, current.endPosition.row + 1];
    // A class body is a level of its own: its members are not block-local.
    if (current.type === 'class_body' || current.type === 'declaration_list' || current.type === 'field_declaration_list') return undefined;
  }
  return undefined;
}

/** Functions and blocks are not containers: `Class.method` names the class, not the function around it. */
function nearestContainer(open: OpenDefinition[]): OpenDefinition | undefined {
  for (let index = open.length - 1; index >= 0; index--) {
    const candidate = open[index];
    if (candidate.kind !== 'function' && candidate.kind !== 'method' && candidate.kind !== 'constant' && candidate.kind !== 'type' && candidate.kind !== 'macro') return candidate;
  }
  return undefined;
}

function bodyOf(node: SyntaxNode, rule: DefinitionRule): SyntaxNode | null {
  if (typeof rule.body === 'function') return rule.body(node);
  return node.childForFieldName(rule.body ?? 'body');
}

/** The head of a definition on one line: up to its body, or the line of its name when it has none. */
function signatureOf(text: string, node: SyntaxNode, nameNode: SyntaxNode, rule: DefinitionRule): string {
  const body = bodyOf(node, rule);
  const head =
    body !== null && body.startIndex > node.startIndex
      ? text.slice(node.startIndex, Math.min(body.startIndex, node.startIndex + 4 * MAX_SIGNATURE_LENGTH))
      : headOnNameLine(text, node.startIndex, node.endIndex, nameNode.startIndex, nameNode.endIndex);
  return collapseSignature(head, nameNode.text);
}

/** The head of a definition without a body: its part on the line of its name. */
function headOnNameLine(text: string, start: number, end: number, nameStart: number, nameEnd: number): string {
  const lineStart = text.lastIndexOf('\n', nameStart - 1) + 1;
  const lineEnd = text.indexOf('\n', nameEnd);
  return text.slice(Math.max(lineStart, start), lineEnd === -1 ? text.length : Math.min(lineEnd, end));
}

/** A head on one line, whitespace collapsed, at most MAX_SIGNATURE_LENGTH long. */
function collapseSignature(head: string, name: string): string {
  let collapsed = head.replace(/\s+/g, ' ').trim().replace(/\s*[{:=]$/, '').trimEnd();
  // Too long: the type parameters, then the parameters, give way first, so what follows them (a
  // class's bases, a function's return type) stays whole.
  const at = collapsed.indexOf(name);
  for (const [open, close] of [['<', '>'], ['(', ')']] as const) {
    if (collapsed.length <= MAX_SIGNATURE_LENGTH || at === -1) break;
    collapsed = elideBracket(collapsed, at + name.length, open, close);
  }
  return collapsed.length > MAX_SIGNATURE_LENGTH ? `${collapsed.slice(0, MAX_SIGNATURE_LENGTH - 1)}…` : collapsed;
}

/** `text` with the first bracketed list opened by `open` at or after `from` (skipping spaces and a `<…>`) written `open…close`. */
function elideBracket(text: string, from: number, open: string, close: string): string {
  let start = from;
  while (text[start] === ' ') start++;
  if (open === '(' && text[start] === '<') {
    // Past already elided (or balanced) type parameters.
    let depth = 0;
    for (; start < text.length; start++) {
      if (text[start] === '<') depth++;
      else if (text[start] === '>' && text[start - 1] !== '=' && --depth === 0) break;
    }
    start++;
    while (text[start] === ' ') start++;
  }
  if (text[start] !== open) return text;
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (character === '(' || character === '[' || character === '{' || character === '<') depth++;
    else if ((character === ')' || character === ']' || character === '}' || (character === '>' && text[index - 1] !== '=')) && --depth === 0) {
      return character === close ? `${text.slice(0, start)}${open}…${close}${text.slice(index + 1)}` : text;
    }
  }
  return text;
}
