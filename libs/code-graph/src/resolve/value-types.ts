import type { Occurrence } from '@quarry/code-index';
import type { CodeGraph, GraphFile } from '../graph/code-graph';
import { CERTAIN, type Candidate } from './candidate';
import { CLASS_KINDS } from './class-hierarchy';
import { familyOf } from './language-family';

/**
 * What a value is, as far as the code says: instances of classes (`static`: the classes
 * themselves, as in `Foo.bar`), or a module (a namespace).
 */
export interface ValueType {
  classes: readonly number[];
  static?: boolean;
  modules?: readonly number[];
}

/** How an expression ends in a name: the name's value, a call of it, a member named by it. */
export interface ValueLink {
  name: string;
  kind: 'name' | 'call' | 'member';
}

/** What inferring types needs of name resolution (the resolver passes itself). */
export interface TypeHost {
  readonly graph: CodeGraph;
  /** One occurrence's candidates, best first. */
  resolve(file: GraphFile, name: string, occurrence: Occurrence): Candidate[];
  /** A bare name's candidates at a line: the file's scopes, imports, shared scopes. */
  bareCandidates(file: GraphFile, name: string, line: number): Candidate[];
  /** The module files a bare name of `file` is bound to (`import * as ns`, `import pkg`), if it is one. */
  moduleOf(file: GraphFile, name: string): number[] | undefined;
  /** What modules export under `name`: definitions, or modules passed on under that name. */
  exports(files: readonly number[], name: string): { ids: number[]; modules: number[] };
  /** Members named `name` declared by this class (not its bases). */
  classMembers(classId: number, name: string): number[];
  /** The classes a class names as its bases, resolved where its file says which. */
  bases(classId: number): number[];
  /** The class whose body holds `line` of `file`. */
  enclosingClassId(file: GraphFile, line: number): number | undefined;
  /** The occurrences of `name` in `file` that bind it (variables, parameters, fields). */
  bindings(file: GraphFile, name: string): readonly Occurrence[];
  /** Occurrences of `file` that are the last name of a returned expression. */
  returned(file: GraphFile): readonly { name: string; occurrence: Occurrence }[];
  /** The definition whose lines hold definition `id` (-1: none). */
  scopeOf(id: number): number;
  /** Whether a bare name at a line names something outside the tree (an outside module's import, a builtin). */
  outsideTree(file: GraphFile, name: string, line: number): boolean;
  /** The module-level variable an imported name is (`from .globals import current_app`), where it is bound. */
  moduleBinding(file: GraphFile, name: string): { file: GraphFile; binding: Occurrence } | undefined;
}

/** A value whose type is known to be no class of the tree (a builtin, an outside library's): members reached through it are not the tree's. */
const OUTSIDE: ValueType = Object.freeze({ classes: [] });

function isOutside(type: ValueType | undefined): boolean {
  return type !== undefined && type.classes.length === 0 && (type.modules === undefined || type.modules.length === 0);
}

/** How deep one inference may go (a chain of calls, a binding's value's binding…). */
const MAX_DEPTH = 12;
/** Wrappers whose first type argument is the type that matters (`Promise<Foo>`, `Optional[Foo]`). */
const WRAPPERS: ReadonlySet<string> = new Set(['Promise', 'PromiseLike', 'Awaited', 'Readonly', 'Required', 'Partial', 'NonNullable', 'Optional', 'Final', 'ClassVar', 'Annotated']);
/** Type texts that stand for the receiver's own type (`this`, `typing.Self`). */
const SELF_TYPES: ReadonlySet<string> = new Set(['this', 'Self']);
const NO_VALUE: ReadonlySet<string> = new Set(['null', 'undefined', 'void', 'never', 'None', 'any', 'unknown', 'object']);

/**
 * Types of values where the code states or implies them, for members reached through a value
 * (`s.min()`, `z.string().min()`, `self.db.find()`): a variable's or parameter's declared type,
 * else its value — `new Foo()` or `Foo()` (an instance), a call of a function (its declared
 * return type, else what its return statements return; `this`/`Self` is the receiver's type), a
 * member of a typed value (a field's declared type or value), a module's export — and `super()`
 * (the bases of the enclosing class). No flow analysis: a variable has the type of the binding
 * visible where it is used. Anything else is unknown (undefined), and the caller falls back to
 * the file's evidence.
 */
export class ValueTypes {
  private readonly active = new Set<string>();
  private readonly returns = new Map<string, ValueType | null>();
  private readonly contexts = new Map<number, number[]>();

  constructor(private readonly host: TypeHost) {}

  /**
   * The binding of `name` visible at `line` of `file`: of those whose scope holds the line, the
   * innermost; of several in one scope, the last one declared at or before the line. Fields
   * (members of a class) are not visible as bare names.
   */
  visibleBinding(file: GraphFile, name: string, line: number): Occurrence | undefined {
    let best: Occurrence | undefined;
    for (const binding of this.host.bindings(file, name)) {
      if (binding.field || binding.binds === undefined || line < binding.binds[0] || line > binding.binds[1]) continue;
      if (best === undefined) {
        best = binding;
        continue;
      }
      const span = binding.binds[1] - binding.binds[0];
      const bestSpan = best.binds![1] - best.binds![0];
      if (span < bestSpan || (span === bestSpan && binding.line <= line && (best.line > line || binding.line > best.line))) best = binding;
    }
    return best;
  }

  /** The type of the value a binding holds: its declared type when that names a class of the tree, else its value's. */
  typeOfBinding(file: GraphFile, binding: Occurrence, depth = 0): ValueType | undefined {
    if (depth > MAX_DEPTH) return undefined;
    // Declared with a type that is no class (`string`, `Foo[]`, a function type): nothing of the tree's is reached through it.
    if (binding.unnamedType) return OUTSIDE;
    return this.guard(`b${file.id}:${binding.line}:${binding.binds?.[0]}`, () => {
      if (binding.declaredType !== undefined) {
        const declared = this.typeOfTypeName(file, binding.declaredType, binding.line, depth + 1);
        if (declared !== undefined) return declared;
      }
      return binding.value === undefined ? undefined : this.typeOfLink(file, binding.value, binding.line, 'after', depth + 1);
    });
  }

  /** The type of a bare name's value at a line: a binding, a module, a class (itself), a constant's value. */
  typeOfName(file: GraphFile, name: string, line: number, depth = 0): ValueType | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const binding = this.visibleBinding(file, name, line);
    if (binding !== undefined) return this.typeOfBinding(file, binding, depth + 1);
    const modules = this.host.moduleOf(file, name);
    // A module outside the tree: what is reached through it is not the tree's.
    if (modules !== undefined) return modules.length === 0 ? OUTSIDE : { classes: [], modules };
    const ids = certain(this.host.bareCandidates(file, name, line)).map((candidate) => candidate.definition);
    if (ids.length > 0) return this.typeOfDefinitions(ids, depth + 1);
    // A module-level variable another module binds (`current_app: FlaskProxy = LocalProxy(…)`).
    const imported = this.host.moduleBinding(file, name);
    if (imported !== undefined) return this.typeOfBinding(imported.file, imported.binding, depth + 1);
    // A builtin (`object`, `dict`) or an outside library's name.
    return this.host.outsideTree(file, name, line) ? OUTSIDE : undefined;
  }

  /** The type of an expression that ends in `link` near `line` (`after`: a binding's value; `before`: a receiver). */
  typeOfLink(file: GraphFile, link: ValueLink, line: number, direction: 'before' | 'after', depth = 0): ValueType | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const occurrence = this.linked(file, link.name, line, direction, link.kind === 'call');
    return occurrence === undefined ? undefined : this.typeOfExpression(file, link.name, occurrence, link.kind, depth + 1);
  }

  /** The type of what `occurrence` (of `name`) is reached through: `this`, a named receiver, an expression. */
  typeOfReceiver(file: GraphFile, occurrence: Occurrence, depth = 0): ValueType | undefined {
    if (depth > MAX_DEPTH) return undefined;
    switch (occurrence.via) {
      case 'this': {
        const owner = this.host.enclosingClassId(file, occurrence.line);
        return owner === undefined ? undefined : { classes: [owner] };
      }
      case 'name':
        return occurrence.receiver === undefined ? undefined : this.typeOfName(file, occurrence.receiver, occurrence.line, depth + 1);
      case 'expression':
        return occurrence.through === undefined ? undefined : this.typeOfLink(file, { name: occurrence.through.name, kind: occurrence.through.call ? 'call' : 'member' }, occurrence.line, 'before', depth + 1);
      default:
        return undefined;
    }
  }

  /**
   * The candidates for a member `name` reached through a value of `type`: a module's export, or
   * the member of the classes (or their bases). Known classes without it: none (it is a field, or
   * comes from outside the tree).
   */
  membersOf(type: ValueType, name: string): Candidate[] {
    const found: Candidate[] = [];
    if (type.modules !== undefined && type.modules.length > 0) {
      for (const id of this.host.exports(type.modules, name).ids) found.push({ definition: id, score: CERTAIN, kind: 'import' });
    }
    for (const id of type.classes) {
      // The class's own member or its nearest base's: bases resolved as the class's file names
      // them (`class Blueprint(SansioBlueprint)`, an import alias).
      for (const owner of this.closure(id)) {
        const members = this.host.classMembers(owner, name);
        if (members.length === 0) continue;
        for (const member of members) found.push({ definition: member, score: CERTAIN - 1, kind: 'type' });
        break;
      }
    }
    return found;
  }

  /**
   * The classes an object literal's method belongs to by its context (no class around it): the
   * types the enclosing function's declared return type or the enclosing constant's declared type
   * names (`function methods(): Methods<ZodString> { return { min() {…} } }`, `const x: Api = { get() {…} }`),
   * those that declare a member of the method's name. TypeScript takes such a method for that member.
   */
  contextOf(id: number): number[] {
    let classes = this.contexts.get(id);
    if (classes === undefined) {
      classes = [];
      this.contexts.set(id, classes);
      const { file, definition } = this.host.graph.definition(id);
      const holder = definition.container === undefined && definition.kind === 'method' ? this.host.scopeOf(id) : -1;
      if (holder !== -1) {
        const { definition: around } = this.host.graph.definition(holder);
        const family = familyOf(file.language);
        const declared =
          around.kind === 'function' || around.kind === 'method'
            ? returnAnnotation(around.signature, around.name, family)
            : around.kind === 'constant'
              ? new RegExp(`(?<![\\w$])${escape(around.name)}\\s*:\\s*([^=]+)=`).exec(around.signature)?.[1]
              : undefined;
        for (const name of new Set(declared?.match(/[A-Za-z_$][\w$]*/g) ?? [])) {
          for (const type of this.typeNamed(file, name, around.line, 0)?.classes ?? []) {
            if (this.closure(type).some((owner) => this.host.classMembers(owner, definition.name).length > 0) && !classes.includes(type)) classes.push(type);
          }
        }
      }
    }
    return classes;
  }

  // ── inside ─────────────────────────────────────────────────────────────────────────────

  /** The type of the expression that ends at `occurrence` of `name`, which ends in it as `kind`. */
  private typeOfExpression(file: GraphFile, name: string, occurrence: Occurrence, kind: ValueLink['kind'], depth: number): ValueType | undefined {
    if (depth > MAX_DEPTH) return undefined;
    switch (kind) {
      case 'name':
        return this.typeOfName(file, name, occurrence.line, depth + 1);
      case 'call':
        return this.typeOfCall(file, name, occurrence, depth + 1);
      case 'member':
        return this.typeOfMember(file, this.typeOfReceiver(file, occurrence, depth + 1), name, depth + 1);
    }
  }

  /** What a call returns: an instance of a class called, a function's return type; `super()`: the bases. */
  private typeOfCall(file: GraphFile, name: string, occurrence: Occurrence, depth: number): ValueType | undefined {
    if (name === 'super' && occurrence.via === 'bare' && familyOf(file.language) === 'python') {
      const owner = this.host.enclosingClassId(file, occurrence.line);
      if (owner === undefined) return undefined;
      const bases = this.host.bases(owner);
      // Bases all outside the tree (or none: `object`): what `super()` reaches is not the tree's.
      return bases.length === 0 ? OUTSIDE : { classes: bases };
    }
    const callees = certain(this.host.resolve(file, name, occurrence)).map((candidate) => candidate.definition);
    if (callees.length === 0) {
      // A builtin or an outside library's function or class (`dict()`, `click.Group()`): an outside value.
      if (occurrence.via === 'bare' && this.host.outsideTree(file, name, occurrence.line)) return OUTSIDE;
      if (occurrence.via === 'name' && occurrence.receiver !== undefined && isOutside(this.typeOfName(file, occurrence.receiver, occurrence.line, depth + 1))) return OUTSIDE;
      return undefined;
    }
    let receiver: ValueType | undefined | null = null;
    const types: ValueType[] = [];
    for (const id of callees) {
      const { definition } = this.host.graph.definition(id);
      if (CLASS_KINDS.has(definition.kind)) types.push({ classes: [id] });
      else if (definition.kind === 'function' || definition.kind === 'method') {
        if (receiver === null) receiver = this.typeOfReceiver(file, occurrence, depth + 1);
        const returned = this.returnTypeOf(id, receiver, depth + 1);
        if (returned !== undefined) types.push(returned);
      } else if (definition.kind === 'constant') {
        // A constant that is another function (`export const stringType = ZodString.create`): what that returns.
        for (const target of this.functionsOf(id, depth + 1)) {
          const returned = this.returnTypeOf(target, undefined, depth + 1);
          if (returned !== undefined) types.push(returned);
        }
      }
    }
    return union(types);
  }

  /** What `x.name` is when `x` has `type`: a module's export or submodule, a class's field (its declared type or value), a nested class. */
  private typeOfMember(file: GraphFile, type: ValueType | undefined, name: string, depth: number): ValueType | undefined {
    if (type === undefined || depth > MAX_DEPTH) return undefined;
    if (isOutside(type)) return OUTSIDE;
    if (type.modules !== undefined && type.modules.length > 0) {
      const exported = this.host.exports(type.modules, name);
      if (exported.modules.length > 0) return { classes: [], modules: exported.modules };
      if (exported.ids.length > 0) return this.typeOfDefinitions(exported.ids, depth + 1);
      const submodules = this.submodules(type.modules, name);
      return submodules.length > 0 ? { classes: [], modules: submodules } : undefined;
    }
    const types: ValueType[] = [];
    for (const id of type.classes) {
      for (const owner of this.closure(id)) {
        const home = this.host.graph.definition(owner);
        const field = this.host.bindings(home.file, name).find((binding) => binding.field && binding.binds !== undefined && binding.binds[0] >= home.definition.startLine && binding.binds[1] <= home.definition.endLine);
        if (field !== undefined) {
          const fieldType = this.typeOfBinding(home.file, field, depth + 1);
          if (fieldType !== undefined) types.push(fieldType);
          break;
        }
        if (type.static) {
          const nested = this.host.classMembers(owner, name).filter((member) => CLASS_KINDS.has(this.host.graph.definition(member).definition.kind));
          if (nested.length > 0) {
            types.push({ classes: nested, static: true });
            break;
          }
        }
      }
    }
    void file;
    return union(types);
  }

  /** A function's return type: its declared one, else the types of what its return statements return. */
  private returnTypeOf(id: number, receiver: ValueType | undefined, depth: number): ValueType | undefined {
    const key = `${id}\0${receiver === undefined ? '' : `${receiver.static ? 's' : ''}${receiver.classes.join(',')}|${receiver.modules?.join(',') ?? ''}`}`;
    if (this.returns.has(key)) return this.returns.get(key) ?? undefined;
    const computed = this.guard(`r${key}`, () => {
      const { file, definition } = this.host.graph.definition(id);
      const annotation = returnAnnotation(definition.signature, definition.name, familyOf(file.language));
      if (annotation !== undefined) return this.typeFromText(file, annotation, definition.line, receiver, depth + 1);
      const types: ValueType[] = [];
      for (const { name, occurrence } of this.host.returned(file)) {
        if (occurrence.line < definition.startLine || occurrence.line > definition.endLine) continue;
        // Only its own returns, not a nested function's.
        if (this.host.graph.enclosing(file, occurrence.line) !== id) continue;
        const kind = occurrence.call ? 'call' : occurrence.via === 'bare' ? 'name' : 'member';
        const returned = this.typeOfExpression(file, name, occurrence, kind, depth + 1);
        if (returned !== undefined) types.push(returned);
      }
      return union(types);
    });
    this.returns.set(key, computed ?? null);
    return computed;
  }

  /** A name used as a value, by its definitions: a class (itself), a namespace, a constant's value. */
  private typeOfDefinitions(ids: readonly number[], depth: number): ValueType | undefined {
    const types: ValueType[] = [];
    for (const id of ids) {
      const { definition } = this.host.graph.definition(id);
      if (CLASS_KINDS.has(definition.kind) || definition.kind === 'namespace' || definition.kind === 'module') types.push({ classes: [id], static: true });
      else if (definition.kind === 'constant') {
        const value = this.valueOfDefinition(id, depth + 1);
        if (value !== undefined) types.push(value);
      }
    }
    return union(types);
  }

  /** The functions a constant is (`= f`, `= Foo.create`): its value's definitions, when they are functions. */
  private functionsOf(id: number, depth: number): number[] {
    const { file, definition } = this.host.graph.definition(id);
    const value = new RegExp(`(?<![\\w$])${escape(definition.name)}\\s*(?::[^=]*)?=\\s*([A-Za-z_$][\\w$]*(?:\\s*\\.\\s*[A-Za-z_$][\\w$]*)*)\\s*;?$`).exec(definition.signature);
    if (value === null || depth > MAX_DEPTH) return [];
    const parts = value[1].split(/\s*\.\s*/);
    const last = parts[parts.length - 1];
    const occurrence = this.linked(file, last, definition.line, 'after', false);
    if (occurrence === undefined) return [];
    return certain(this.host.resolve(file, last, occurrence))
      .map((candidate) => candidate.definition)
      .filter((target) => ['function', 'method'].includes(this.host.graph.definition(target).definition.kind));
  }

  /** A constant's type from its one-line head: `const x: Foo = …`, `X: Foo = …`, or its value `= new Foo(…)`, `= a.b(…)`, `= y`. */
  private valueOfDefinition(id: number, depth: number): ValueType | undefined {
    return this.guard(`d${id}`, () => {
      const { file, definition } = this.host.graph.definition(id);
      const head = definition.signature;
      const at = head.search(new RegExp(`(^|[^\\w$])${escape(definition.name)}\\s*[:=]`));
      if (at === -1) return undefined;
      let rest = head.slice(at + head.slice(at).indexOf(definition.name) + definition.name.length).trimStart();
      if (rest.startsWith(':')) {
        const equals = topLevelIndex(rest, '=');
        const declared = this.typeFromText(file, rest.slice(1, equals === -1 ? undefined : equals), definition.line, undefined, depth + 1);
        if (declared !== undefined) return declared;
        if (equals === -1) return undefined;
        rest = rest.slice(equals);
      }
      if (!rest.startsWith('=') || rest.startsWith('==') || rest.startsWith('=>')) return undefined;
      const value = /^=\s*(?:new\s+|await\s+)?([A-Za-z_$][\w$]*(?:\s*\??\.\s*[A-Za-z_$][\w$]*)*)\s*(?:<[^()]*>)?\s*(\()?/.exec(rest);
      if (value === null) return undefined;
      const parts = value[1].split(/\s*\??\.\s*/);
      const kind = value[2] !== undefined ? 'call' : parts.length > 1 ? 'member' : 'name';
      return this.typeOfLink(file, { name: parts[parts.length - 1], kind }, definition.line, 'after', depth + 1);
    });
  }

  /** A type written as text in `file` at `line` (an annotation): its main name, resolved; `this`/`Self` is `receiver`. */
  private typeFromText(file: GraphFile, text: string, line: number, receiver: ValueType | undefined, depth: number): ValueType | undefined {
    if (depth > MAX_DEPTH) return undefined;
    let type = text.trim().replace(/^(readonly|asserts)\s+/, '');
    const parts = splitTopLevel(type, '|').map((part) => part.trim()).filter((part) => part !== '' && !NO_VALUE.has(part) && !/^["'`\d]/.test(part.replace(/^["'](\w[\w.]*)["']$/, '$1')));
    if (parts.length === 0) return undefined;
    type = parts[0].replace(/^["'](.*)["']$/, '$1');
    let isStatic = false;
    const typeOf = /^typeof\s+(.+)$/.exec(type);
    if (typeOf !== null) {
      type = typeOf[1];
      isStatic = true;
    }
    const match = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(?:[<[]([\s\S]*)[>\]])?\s*(\[\])?$/.exec(type);
    if (match === null || match[3] !== undefined) return undefined;
    const path = match[1].split('.');
    const last = path[path.length - 1];
    if (SELF_TYPES.has(last)) return receiver;
    if ((WRAPPERS.has(last) || ((last === 'type' || last === 'Type') && familyOf(file.language) === 'python')) && match[2] !== undefined) {
      const inner = this.typeFromText(file, splitTopLevel(match[2], ',')[0], line, receiver, depth + 1);
      return inner !== undefined && (last === 'type' || last === 'Type') ? { ...inner, static: true } : inner;
    }
    let found: ValueType | undefined;
    if (path.length === 1) found = isStatic ? this.typeOfName(file, last, line, depth + 1) : this.typeNamed(file, last, line, depth + 1);
    else {
      // `ns.Foo`, `core.$ZodType`: a class a module exports.
      let holder = this.typeOfName(file, path[0], line, depth + 1);
      for (const segment of path.slice(1, -1)) holder = this.typeOfMember(file, holder, segment, depth + 1);
      if (holder?.modules !== undefined && holder.modules.length > 0) {
        const classes = this.host.exports(holder.modules, last).ids.filter((id) => CLASS_KINDS.has(this.host.graph.definition(id).definition.kind));
        found = classes.length > 0 ? { classes } : undefined;
      } else if (isOutside(holder)) found = OUTSIDE;
    }
    return found !== undefined && isStatic ? { ...found, static: true } : found;
  }

  /** A declared type's name as written near `line`: qualified (`ns.Foo`: through the module `ns`) or bare. */
  private typeOfTypeName(file: GraphFile, name: string, line: number, depth: number): ValueType | undefined {
    const written = this.linked(file, name, line, 'after', false);
    if (written?.via === 'name' && written.receiver !== undefined) {
      const holder = this.typeOfName(file, written.receiver, written.line, depth + 1);
      if (isOutside(holder)) return OUTSIDE;
      if (holder?.modules === undefined || holder.modules.length === 0) return undefined;
      const classes = this.host.exports(holder.modules, name).ids.filter((id) => CLASS_KINDS.has(this.host.graph.definition(id).definition.kind));
      return classes.length > 0 ? { classes } : undefined;
    }
    if (written?.via === 'expression') return undefined;
    return this.typeNamed(file, name, line, depth);
  }

  /** A type's name at a line of `file`: the classes it is bound to (instances), through type aliases. */
  private typeNamed(file: GraphFile, name: string, line: number, depth: number): ValueType | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const ids = certain(this.host.bareCandidates(file, name, line)).map((candidate) => candidate.definition);
    const classes = ids.filter((id) => CLASS_KINDS.has(this.host.graph.definition(id).definition.kind));
    if (classes.length > 0) return { classes };
    if (ids.length === 0) {
      // A type parameter of a function or class around the line (`<T extends ZodType>`) stands for its bound.
      const bound = this.typeParameterBound(file, name, line);
      if (bound !== undefined) return bound.text === undefined ? undefined : this.typeFromText(file, bound.text, bound.line, undefined, depth + 1);
      if (this.host.outsideTree(file, name, line)) return OUTSIDE;
    }
    // `type Foo = Bar<…>`: what it stands for.
    for (const id of ids) {
      const { definition, file: home } = this.host.graph.definition(id);
      if (definition.kind !== 'type') continue;
      const alias = new RegExp(`(?<![\\w$])${escape(definition.name)}\\s*(?:<[^=]*>)?\\s*=\\s*(.+?);?$`).exec(definition.signature);
      if (alias !== null) return this.guard(`t${id}`, () => this.typeFromText(home, alias[1], definition.line, undefined, depth + 1));
    }
    return undefined;
  }

  /** The bound of a type parameter `name` declared by a definition around `line` (`text` undefined: none written). */
  private typeParameterBound(file: GraphFile, name: string, line: number): { text?: string; line: number } | undefined {
    if (familyOf(file.language) !== 'typescript') return undefined;
    const pattern = new RegExp(`[<,]\\s*(?:const\\s+|in\\s+|out\\s+)*${escape(name)}(?![\\w$])\\s*(extends\\s+)?`);
    for (let current = this.host.graph.enclosing(file, line); current !== undefined && current !== -1; current = this.host.scopeOf(current)) {
      const { definition } = this.host.graph.definition(current);
      const match = pattern.exec(definition.signature);
      if (match === null) continue;
      if (match[1] === undefined) return { line: definition.line };
      const rest = definition.signature.slice(match.index + match[0].length);
      const end = Math.min(...[',', '>', '='].map((stop) => topLevelIndex(rest, stop)).filter((index) => index !== -1), rest.length);
      return { text: rest.slice(0, end), line: definition.line };
    }
    return undefined;
  }

  /** A class and its bases (resolved), nearest first. */
  closure(id: number): number[] {
    const order = [id];
    for (let index = 0; index < order.length && order.length < 16; index++) {
      for (const base of this.host.bases(order[index])) if (!order.includes(base)) order.push(base);
    }
    return order;
  }

  /** Python's submodules `name` of packages (`pkg/name.py`, `pkg/name/__init__.py`). */
  private submodules(files: readonly number[], name: string): number[] {
    const found: number[] = [];
    for (const id of files) {
      const file = this.host.graph.files[id];
      if (familyOf(file.language) !== 'python' || !file.path.endsWith('__init__.py')) continue;
      const prefix = file.directory === '' ? '' : `${file.directory}/`;
      for (const candidate of [`${prefix}${name}.py`, `${prefix}${name}/__init__.py`]) {
        const module = this.host.graph.file(candidate);
        if (module !== undefined) found.push(module.id);
      }
    }
    return found;
  }

  /**
   * The occurrence of `name` an expression ending in it has near `line`: on that line if any
   * (one called, for a call), else the nearest line before (`before`: a receiver ends before its
   * member, possibly lines above in a chain) or after (`after`: a binding's value starts after
   * its name, possibly on the next lines).
   */
  private linked(file: GraphFile, name: string, line: number, direction: 'before' | 'after', call: boolean): Occurrence | undefined {
    let best: Occurrence | undefined;
    for (const occurrence of this.host.graph.occurrences(file, name)) {
      if (occurrence.binds !== undefined) continue;
      const distance = direction === 'before' ? line - occurrence.line : occurrence.line - line;
      if (distance < 0 || distance > 40) continue;
      if (best === undefined) best = occurrence;
      else {
        const bestDistance = direction === 'before' ? line - best.line : best.line - line;
        if (distance < bestDistance || (distance === bestDistance && occurrence.call === call && best.call !== call)) best = occurrence;
      }
    }
    return best;
  }

  /** Runs `compute` unless the same question is already being answered further up (a cycle: unknown). */
  private guard<T>(key: string, compute: () => T | undefined): T | undefined {
    if (this.active.has(key)) return undefined;
    this.active.add(key);
    try {
      return compute();
    } finally {
      this.active.delete(key);
    }
  }
}

/** Candidates sure enough to infer from: the best, by a rule that is not a guess. */
function certain(candidates: readonly Candidate[]): Candidate[] {
  if (candidates.length === 0 || candidates[0].score === 0 || candidates[0].kind === 'member') return [];
  const top = candidates[0].score;
  return candidates.filter((candidate) => candidate.score === top);
}

function union(types: readonly ValueType[]): ValueType | undefined {
  if (types.length === 0) return undefined;
  if (types.length === 1) return types[0];
  const classes = new Set<number>();
  const modules = new Set<number>();
  for (const type of types) {
    type.classes.forEach((id) => classes.add(id));
    type.modules?.forEach((id) => modules.add(id));
  }
  return { classes: [...classes], ...(modules.size > 0 ? { modules: [...modules] } : {}), ...(types.every((type) => type.static) ? { static: true } : {}) };
}

/**
 * The declared return type in a one-line function head: TypeScript's `(…): T` (before `{`, `=>`
 * or `;`), Python's `(…) -> T:`. Undefined when none is written.
 */
export function returnAnnotation(signature: string, name: string, family: string): string | undefined {
  const at = signature.indexOf(name);
  const open = signature.indexOf('(', at === -1 ? 0 : at + name.length);
  if (open === -1) return undefined;
  let depth = 0;
  let close = -1;
  for (let index = open; index < signature.length; index++) {
    const character = signature[index];
    if (character === '(' || character === '[' || character === '{' || character === '<') depth++;
    else if ((character === ')' || character === ']' || character === '}' || (character === '>' && signature[index - 1] !== '=')) && --depth === 0) {
      close = index;
      break;
    }
  }
  if (close === -1) return undefined;
  const rest = signature.slice(close + 1);
  if (family === 'python') {
    const arrow = /^\s*->\s*(.+?)\s*:?\s*$/.exec(rest);
    return arrow === null ? undefined : arrow[1];
  }
  const colon = /^\s*:\s*(.+)$/.exec(rest);
  if (colon === null) return undefined;
  let type = colon[1];
  for (const end of ['=>', '{', ';']) {
    const index = topLevelIndex(type, end);
    if (index !== -1) type = type.slice(0, index);
  }
  return type.trim() === '' ? undefined : type.trim();
}

/** The first index of `needle` in `text` outside brackets and strings (-1: none). */
function topLevelIndex(text: string, needle: string): number {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (depth === 0 && text.startsWith(needle, index) && !(needle === '=' && (text[index + 1] === '>' || text[index + 1] === '='))) return index;
    if (character === '(' || character === '[' || character === '{' || (character === '<' && needle !== '<')) depth++;
    else if (character === ')' || character === ']' || character === '}' || (character === '>' && text[index - 1] !== '=')) depth = Math.max(0, depth - 1);
  }
  return -1;
}

function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '(' || character === '[' || character === '{' || character === '<') depth++;
    else if (character === ')' || character === ']' || character === '}' || (character === '>' && text[index - 1] !== '=')) depth = Math.max(0, depth - 1);
    else if (character === separator && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
