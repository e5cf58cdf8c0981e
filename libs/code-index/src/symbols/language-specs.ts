import type { SyntaxNode } from './syntax-node';
import type { SymbolKind } from './symbol-types';
import type { GrammarName } from './grammars';
import { C_IMPORTS, GO_IMPORTS, ImportRule, JAVA_IMPORTS, JS_IMPORTS, PYTHON_IMPORTS, RUST_IMPORTS } from './imports';

/**
 * What a definition looks like in one grammar: the node type that defines it, where its name and
 * body are, and when it counts. The tables are data: supporting a construct is one row.
 */
/** A definition with no body (`body: NO_BODY`): its signature is the line of its name. */
export const NO_BODY = (): null => null;

export interface DefinitionRule {
  /** The kind, or a function of the node when one node type defines several kinds (Go `type_spec`). */
  kind: SymbolKind | 'impl' | ((node: SyntaxNode) => SymbolKind | undefined);
  /** The name node; default: the `name` field. */
  name?: (node: SyntaxNode) => SyntaxNode | null;
  /** The body field (dropped by `compress`, excluded from the signature); default `body`. */
  body?: string | ((node: SyntaxNode) => SyntaxNode | null);
  /** A container the node names itself (a Go method's receiver, C++ `Foo::bar`). */
  container?: (node: SyntaxNode) => string | undefined;
}

/** A member access node (`a.b`, `a->b`, `a::b`): the fields of its receiver and of the member's name. */
export interface MemberRule {
  receiver: string;
  member: string;
  /** The node is itself a call (Java's `a.b()`, Ruby's `a.b`). */
  call?: boolean;
  /** No receiver is written (an object literal's key): the member is reached through an unnamed value. */
  implicitReceiver?: boolean;
}

export interface LanguageSpec {
  grammar: GrammarName;
  definitions: Readonly<Record<string, DefinitionRule>>;
  /** Leaf node types that are names: what references are made of. */
  identifiers: readonly string[];
  /** What stands for a dropped body in `compress`. */
  elidedBody: string;
  /** Member accesses by node type: an occurrence's receiver. */
  members?: Readonly<Record<string, MemberRule>>;
  /** Calls by node type: the field holding what is called. */
  calls?: Readonly<Record<string, string>>;
  /** Leaf node types (`this`) and identifier texts (`self`) that name the enclosing class. */
  selfReceivers?: readonly string[];
  /** Import-like statements by node type. */
  imports?: Readonly<Record<string, ImportRule>>;
  /** Leaf types that name types, not values (TypeScript keeps the two apart: `interface X` and `const X`). */
  typeLeaves?: readonly string[];
  /** Block node types whose definitions are local to them (a function body, `{ … }`). */
  localScopes?: readonly string[];
  /** The file's package or namespace declaration (Go, Java), by node type. */
  packageDeclaration?: Readonly<Record<string, (node: SyntaxNode) => string | undefined>>;
  /**
   * Nodes that bind names that are not definitions (local and module variables, parameters), by
   * node type: a use of such a name in its scope is not a use of a definition of the same name,
   * and its declared type or value is what a member reached through it belongs to.
   */
  bindings?: Readonly<Record<string, BindingRule>>;
  /** Node types a binding is visible in (functions, blocks, the module), innermost first wins. */
  bindingScopes?: readonly string[];
  /**
   * Class bodies: a binding there is a member (a field, a property), reached through an instance
   * and not visible as a bare name to the methods nested in it.
   */
  memberScopes?: readonly string[];
  /** Expressions that stand for their only operand (`(x)`, `await x`, `x!`): looked through for an expression's last name. */
  transparent?: readonly string[];
  /**
   * What a function returns, by node type: `''` for a statement's operand (`return x`), a field
   * for an expression body (`(a) => new A(a)`, `lambda: x`; a block body is not an operand).
   */
  returns?: Readonly<Record<string, string>>;
}

/**
 * Where a binding node keeps its name, its declared type and its value: fields, or (name) `*`
 * for the node's identifier children without a field (`def f(a, b)`'s parameters), or a function
 * of the node (`self.client = …`: the attribute; `with x() as c`: the expression before `as`).
 */
export interface BindingRule {
  name: string | ((node: SyntaxNode) => SyntaxNode | null);
  type?: string;
  value?: string | ((node: SyntaxNode) => SyntaxNode | null);
  /** The binding is a member of the enclosing class (`constructor(private db: Db)`, `self.db = Db()`), not a local. */
  member?: (node: SyntaxNode) => boolean;
}

/** A constructor parameter with an accessibility modifier or `readonly` is also a property of the class. */
const parameterProperty = (node: SyntaxNode) => node.children.some((child) => child?.type === 'accessibility_modifier' || child?.type === 'readonly' || child?.type === 'override_modifier');

/** `self.name = …` inside a method: an attribute of the class. */
const selfAttribute = (node: SyntaxNode) => {
  const left = node.childForFieldName('left');
  return left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self';
};

const field = (name: string) => (node: SyntaxNode) => node.childForFieldName(name);

/** C and C++: a function's name sits at the bottom of a chain of declarators (`*f(int)`, `(*f)(void)`). */
function declaratorName(node: SyntaxNode): SyntaxNode | null {
  let current: SyntaxNode | null = node.childForFieldName('declarator');
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
function functionName(node: SyntaxNode): SyntaxNode | null {
  const declarator = node.childForFieldName('declarator');
  const type = node.childForFieldName('type');
  if (declarator?.type === 'parenthesized_declarator' && type?.type === 'type_identifier') return type;
  return declaratorName(node);
}

/** `Foo::bar` defined outside its class: `Foo` is the container. */
function qualifiedScope(node: SyntaxNode): string | undefined {
  let current: SyntaxNode | null = node.childForFieldName('declarator');
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
  type_definition: { kind: 'type', name: declaratorName, body: NO_BODY },
  preproc_def: { kind: 'macro', body: NO_BODY },
  preproc_function_def: { kind: 'macro', body: NO_BODY },
};

const C: LanguageSpec = {
  grammar: 'c',
  definitions: C_FAMILY,
  // Not `field_identifier`: C has no methods, so `sb->s_flags` names nothing a definition could be,
  // and struct member accesses are a third of a kernel file's names.
  identifiers: ['identifier', 'type_identifier'],
  elidedBody: '{ … }',
  calls: { call_expression: 'function' },
  imports: C_IMPORTS,
};

const CPP: LanguageSpec = {
  grammar: 'cpp',
  definitions: {
    ...C_FAMILY,
    class_specifier: withBody('class'),
    namespace_definition: { kind: (node) => (node.childForFieldName('name') === null ? undefined : 'namespace') },
    alias_declaration: { kind: 'type', body: NO_BODY },
  },
  identifiers: ['identifier', 'type_identifier', 'field_identifier', 'namespace_identifier'],
  elidedBody: '{ … }',
  members: {
    field_expression: { receiver: 'argument', member: 'field' },
    qualified_identifier: { receiver: 'scope', member: 'name' },
  },
  calls: { call_expression: 'function' },
  selfReceivers: ['this'],
  imports: C_IMPORTS,
};

/** `const add = (a, b) => …` and `let f = function () {}` define functions; other declarators do not. */
function functionValue(node: SyntaxNode): boolean {
  const value = node.childForFieldName('value');
  return value !== null && ['arrow_function', 'function_expression', 'function', 'generator_function'].includes(value.type);
}

/** Top-level `const NAME = …` is a constant; locals, `let` and `const x = require(…)` are not definitions. */
function topLevelConst(node: SyntaxNode): boolean {
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
  type_alias_declaration: { kind: 'type', body: NO_BODY },
  enum_declaration: { kind: 'enum' },
  internal_module: { kind: 'namespace' },
  module: { kind: (node) => (node.childForFieldName('name')?.type === 'identifier' ? 'namespace' : undefined) },
  method_signature: { kind: 'method' },
  // `static create = (…) => …`: a method written as a field.
  public_field_definition: {
    kind: (node) => (functionValue(node) ? 'method' : undefined),
    body: (node) => node.childForFieldName('value')?.childForFieldName('body') ?? null,
  },
  abstract_method_signature: { kind: 'method' },
  function_signature: { kind: 'function' },
};

// `{ a } = await import('m')` binds `a` from the module: a use of the module's `a`.
const JS_IDENTIFIERS = ['identifier', 'property_identifier', 'shorthand_property_identifier', 'private_property_identifier', 'shorthand_property_identifier_pattern'];

const JS_OCCURRENCES = {
  members: {
    member_expression: { receiver: 'object', member: 'property' },
    nested_type_identifier: { receiver: 'module', member: 'name' },
    // An object literal's key names a member of whatever type the object is given.
    pair: { receiver: '', member: 'key', implicitReceiver: true },
  },
  calls: { call_expression: 'function', new_expression: 'constructor' },
  selfReceivers: ['this'],
  imports: JS_IMPORTS,
  localScopes: ['statement_block'],
  bindings: {
    variable_declarator: { name: 'name', type: 'type', value: 'value' },
    required_parameter: { name: 'pattern', type: 'type', value: 'value', member: parameterProperty },
    optional_parameter: { name: 'pattern', type: 'type', value: 'value', member: parameterProperty },
    public_field_definition: { name: 'name', type: 'type', value: 'value' },
    property_signature: { name: 'name', type: 'type' },
    // JavaScript's parameters are bare identifiers, default values assignment patterns.
    formal_parameters: { name: '*' },
    assignment_pattern: { name: 'left', value: 'right' },
    rest_pattern: { name: '*' },
    arrow_function: { name: 'parameter' },
    for_in_statement: { name: 'left' },
    catch_clause: { name: 'parameter' },
    object_pattern: { name: '*' },
    pair_pattern: { name: 'value' },
    array_pattern: { name: '*' },
  },
  bindingScopes: [
    'program', 'statement_block', 'function_declaration', 'generator_function_declaration', 'function_expression', 'function', 'generator_function',
    'arrow_function', 'method_definition', 'for_in_statement', 'for_statement', 'catch_clause', 'class_body', 'interface_body', 'object_type',
  ],
  memberScopes: ['class_body', 'interface_body', 'object_type'],
  transparent: ['parenthesized_expression', 'await_expression', 'non_null_expression', 'as_expression', 'satisfies_expression'],
  returns: { return_statement: '', arrow_function: 'body' },
} satisfies Partial<LanguageSpec>;

const JAVASCRIPT: LanguageSpec = { grammar: 'javascript', definitions: JS_DEFINITIONS, identifiers: JS_IDENTIFIERS, elidedBody: '{ … }', ...JS_OCCURRENCES };
const TYPESCRIPT: LanguageSpec = {
  grammar: 'typescript',
  definitions: TS_DEFINITIONS,
  identifiers: [...JS_IDENTIFIERS, 'type_identifier'],
  elidedBody: '{ … }',
  ...JS_OCCURRENCES,
  typeLeaves: ['type_identifier'],
};
const TSX: LanguageSpec = { ...TYPESCRIPT, grammar: 'tsx' };

/** Module-level `MAX_SIZE = 10`: Python's constants by convention. */
function pythonConstant(node: SyntaxNode): SymbolKind | undefined {
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
    assignment: { kind: pythonConstant, name: field('left'), body: NO_BODY },
  },
  identifiers: ['identifier'],
  elidedBody: '...',
  members: { attribute: { receiver: 'object', member: 'attribute' } },
  calls: { call: 'function' },
  selfReceivers: ['self', 'cls'],
  imports: PYTHON_IMPORTS,
  bindings: {
    parameters: { name: '*' },
    lambda_parameters: { name: '*' },
    typed_parameter: { name: '*', type: 'type' },
    default_parameter: { name: 'name', value: 'value' },
    typed_default_parameter: { name: 'name', type: 'type', value: 'value' },
    list_splat_pattern: { name: '*' },
    dictionary_splat_pattern: { name: '*' },
    assignment: { name: (node) => (selfAttribute(node) ? node.childForFieldName('left')!.childForFieldName('attribute') : node.childForFieldName('left')), type: 'type', value: 'right', member: selfAttribute },
    pattern_list: { name: '*' },
    tuple_pattern: { name: '*' },
    for_statement: { name: 'left' },
    for_in_clause: { name: 'left' },
    named_expression: { name: 'name', value: 'value' },
    // `with app.test_client() as client`: the value is the expression before `as`.
    as_pattern_target: { name: '*', value: (node) => (node.parent?.parent?.type === 'with_item' ? node.parent.namedChild(0) : null) },
  },
  bindingScopes: ['module', 'function_definition', 'lambda', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression', 'class_definition'],
  memberScopes: ['class_definition'],
  transparent: ['parenthesized_expression', 'await'],
  returns: { return_statement: '', lambda: 'body' },
};

/** `type Foo struct {…}`: the kind is the kind of the type. */
function goTypeKind(node: SyntaxNode): SymbolKind {
  const type = node.childForFieldName('type')?.type;
  return type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
}

/** `func (s *Server) Start()`: the receiver's type name, without pointer or type parameters. */
function goReceiver(node: SyntaxNode): string | undefined {
  const receiver = node.childForFieldName('receiver');
  const match = receiver === null ? null : /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver.text);
  return match?.[1];
}

const GO: LanguageSpec = {
  grammar: 'go',
  definitions: {
    function_declaration: { kind: 'function' },
    method_declaration: { kind: 'method', container: goReceiver },
    type_spec: { kind: goTypeKind, body: NO_BODY },
    type_alias: { kind: 'type', body: NO_BODY },
    const_spec: { kind: 'constant', body: NO_BODY },
  },
  identifiers: ['identifier', 'type_identifier', 'field_identifier', 'package_identifier'],
  elidedBody: '{ … }',
  members: { selector_expression: { receiver: 'operand', member: 'field' }, qualified_type: { receiver: 'package', member: 'name' } },
  calls: { call_expression: 'function' },
  imports: GO_IMPORTS,
  localScopes: ['block'],
  packageDeclaration: { package_clause: (node) => node.namedChild(0)?.text },
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
    type_item: { kind: 'type', body: NO_BODY },
    const_item: { kind: 'constant', body: NO_BODY },
    static_item: { kind: 'constant', body: NO_BODY },
    mod_item: { kind: 'module' },
    macro_definition: { kind: 'macro', body: NO_BODY },
    // `impl Foo { … }` defines nothing itself, but it is the container of its methods.
    impl_item: { kind: 'impl', name: (node) => rustImplType(node) },
  },
  identifiers: ['identifier', 'type_identifier', 'field_identifier'],
  elidedBody: '{ … }',
  members: {
    field_expression: { receiver: 'value', member: 'field' },
    scoped_identifier: { receiver: 'path', member: 'name' },
    scoped_type_identifier: { receiver: 'path', member: 'name' },
  },
  calls: { call_expression: 'function' },
  selfReceivers: ['self'],
  imports: RUST_IMPORTS,
  localScopes: ['block'],
};

/** `impl<T> Display for Wrapper<T>` → `Wrapper`. */
function rustImplType(node: SyntaxNode): SyntaxNode | null {
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
  members: {
    method_invocation: { receiver: 'object', member: 'name', call: true },
    field_access: { receiver: 'object', member: 'field' },
  },
  calls: { object_creation_expression: 'type' },
  selfReceivers: ['this'],
  imports: JAVA_IMPORTS,
  localScopes: ['block', 'constructor_body'],
  packageDeclaration: { package_declaration: (node) => node.namedChild(0)?.text },
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
    delegate_declaration: { kind: 'type', body: NO_BODY },
    namespace_declaration: { kind: 'namespace' },
    file_scoped_namespace_declaration: { kind: 'namespace', body: NO_BODY },
  },
  identifiers: ['identifier'],
  elidedBody: '{ … }',
  members: { member_access_expression: { receiver: 'expression', member: 'name' } },
  calls: { invocation_expression: 'function' },
  selfReceivers: ['this'],
};

/** `MAX = 3` directly in a class or module body. */
function rubyConstant(node: SyntaxNode): SymbolKind | undefined {
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
    assignment: { kind: rubyConstant, name: field('left'), body: NO_BODY },
  },
  identifiers: ['identifier', 'constant'],
  elidedBody: '# …',
  members: { call: { receiver: 'receiver', member: 'method', call: true }, scope_resolution: { receiver: 'scope', member: 'name' } },
  selfReceivers: ['self'],
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
    const_element: { kind: 'constant', name: (node) => node.namedChild(0), body: NO_BODY },
    namespace_definition: { kind: 'namespace', name: (node) => node.childForFieldName('name') },
  },
  identifiers: ['name'],
  elidedBody: '{ … }',
  members: {
    member_call_expression: { receiver: 'object', member: 'name', call: true },
    member_access_expression: { receiver: 'object', member: 'name' },
    scoped_call_expression: { receiver: 'scope', member: 'name', call: true },
  },
  calls: { function_call_expression: 'function' },
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
