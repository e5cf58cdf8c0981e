import type { Node } from 'web-tree-sitter';
import type { SymbolKind } from './symbol-types';
import type { GrammarName } from './grammars';

/**
 * What a definition looks like in one grammar: the node type that defines it, where its name and
 * body are, and when it counts. The tables are data: supporting a construct is one row.
 */
export interface DefinitionRule {
  /** The kind, or a function of the node when one node type defines several kinds (Go `type_spec`). */
  kind: SymbolKind | 'impl' | ((node: Node) => SymbolKind | undefined);
  /** The name node; default: the `name` field. */
  name?: (node: Node) => Node | null;
  /** The body field (dropped by `compress`, excluded from the signature); default `body`. */
  body?: string | ((node: Node) => Node | null);
  /** A container the node names itself (a Go method's receiver, C++ `Foo::bar`). */
  container?: (node: Node) => string | undefined;
}

export interface LanguageSpec {
  grammar: GrammarName;
  definitions: Readonly<Record<string, DefinitionRule>>;
  /** Leaf node types that are names: what references are made of. */
  identifiers: readonly string[];
  /** What stands for a dropped body in `compress`. */
  elidedBody: string;
}

const field = (name: string) => (node: Node) => node.childForFieldName(name);

/** C and C++: a function's name sits at the bottom of a chain of declarators (`*f(int)`, `(*f)(void)`). */
function declaratorName(node: Node): Node | null {
  let current: Node | null = node.childForFieldName('declarator');
  for (let depth = 0; current !== null && depth < 16; depth++) {
    switch (current.type) {
      case 'identifier':
      case 'field_identifier':
      case 'type_identifier':
      case 'operator_name':
      case 'destructor_name':
        return current;
      case 'qualified_identifier':
        current = current.childForFieldName('name');
        continue;
      case 'parenthesized_declarator':
        current = current.namedChild(0);
        continue;
      default: {
        const next = current.childForFieldName('declarator');
        if (next === null) return null;
        current = next;
      }
    }
  }
  return null;
}

/**
 * `static int __init foo(void) {…}`: an attribute macro the grammar cannot know makes tree-sitter
 * read `static int __init` as a declaration missing its `;`, then a function whose *type* is
 * `foo` and whose declarator is just `(void)`. The same shape comes from a return type on the line
 * before (`agp_init (void)`). No real C function has a bare parenthesized declarator, so in that
 * shape the name is the type.
 */
function functionName(node: Node): Node | null {
  const declarator = node.childForFieldName('declarator');
  const type = node.childForFieldName('type');
  if (declarator?.type === 'parenthesized_declarator' && type?.type === 'type_identifier') return type;
  return declaratorName(node);
}

/** `Foo::bar` defined outside its class: `Foo` is the container. */
function qualifiedScope(node: Node): string | undefined {
  let current: Node | null = node.childForFieldName('declarator');
  for (let depth = 0; current !== null && depth < 16; depth++) {
    if (current.type === 'qualified_identifier') return current.childForFieldName('scope')?.text;
    current = current.childForFieldName('declarator') ?? (current.type === 'parenthesized_declarator' ? current.namedChild(0) : null);
  }
  return undefined;
}

/** Only aggregates with a body define something; `struct foo *p;` merely mentions one. */
const withBody = (kind: SymbolKind): DefinitionRule => ({ kind: (node) => (node.childForFieldName('body') === null ? undefined : kind) });

const C_FAMILY: Record<string, DefinitionRule> = {
  function_definition: { kind: 'function', name: functionName, container: qualifiedScope },
  struct_specifier: withBody('struct'),
  union_specifier: withBody('union'),
  enum_specifier: withBody('enum'),
  type_definition: { kind: 'type', name: declaratorName, body: () => null },
  preproc_def: { kind: 'macro', body: () => null },
  preproc_function_def: { kind: 'macro', body: () => null },
};

const C: LanguageSpec = {
  grammar: 'c',
  definitions: C_FAMILY,
  // Not `field_identifier`: C has no methods, so `sb->s_flags` names nothing a definition could be,
  // and struct member accesses are a third of a kernel file's names.
  identifiers: ['identifier', 'type_identifier'],
  elidedBody: '{ … }',
};

const CPP: LanguageSpec = {
  grammar: 'cpp',
  definitions: {
    ...C_FAMILY,
    class_specifier: withBody('class'),
    namespace_definition: { kind: (node) => (node.childForFieldName('name') === null ? undefined : 'namespace') },
    alias_declaration: { kind: 'type', body: () => null },
  },
  identifiers: ['identifier', 'type_identifier', 'field_identifier', 'namespace_identifier'],
  elidedBody: '{ … }',
};

/** `const add = (a, b) => …` and `let f = function () {}` define functions; other declarators do not. */
function functionValue(node: Node): boolean {
  const value = node.childForFieldName('value');
  return value !== null && ['arrow_function', 'function_expression', 'function', 'generator_function'].includes(value.type);
}

/** Top-level `const NAME = …` is a constant; locals, `let` and `const x = require(…)` are not definitions. */
function topLevelConst(node: Node): boolean {
  const value = node.childForFieldName('value');
  if (value?.type === 'call_expression' && value.childForFieldName('function')?.text === 'require') return false;
  const declaration = node.parent;
  if (declaration === null || declaration.type !== 'lexical_declaration' || !declaration.text.startsWith('const')) return false;
  const scope = declaration.parent;
  return scope !== null && (scope.type === 'program' || (scope.type === 'export_statement' && scope.parent?.type === 'program'));
}

const JS_DEFINITIONS: Record<string, DefinitionRule> = {
  function_declaration: { kind: 'function' },
  generator_function_declaration: { kind: 'function' },
  class_declaration: { kind: 'class' },
  method_definition: { kind: 'method' },
  variable_declarator: {
    kind: (node) => (functionValue(node) ? 'function' : node.childForFieldName('name')?.type === 'identifier' && topLevelConst(node) ? 'constant' : undefined),
    body: (node) => (functionValue(node) ? (node.childForFieldName('value')?.childForFieldName('body') ?? null) : null),
  },
};

const TS_DEFINITIONS: Record<string, DefinitionRule> = {
  ...JS_DEFINITIONS,
  abstract_class_declaration: { kind: 'class' },
  interface_declaration: { kind: 'interface' },
  type_alias_declaration: { kind: 'type', body: () => null },
  enum_declaration: { kind: 'enum' },
  internal_module: { kind: 'namespace' },
  module: { kind: (node) => (node.childForFieldName('name')?.type === 'identifier' ? 'namespace' : undefined) },
  method_signature: { kind: 'method' },
  abstract_method_signature: { kind: 'method' },
  function_signature: { kind: 'function' },
};

const JS_IDENTIFIERS = ['identifier', 'property_identifier', 'shorthand_property_identifier', 'private_property_identifier'];

const JAVASCRIPT: LanguageSpec = { grammar: 'javascript', definitions: JS_DEFINITIONS, identifiers: JS_IDENTIFIERS, elidedBody: '{ … }' };
const TYPESCRIPT: LanguageSpec = {
  grammar: 'typescript',
  definitions: TS_DEFINITIONS,
  identifiers: [...JS_IDENTIFIERS, 'type_identifier'],
  elidedBody: '{ … }',
};
const TSX: LanguageSpec = { ...TYPESCRIPT, grammar: 'tsx' };

/** Module-level `MAX_SIZE = 10`: Python's constants by convention. */
function pythonConstant(node: Node): SymbolKind | undefined {
  const left = node.childForFieldName('left');
  if (left === null || left.type !== 'identifier' || !/^[A-Z][A-Z0-9_]*$/.test(left.text)) return undefined;
  const statement = node.parent;
  const scope = statement?.parent;
  return statement?.type === 'expression_statement' && (scope?.type === 'module' || scope?.parent?.type === 'class_definition') ? 'constant' : undefined;
}

const PYTHON: LanguageSpec = {
  grammar: 'python',
  definitions: {
    function_definition: { kind: 'function' },
    class_definition: { kind: 'class' },
    assignment: { kind: pythonConstant, name: field('left'), body: () => null },
  },
  identifiers: ['identifier'],
  elidedBody: '...',
};

/** `type Foo struct {…}`: the kind is the kind of the type. */
function goTypeKind(node: Node): SymbolKind {
  const type = node.childForFieldName('type')?.type;
  return type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
}

/** `func (s *Server) Start()`: the receiver's type name, without pointer or type parameters. */
function goReceiver(node: Node): string | undefined {
  const receiver = node.childForFieldName('receiver');
  const match = receiver === null ? null : /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver.text);
  return match?.[1];
}

const GO: LanguageSpec = {
  grammar: 'go',
  definitions: {
    function_declaration: { kind: 'function' },
    method_declaration: { kind: 'method', container: goReceiver },
    type_spec: { kind: goTypeKind, body: () => null },
    type_alias: { kind: 'type', body: () => null },
    const_spec: { kind: 'constant', body: () => null },
  },
  identifiers: ['identifier', 'type_identifier', 'field_identifier', 'package_identifier'],
  elidedBody: '{ … }',
};

const RUST: LanguageSpec = {
  grammar: 'rust',
  definitions: {
    function_item: { kind: 'function' },
    function_signature_item: { kind: 'function' },
    struct_item: { kind: 'struct' },
    enum_item: { kind: 'enum' },
    union_item: { kind: 'union' },
    trait_item: { kind: 'trait' },
    type_item: { kind: 'type', body: () => null },
    const_item: { kind: 'constant', body: () => null },
    static_item: { kind: 'constant', body: () => null },
    mod_item: { kind: 'module' },
    macro_definition: { kind: 'macro', body: () => null },
    // `impl Foo { … }` defines nothing itself, but it is the container of its methods.
    impl_item: { kind: 'impl', name: (node) => rustImplType(node) },
  },
  identifiers: ['identifier', 'type_identifier', 'field_identifier'],
  elidedBody: '{ … }',
};

/** `impl<T> Display for Wrapper<T>` → `Wrapper`. */
function rustImplType(node: Node): Node | null {
  let type = node.childForFieldName('type');
  while (type !== null && (type.type === 'generic_type' || type.type === 'scoped_type_identifier')) {
    type = type.childForFieldName(type.type === 'generic_type' ? 'type' : 'name');
  }
  return type;
}

const JAVA: LanguageSpec = {
  grammar: 'java',
  definitions: {
    class_declaration: { kind: 'class' },
    interface_declaration: { kind: 'interface' },
    enum_declaration: { kind: 'enum' },
    record_declaration: { kind: 'class' },
    annotation_type_declaration: { kind: 'interface' },
    method_declaration: { kind: 'method' },
    constructor_declaration: { kind: 'method' },
  },
  identifiers: ['identifier', 'type_identifier'],
  elidedBody: '{ … }',
};

const CSHARP: LanguageSpec = {
  grammar: 'c_sharp',
  definitions: {
    class_declaration: { kind: 'class' },
    struct_declaration: { kind: 'struct' },
    record_declaration: { kind: 'class' },
    interface_declaration: { kind: 'interface' },
    enum_declaration: { kind: 'enum' },
    method_declaration: { kind: 'method' },
    constructor_declaration: { kind: 'method' },
    local_function_statement: { kind: 'function' },
    delegate_declaration: { kind: 'type', body: () => null },
    namespace_declaration: { kind: 'namespace' },
    file_scoped_namespace_declaration: { kind: 'namespace', body: () => null },
  },
  identifiers: ['identifier'],
  elidedBody: '{ … }',
};

/** `MAX = 3` directly in a class or module body. */
function rubyConstant(node: Node): SymbolKind | undefined {
  const left = node.childForFieldName('left');
  if (left?.type !== 'constant') return undefined;
  const scope = node.parent?.type === 'body_statement' ? node.parent.parent : node.parent;
  return scope === null || scope === undefined || ['program', 'class', 'module'].includes(scope.type) ? 'constant' : undefined;
}

const RUBY: LanguageSpec = {
  grammar: 'ruby',
  definitions: {
    class: { kind: 'class' },
    module: { kind: 'module' },
    method: { kind: 'method' },
    singleton_method: { kind: 'method' },
    assignment: { kind: rubyConstant, name: field('left'), body: () => null },
  },
  identifiers: ['identifier', 'constant'],
  elidedBody: '# …',
};

const PHP: LanguageSpec = {
  grammar: 'php',
  definitions: {
    function_definition: { kind: 'function' },
    method_declaration: { kind: 'method' },
    class_declaration: { kind: 'class' },
    interface_declaration: { kind: 'interface' },
    trait_declaration: { kind: 'trait' },
    enum_declaration: { kind: 'enum' },
    const_element: { kind: 'constant', name: (node) => node.namedChild(0), body: () => null },
    namespace_definition: { kind: 'namespace', name: (node) => node.childForFieldName('name') },
  },
  identifiers: ['name'],
  elidedBody: '{ … }',
};

/** Quarry's language names (libs/workspace `languageOf`) → the spec that indexes them. */
const SPECS: ReadonlyMap<string, LanguageSpec> = new Map([
  ['C', C],
  ['C++', CPP],
  ['CUDA', CPP],
  ['C#', CSHARP],
  ['Go', GO],
  ['Java', JAVA],
  ['JavaScript', JAVASCRIPT],
  ['PHP', PHP],
  ['Python', PYTHON],
  ['Ruby', RUBY],
  ['Rust', RUST],
  ['TypeScript', TYPESCRIPT],
]);

/** The spec for a file, or undefined when its language has no grammar (no symbols, not an error). */
export function languageSpecFor(language: string | undefined, path: string): LanguageSpec | undefined {
  if (language === undefined) return undefined;
  const spec = SPECS.get(language);
  // TypeScript's grammar refuses JSX; `.tsx` has a grammar of its own.
  if (spec === TYPESCRIPT && /\.tsx$/i.test(path)) return TSX;
  return spec;
}

/** The languages that get symbols. */
export const SYMBOL_LANGUAGES: readonly string[] = [...SPECS.keys()];

/** Every spec, one per grammar (TSX included): what an extractor loads. */
export const LANGUAGE_SPECS: readonly LanguageSpec[] = [...new Set([...SPECS.values(), TSX])];

/** Kinds that make a function inside them a method. */
export const METHOD_CONTAINERS: ReadonlySet<string> = new Set(['class', 'struct', 'interface', 'trait', 'impl', 'enum', 'union']);
