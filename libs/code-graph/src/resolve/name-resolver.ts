import type { ImportEntry, Occurrence } from '@quarry/code-index';
import type { CodeGraph, GraphFile } from '../graph/code-graph';
import { CLASS_KINDS, ClassHierarchy, basesOf, innermost, wordPattern } from './class-hierarchy';
import { SCOPE_RULES, familyOf, type LanguageFamily } from './language-family';
import type { ModuleResolver } from './module-resolver';
import { ValueTypes, type TypeHost } from './value-types';

import { CERTAIN, type Candidate } from './candidate';

export { CERTAIN, type Candidate, type ResolutionKind } from './candidate';

/** What an import binding of a file leads to. */
type Target = { kind: 'definitions'; ids: number[] } | { kind: 'module'; files: number[] } | { kind: 'external' } | { kind: 'unknown' };

const MAX_EXPORT_DEPTH = 6;
/** This many classes tied for a member use with no evidence about its receiver leave it unresolved. */
const WEAK_TIE = 3;
const FUNCTION_KINDS: ReadonlySet<string> = new Set(['function', 'method', 'macro']);

/**
 * Ties occurrences to definitions by each language's rules: a name defined in the file (in the
 * scope that holds the occurrence), bound by an import (through re-export chains, aliases and
 * default exports), reached through a module namespace (`ns.foo`), through `this`/`self` (the
 * enclosing class and its bases), through a class (`Foo.bar`), or visible without imports (Go's
 * and Java's packages, C's global scope, ranked by includes). A member reached through any other
 * value (`x.foo`) gets every class's `foo` as candidates, scored by the evidence the file gives
 * for each class (it is the class's file, names the class or a subclass, imports its file, calls
 * its receiver after it) — an answer from names alone, ranked, and said to be one.
 */
export class NameResolver implements TypeHost {
  private readonly memo = new Map<string, Candidate[]>();
  private readonly resolving = new Set<string>();
  private readonly bindingLists = new Map<string, Occurrence[]>();
  private readonly returnedLists = new Map<number, { name: string; occurrence: Occurrence }[]>();
  private readonly baseLists = new Map<number, { ids: number[]; external: string[] }>();
  readonly types = new ValueTypes(this);
  private readonly local = new Map<number, Map<string, number[]>>();
  private readonly scopes: Int32Array;
  private readonly importedFiles = new Map<number, Set<number>>();
  private readonly named = new Map<string, boolean>();
  private readonly reached = new Map<number, Set<number>>();
  private hierarchy?: ClassHierarchy;

  constructor(
    readonly graph: CodeGraph,
    readonly modules: ModuleResolver,
  ) {
    this.scopes = new Int32Array(graph.definitionCount).fill(-2);
  }

  /** The candidates of one occurrence of `name` in `file`, best first (empty: nothing in the tree). */
  resolve(file: GraphFile, name: string, occurrence: Pick<Occurrence, 'line' | 'via' | 'receiver' | 'type' | 'through'>): Candidate[] {
    const scope = this.graph.enclosing(file, occurrence.line);
    // TypeScript keeps types and values apart (`interface X` and `const X` coexist); an import names either.
    const onImportLine = file.imports.some((entry) => entry.line === occurrence.line);
    const space = file.language === 'TypeScript' && !onImportLine ? (occurrence.type ? 'type' : 'value') : 'any';
    // The binding (variable, parameter) of the name or of its receiver visible there decides too; a
    // receiver expression's type depends on the line it is on.
    const bound = occurrence.via === 'bare' ? name : occurrence.via === 'name' ? occurrence.receiver : undefined;
    const binding = bound === undefined ? undefined : this.types.visibleBinding(file, bound, occurrence.line);
    const through = occurrence.through === undefined ? '' : `${occurrence.through.call ? '()' : '.'}${occurrence.through.name}@${occurrence.line}`;
    // Uses on an import statement's line resolve by that statement, and a block's own definitions
    // (`const f = () => …` in a test's callback) are seen only in the block: the line is part of their key.
    const byLine = onImportLine || (occurrence.via === 'bare' && this.localDefinitions(file, name).some((id) => this.graph.definition(id).definition.local !== undefined));
    const key = `${file.id}\0${name}\0${occurrence.via}\0${occurrence.receiver ?? ''}\0${scope ?? -1}\0${space}\0${byLine ? occurrence.line : 0}\0${binding === undefined ? '' : `${binding.line}:${binding.binds![0]}`}\0${through}`;
    let found = this.memo.get(key);
    if (found === undefined) {
      // Inferring a receiver's type may ask about this very occurrence again (`x = x.next()`): unknown there.
      if (this.resolving.has(key)) return [];
      this.resolving.add(key);
      try {
        found = this.compute(file, name, occurrence, scope).sort((a, b) => b.score - a.score || a.definition - b.definition);
      } finally {
        this.resolving.delete(key);
      }
      if (space !== 'any') found = found.filter((candidate) => inSpace(this.graph.definition(candidate.definition).definition.kind, space));
      this.memo.set(key, dedupe(found));
      found = this.memo.get(key)!;
    }
    return found;
  }

  /**
   * The files `file` reaches through its imports: those it imports and, through them, the files
   * they re-export (TypeScript's `export … from`, a Python package's `__init__` imports) — where
   * a class imported from a package's entry point is defined.
   */
  reachable(file: GraphFile): Set<number> {
    let reached = this.reached.get(file.id);
    if (reached === undefined) {
      reached = new Set(this.imports(file));
      let frontier = [...reached];
      for (let depth = 0; depth < MAX_EXPORT_DEPTH && frontier.length > 0; depth++) {
        const next: number[] = [];
        for (const id of frontier) {
          const imported = this.graph.files[id];
          const family = familyOf(imported.language);
          const passesOn = family === 'typescript' ? (entry: ImportEntry) => entry.reexport === true : family === 'python' && imported.path.endsWith('__init__.py') ? () => true : undefined;
          if (passesOn === undefined) continue;
          for (const entry of imported.imports) {
            if (!passesOn(entry) || entry.module === '') continue;
            for (const target of this.modules.resolve(imported, entry)) {
              if (reached.has(target) || target === file.id) continue;
              reached.add(target);
              next.push(target);
            }
          }
        }
        frontier = next;
      }
      this.reached.set(file.id, reached);
    }
    return reached;
  }

  /** The files `file` imports (resolved; outside the tree: none). */
  imports(file: GraphFile): Set<number> {
    let files = this.importedFiles.get(file.id);
    if (files === undefined) {
      files = new Set();
      for (const entry of file.imports) for (const id of this.modules.resolve(file, entry)) if (id !== file.id) files.add(id);
      this.importedFiles.set(file.id, files);
    }
    return files;
  }

  classes(): ClassHierarchy {
    return (this.hierarchy ??= new ClassHierarchy(this.graph));
  }

  private compute(file: GraphFile, name: string, occurrence: Pick<Occurrence, 'line' | 'via' | 'receiver' | 'through'>, scope: number | undefined): Candidate[] {
    const family = familyOf(file.language);
    // An import statement's own names are what they import (`import { a as b }`: `a`; `use m::a`: `a`).
    for (const entry of file.imports) {
      if (entry.line !== occurrence.line || entry.module === '') continue;
      const binding = entry.names.find(([imported]) => imported === name);
      if (binding === undefined) continue;
      const target = this.bindingTarget(file, entry, name);
      return target.kind === 'definitions' ? target.ids.map((definition) => ({ definition, score: CERTAIN, kind: 'import' })) : [];
    }
    switch (occurrence.via) {
      case 'bare':
        return this.bare(file, family, name, occurrence.line, scope);
      case 'this': {
        const owner = this.enclosingClass(file, occurrence.line, scope);
        // The class is known: a member it does not define here is a field or comes from outside the tree, not another class's.
        if (owner !== undefined) return this.members(owner, name, file).map((definition) => ({ definition, score: CERTAIN, kind: 'this' }));
        // An object literal's method: `this` is the type its context declares.
        const method = this.enclosingMethod(file, occurrence.line);
        const context = method === undefined ? [] : this.types.contextOf(method);
        if (context.length > 0) return this.types.membersOf({ classes: context }, name).map((candidate) => ({ ...candidate, kind: 'this' }));
        return this.guessMember(file, name, undefined);
      }
      case 'name':
        return this.throughReceiver(file, family, name, occurrence.receiver!, occurrence.line, scope);
      default: {
        // What the receiver expression is, where the code says (`z.string().min()`, `super().save()`, `flask.views.View`).
        if (occurrence.through !== undefined) {
          const type = this.types.typeOfLink(file, { name: occurrence.through.name, kind: occurrence.through.call ? 'call' : 'member' }, occurrence.line, 'before');
          if (type !== undefined) return this.types.membersOf(type, name);
        }
        // Python reaches modules through attribute chains (`flask.views.MethodView`); TypeScript's chains are values.
        const throughModules = family === 'python' ? this.throughModulePath(file, name) : [];
        if (throughModules.length > 0) return throughModules;
        // A receiver the index names nothing of (`a[i].x`, an object literal's key): no evidence about it.
        return occurrence.through === undefined ? [] : this.guessMember(file, name, undefined);
      }
    }
  }

  /**
   * `pkg.sub.name`: a module-level definition reached through a dotted module path from a
   * namespace the file imports (`import flask` … `flask.views.MethodView`): one in a module of
   * that package.
   */
  private throughModulePath(file: GraphFile, name: string): Candidate[] {
    const packages: string[] = [];
    for (const entry of file.imports) {
      if (entry.namespace === undefined) continue;
      for (const id of this.modules.resolve(file, entry)) {
        const module = this.graph.files[id];
        if (/(^|\/)(__init__\.py|index\.[cm]?[jt]sx?|mod\.rs|lib\.rs)$/.test(module.path)) packages.push(module.directory);
      }
    }
    if (packages.length === 0) return [];
    return this.graph
      .definitionsNamed(name)
      .filter((id) => {
        const { definition, file: home } = this.graph.definition(id);
        return definition.container === undefined && definition.local === undefined && packages.some((directory) => home.path.startsWith(directory === '' ? '' : `${directory}/`));
      })
      .map((definition) => ({ definition, score: CERTAIN - 20, kind: 'import' as const }));
  }

  /** A bare name: the file's own scopes, then imports, then what the language shares between files. */
  private bare(file: GraphFile, family: LanguageFamily, name: string, line: number, scope: number | undefined): Candidate[] {
    const rules = SCOPE_RULES[family];
    const own = this.visibleInFile(file, name, line, rules.bareMembers);
    // A variable or parameter of a function or block binds the name there (`const schema = …` in a
    // test's callback, a pytest fixture's parameter), unless a definition nested deeper does: it is
    // a local, not a module-level definition or an import of that name. A `require` or dynamic
    // import is the import it makes.
    const local = line > 0 ? this.types.visibleBinding(file, name, line) : undefined;
    if (local !== undefined && local.binds![0] > 0 && !file.imports.some((entry) => entry.line === local.line)) {
      const span = local.binds![1] - local.binds![0];
      const deeper = own.filter(({ id, nested }) => nested && this.definitionSpan(id) <= span);
      return deeper.map(({ id }) => ({ definition: id, score: CERTAIN + 1, kind: 'local' }));
    }
    if (own.length > 0) return own.map(({ id, nested }) => ({ definition: id, score: CERTAIN + (nested ? 1 : 0), kind: 'local' }));

    let external = false;
    for (const entry of file.imports) {
      if (entry.reexport && familyOf(file.language) === 'typescript' && entry.module !== '' && entry.namespace === undefined && entry.names.every(([, local]) => local !== name)) continue;
      const binding = entry.names.find(([, local]) => local === name);
      if (binding !== undefined) {
        const target = this.bindingTarget(file, entry, binding[0]);
        if (target.kind === 'definitions') return target.ids.map((definition) => ({ definition, score: CERTAIN, kind: 'import' }));
        if (target.kind === 'external') external = true;
        else return [];
      } else if (entry.namespace === name) return [];
    }
    if (external) return [];
    for (const entry of file.imports) {
      if (!entry.wildcard || (entry.reexport && family === 'typescript')) continue;
      const ids = this.exported(this.modules.resolve(file, entry), name, 0, new Set());
      if (ids.length > 0) return ids.map((definition) => ({ definition, score: CERTAIN - 5, kind: 'import' }));
    }

    if (rules.sharedScope === 'package-directory' || rules.sharedScope === 'package') {
      const shared = this.graph.definitionsNamed(name).filter((id) => {
        const other = this.graph.definition(id);
        if (other.file.id === file.id || other.file.language !== file.language) return false;
        if (rules.sharedScope === 'package-directory' ? other.file.directory !== file.directory || other.file.package !== file.package : other.file.package !== file.package) return false;
        return other.definition.container === undefined || (rules.bareMembers && this.insideClassNamed(file, line, other.definition.container));
      });
      if (shared.length > 0) return shared.map((definition) => ({ definition, score: CERTAIN - 10, kind: 'package' }));
    }
    if (rules.sharedScope === 'global' || (family === 'typescript' && file.imports.length === 0 && file.language === 'JavaScript')) return this.global(file, name);
    return [];
  }

  /** Definitions of `name` in `file` that a use at `line` sees: module level, a scope holding the line, the enclosing class's members. */
  private visibleInFile(file: GraphFile, name: string, line: number, bareMembers: boolean): { id: number; nested: boolean }[] {
    const visible: { id: number; nested: boolean }[] = [];
    for (const id of this.localDefinitions(file, name)) {
      const { definition } = this.graph.definition(id);
      if (definition.local !== undefined) {
        if (line >= definition.local[0] && line <= definition.local[1]) visible.push({ id, nested: true });
        continue;
      }
      const scope = this.scopeOf(id);
      if (scope !== -1) {
        const holder = this.graph.definition(scope).definition;
        if (FUNCTION_KINDS.has(holder.kind)) {
          if (line >= holder.startLine && line <= holder.endLine) visible.push({ id, nested: true });
          continue;
        }
      }
      if (definition.container === undefined || !CLASS_CONTAINED.has(definition.kind)) visible.push({ id, nested: false });
      else if (bareMembers && this.insideClassNamed(file, line, definition.container)) visible.push({ id, nested: true });
    }
    return visible;
  }

  /** `ns.foo`, `mod.foo`, `Foo.bar`, or `value.foo`. */
  private throughReceiver(file: GraphFile, family: LanguageFamily, name: string, receiver: string, line: number, scope: number | undefined): Candidate[] {
    // A variable or parameter: its declared type, else its value's (`const s = new Shop()`, `s = z.string()`).
    const binding = this.types.visibleBinding(file, receiver, line);
    if (binding !== undefined && !file.imports.some((entry) => entry.line === binding.line)) {
      const type = this.types.typeOfBinding(file, binding);
      if (type !== undefined) return this.types.membersOf(type, name);
      // A declared type that names nothing we can follow (an alias of a union, a generic): not a guess's to fill.
      return binding.declaredType !== undefined ? [] : this.guessMember(file, name, receiver);
    }
    if (SCOPE_RULES[family].bareMembers === false || family === 'c') {
      for (const entry of file.imports) {
        let target: Target | undefined;
        if (entry.namespace === receiver) target = { kind: 'module', files: this.modules.resolve(file, entry) };
        else {
          const binding = entry.names.find(([, local]) => local === receiver);
          if (binding !== undefined) target = this.bindingTarget(file, entry, binding[0]);
        }
        if (target === undefined) continue;
        if (target.kind === 'module') {
          if (target.files.length === 0) return [];
          const ids = this.exported(target.files, name, 0, new Set());
          return ids.map((definition) => ({ definition, score: CERTAIN, kind: 'import' }));
        }
        if (target.kind === 'external') return [];
        if (target.kind === 'definitions') {
          // An imported constant is a value: its type's members (`export const app = new App()`).
          const type = target.ids.every((id) => this.graph.definition(id).definition.kind === 'constant') ? this.types.typeOfName(file, receiver, line) : undefined;
          return type !== undefined ? this.types.membersOf(type, name) : this.staticMembers(target.ids, name, file);
        }
        break;
      }
    }
    if (receiver !== name) {
      const holders = this.bare(file, family, receiver, line, scope).filter((candidate) => CLASS_KINDS.has(this.graph.definition(candidate.definition).definition.kind) || this.graph.definition(candidate.definition).definition.kind === 'namespace' || this.graph.definition(candidate.definition).definition.kind === 'module');
      if (holders.length > 0) {
        const members = this.staticMembers(holders.map((candidate) => candidate.definition), name, file);
        if (members.length > 0) return members;
      }
    }
    // A constant of the file (`const schema = z.object(…)`): its value's type.
    const type = this.types.typeOfName(file, receiver, line);
    if (type !== undefined && !type.static) return this.types.membersOf(type, name);
    return this.guessMember(file, name, receiver);
  }

  // ── what value types need (TypeHost) ─────────────────────────────────────────────────────

  bareCandidates(file: GraphFile, name: string, line: number): Candidate[] {
    return this.bare(file, familyOf(file.language), name, line, this.graph.enclosing(file, line));
  }

  moduleOf(file: GraphFile, name: string): number[] | undefined {
    const python = familyOf(file.language) === 'python';
    for (const entry of file.imports) {
      if (entry.module === '') continue;
      if (entry.namespace === name) {
        // `import a.b` binds `a`, the package; `import a.b as c` binds `c`, the module.
        if (python && entry.module !== name && entry.module.startsWith(`${name}.`)) return this.modules.resolveModule(file, name);
        return this.modules.resolve(file, entry);
      }
      const binding = entry.names.find(([, local]) => local === name);
      if (binding !== undefined) {
        const target = this.bindingTarget(file, entry, binding[0]);
        return target.kind === 'module' ? target.files : undefined;
      }
    }
    return undefined;
  }

  outsideTree(file: GraphFile, name: string, line: number): boolean {
    const family = familyOf(file.language);
    if (family !== 'typescript' && family !== 'python') return false;
    if (file.language === 'JavaScript' && file.imports.length === 0) return false;
    if (this.types.visibleBinding(file, name, line) !== undefined) return false;
    if (this.visibleInFile(file, name, line, false).length > 0) return false;
    let bound = false;
    for (const entry of file.imports) {
      if (entry.module === '') continue;
      if (entry.namespace === name) return (this.moduleOf(file, name) ?? []).length === 0;
      const binding = entry.names.find(([, local]) => local === name);
      if (binding !== undefined) {
        if (this.bindingTarget(file, entry, binding[0]).kind === 'external') return true;
        bound = true;
      } else if (entry.wildcard) bound = true;
    }
    // Imports are explicit: a name nothing binds is a builtin or a global of the platform.
    return !bound;
  }

  moduleBinding(file: GraphFile, name: string): { file: GraphFile; binding: Occurrence } | undefined {
    for (const entry of file.imports) {
      if (entry.module === '') continue;
      const binding = entry.names.find(([, local]) => local === name);
      if (binding !== undefined) return this.exportedBinding(this.modules.resolve(file, entry), binding[0], 0, new Set());
    }
    return undefined;
  }

  /** A module-level variable named `name` of these modules (or of those they pass it on from). */
  private exportedBinding(files: readonly number[], name: string, depth: number, seen: Set<number>): { file: GraphFile; binding: Occurrence } | undefined {
    for (const id of files) {
      if (seen.has(id) || depth > MAX_EXPORT_DEPTH) continue;
      seen.add(id);
      const file = this.graph.files[id];
      const binding = this.bindings(file, name).find((candidate) => !candidate.field && candidate.binds![0] === 0 && !file.imports.some((entry) => entry.line === candidate.line));
      if (binding !== undefined) return { file, binding };
      const family = familyOf(file.language);
      for (const entry of file.imports) {
        if (entry.module === '' || (family === 'typescript' && !entry.reexport)) continue;
        const passed = entry.names.find(([, local]) => local === name);
        const found = passed !== undefined ? this.exportedBinding(this.modules.resolve(file, entry), passed[0], depth + 1, seen) : entry.wildcard ? this.exportedBinding(this.modules.resolve(file, entry), name, depth + 1, seen) : undefined;
        if (found !== undefined) return found;
      }
    }
    return undefined;
  }

  exports(files: readonly number[], name: string): { ids: number[]; modules: number[] } {
    const modules: number[] = [];
    const ids = this.exported(files, name, 0, new Set(), modules);
    return { ids, modules: [...new Set(modules)] };
  }

  /** The innermost method (or function) holding a line. */
  private enclosingMethod(file: GraphFile, line: number): number | undefined {
    for (let current = this.graph.enclosing(file, line); current !== undefined && current !== -1; current = this.scopeOf(current)) {
      const kind = this.graph.definition(current).definition.kind;
      if (kind === 'method') return current;
      if (CLASS_KINDS.has(kind)) return undefined;
    }
    return undefined;
  }

  bases(classId: number): number[] {
    return this.resolvedBases(classId).ids;
  }

  /** The names a class's head gives as bases that name no class of the tree (a framework's `OnModuleDestroy`). */
  externalBases(classId: number): string[] {
    return this.resolvedBases(classId).external;
  }

  private resolvedBases(classId: number): { ids: number[]; external: string[] } {
    let bases = this.baseLists.get(classId);
    if (bases === undefined) {
      bases = { ids: [], external: [] };
      this.baseLists.set(classId, bases);
      const { file, definition } = this.graph.definition(classId);
      const family = familyOf(file.language);
      for (const base of basesOf(definition)) {
        // The name as the class's file binds it (an import alias: `class Blueprint(SansioBlueprint)`), else any class of that name.
        const bound = this.bare(file, family, base, 0, undefined).map((candidate) => candidate.definition);
        let found = bound.filter((id) => id !== classId && CLASS_KINDS.has(this.graph.definition(id).definition.kind));
        if (found.length === 0 && bound.length === 0) found = this.graph.definitionsNamed(base).filter((id) => id !== classId && CLASS_KINDS.has(this.graph.definition(id).definition.kind));
        if (found.length === 0) bases.external.push(base);
        for (const id of found) if (!bases.ids.includes(id)) bases.ids.push(id);
      }
    }
    return bases;
  }

  classMembers(classId: number, name: string): number[] {
    const { file, definition } = this.graph.definition(classId);
    const all = this.graph.definitionsNamed(name).filter((id) => {
      const container = this.graph.definition(id).definition.container;
      return container !== undefined && innermost(container) === definition.name;
    });
    if (all.length === 0) return all;
    // Its own file's; else its directory's (Go methods beside their type); else anywhere, when no other class has the name (C++ `Foo::bar`, Rust `impl`).
    const own = all.filter((id) => this.graph.definition(id).file.id === file.id);
    if (own.length > 0) return own;
    const beside = all.filter((id) => this.graph.definition(id).file.directory === file.directory);
    if (beside.length > 0) return beside;
    return this.graph.definitionsNamed(definition.name).filter((id) => CLASS_KINDS.has(this.graph.definition(id).definition.kind)).length === 1 ? all : [];
  }

  enclosingClassId(file: GraphFile, line: number): number | undefined {
    for (let current = this.graph.enclosing(file, line); current !== undefined && current !== -1; current = this.scopeOf(current)) {
      const { definition } = this.graph.definition(current);
      if (CLASS_KINDS.has(definition.kind)) return current;
      if (definition.container !== undefined && definition.kind === 'method') {
        const owner = innermost(definition.container);
        return this.localDefinitions(file, owner).find((id) => CLASS_KINDS.has(this.graph.definition(id).definition.kind)) ?? this.graph.definitionsNamed(owner).find((id) => CLASS_KINDS.has(this.graph.definition(id).definition.kind));
      }
    }
    return undefined;
  }

  bindings(file: GraphFile, name: string): readonly Occurrence[] {
    // Only these families' indexes record bindings: the others need no second look at the occurrences.
    const family = familyOf(file.language);
    if (family !== 'typescript' && family !== 'python') return [];
    const key = `${file.id}\0${name}`;
    let list = this.bindingLists.get(key);
    if (list === undefined) {
      list = this.graph.occurrences(file, name).filter((occurrence) => occurrence.binds !== undefined);
      this.bindingLists.set(key, list);
    }
    return list;
  }

  returned(file: GraphFile): readonly { name: string; occurrence: Occurrence }[] {
    let list = this.returnedLists.get(file.id);
    if (list === undefined) {
      list = [];
      for (const [name, occurrences] of this.graph.allOccurrences(file)) for (const occurrence of occurrences) if (occurrence.returned) list.push({ name, occurrence });
      this.returnedLists.set(file.id, list);
    }
    return list;
  }

  /** The lines a definition is visible on, as a span (module level: unbounded). */
  private definitionSpan(id: number): number {
    const { definition } = this.graph.definition(id);
    if (definition.local !== undefined) return definition.local[1] - definition.local[0];
    const scope = this.scopeOf(id);
    if (scope === -1) return Infinity;
    const holder = this.graph.definition(scope).definition;
    return holder.endLine - holder.startLine;
  }

  /** Members of classes the receiver names: known classes, so no guess when the member is not indexed (a field). */
  private staticMembers(holders: number[], name: string, file: GraphFile): Candidate[] {
    const found: Candidate[] = [];
    for (const holder of holders) {
      const { definition, file: home } = this.graph.definition(holder);
      for (const id of this.members(definition.name, name, home)) found.push({ definition: id, score: CERTAIN, kind: 'static' });
    }
    void file;
    return found;
  }

  /**
   * Members named `name` of class `owner` or, when it has none, of its nearest base that does;
   * of two classes with one name, the one nearest `near` (its file, then its directory).
   */
  members(owner: string, name: string, near?: GraphFile): number[] {
    const own = this.membersOf(owner, name, near);
    if (own.length > 0) return own;
    for (const base of this.classes().ancestors(owner)) {
      const inherited = this.membersOf(base, name, near);
      if (inherited.length > 0) return inherited;
    }
    return [];
  }

  private membersOf(owner: string, name: string, near?: GraphFile): number[] {
    const all = this.graph.definitionsNamed(name).filter((id) => {
      const container = this.graph.definition(id).definition.container;
      return container !== undefined && innermost(container) === owner;
    });
    if (near === undefined || all.length <= 1) return all;
    const sameFile = all.filter((id) => this.graph.definition(id).file.id === near.id);
    if (sameFile.length > 0) return sameFile;
    // Another file declaring the class too (Go methods beside their type, a class split by declaration merging) wins over a namesake elsewhere.
    const declaring = all.filter((id) => this.localDefinitions(near, owner).length === 0 || this.graph.definition(id).file.directory === near.directory);
    return declaring.length > 0 ? declaring : all;
  }

  /**
   * A member reached through a value of unknown type: every definition of it inside a class,
   * each scored by the file's evidence for that class — the class, a subclass or a base named in
   * the file, its file imported, the receiver named after it or declared with it (`const t = new
   * SymbolTable()`), the same file. Too little evidence scores 0 (a guess from names alone), and a
   * name the languages' own types have (`map`, `get`, `test`) needs more: most such uses are theirs.
   */
  private guessMember(file: GraphFile, name: string, receiver: string | undefined, line = 0): Candidate[] {
    const candidates: Candidate[] = [];
    const imported = this.reachable(file);
    const receiverKey = receiver === undefined ? undefined : receiver.toLowerCase().replace(/_/g, '');
    const receiverDefinitions = receiver === undefined ? [] : this.localDefinitions(file, receiver).map((id) => this.graph.definition(id).definition);
    const builtin = BUILTIN_MEMBERS.has(name);
    const pointed = new Set<number>();
    for (const id of this.graph.definitionsNamed(name)) {
      const { definition, file: home } = this.graph.definition(id);
      if (definition.container === undefined) continue;
      const owner = innermost(definition.container);
      const related = [owner, ...this.classes().descendants(owner)];
      // What the receiver says: its name, or its declaration (`const t = new SymbolTable()`).
      let receiverScore = 0;
      if (receiverKey !== undefined && receiverKey.length >= 3 && related.some((className) => className.toLowerCase().endsWith(receiverKey))) receiverScore += 4;
      if (receiverDefinitions.length > 0) receiverScore += receiverDefinitions.some((declared) => related.some((className) => wordPattern(className).test(declared.signature))) ? 6 : -4;
      let score = receiverScore;
      if (home.id === file.id) score += 3;
      if (related.some((className) => className !== name && this.namesClass(file, className, home))) score += 6;
      if (imported.has(home.id)) score += 4;
      if (home.directory === file.directory) score += 1;
      // A name the standard types have needs more; in Python (untyped fixtures and dicts everywhere) the receiver itself must point at the class.
      const enough = builtin ? score >= 8 && (receiverScore > 0 || familyOf(file.language) !== 'python') : score >= 4;
      candidates.push({ definition: id, score: enough ? score : 0, kind: 'member' });
      if (receiverScore > 0 || home.id === file.id) pointed.add(id);
    }
    // Many classes tied on what the file imports, and nothing about the receiver: the use is not
    // any one's (`z.string().min()` among a schema library's twenty `min`s).
    const top = Math.max(0, ...candidates.map((candidate) => candidate.score));
    const tied = candidates.filter((candidate) => candidate.score === top && top > 0);
    if (tied.length >= WEAK_TIE && !tied.some((candidate) => pointed.has(candidate.definition))) return candidates.map((candidate) => ({ ...candidate, score: 0 }));
    return candidates;
  }

  /**
   * Whether `file` names the class `className` and means the one of that name nearest `home`
   * (two classes may share a name, as zod's v3 and v4 `ZodObject` do): its own binding of the
   * name, resolved, is a class of `home`'s directory tree or the file names no other.
   */
  private namesClass(file: GraphFile, className: string, home: GraphFile): boolean {
    if (!this.graph.references(file, className) && !this.localDefinitions(file, className).length) return false;
    const key = `${file.id}\0${className}\0${home.id}`;
    let named = this.named.get(key);
    if (named === undefined) {
      const classes = this.graph.definitionsNamed(className).filter((id) => CLASS_KINDS.has(this.graph.definition(id).definition.kind));
      if (classes.length <= 1) named = true;
      else {
        const bound = this.bare(file, familyOf(file.language), className, 0, undefined).map((candidate) => candidate.definition);
        // Bound to a definition of that name: it must be the candidate's (same file, or the class the member's file defines).
        named = bound.length === 0 || bound.some((id) => this.graph.definition(id).file.id === home.id || this.localDefinitions(home, className).includes(id));
      }
      this.named.set(key, named);
    }
    return named;
  }

  /** C's global scope: every non-member definition of the name, ranked by how the file reaches it. */
  private global(file: GraphFile, name: string): Candidate[] {
    const included = this.imports(file);
    const candidates: Candidate[] = [];
    for (const id of this.graph.definitionsNamed(name)) {
      const { definition, file: home } = this.graph.definition(id);
      if (definition.container !== undefined && CLASS_CONTAINED.has(definition.kind)) continue;
      const header = /\.(h|hh|hpp|hxx|inc)$/i.test(home.path);
      const isStatic = /^static\b/.test(definition.signature) || /\bstatic\b/.test(definition.signature.split('(')[0]);
      // A static definition of another .c file is invisible here.
      if (isStatic && !header) continue;
      let score = 10;
      if (included.has(home.id)) score += 30;
      else if (header) score += 15;
      if (home.directory === file.directory) score += 5;
      candidates.push({ definition: id, score, kind: 'global' });
    }
    return candidates;
  }

  /** What the name `imported` of an import entry of `file` is. */
  private bindingTarget(file: GraphFile, entry: ImportEntry, imported: string): Target {
    const files = this.modules.resolve(file, entry);
    if (files.length === 0) return { kind: 'external' };
    const namespaces: number[] = [];
    const ids = this.exported(files, imported, 0, new Set(), namespaces);
    if (ids.length > 0) return { kind: 'definitions', ids };
    // A module passed on under a name (`import * as z from './x'; export { z }`, `export * as z from './x'`).
    if (namespaces.length > 0) return { kind: 'module', files: [...new Set(namespaces)] };
    const family = familyOf(file.language);
    if (family === 'python') {
      const submodule = this.modules.resolveModule(file, entry.module.endsWith('.') ? entry.module + imported : `${entry.module}.${imported}`);
      if (submodule.length > 0) return { kind: 'module', files: submodule };
    }
    if (family === 'rust') {
      const submodule = this.modules.resolveModule(file, entry.module === '' ? imported : `${entry.module}::${imported}`);
      if (submodule.length > 0 && submodule.some((id) => !files.includes(id))) return { kind: 'module', files: submodule };
    }
    if (family === 'typescript' && imported === 'default') return { kind: 'module', files };
    return { kind: 'unknown' };
  }

  /**
   * Top-level definitions named `name` that `files` export, through re-exports. A module exported
   * under that name (a namespace import passed on, `export * as name from`) adds its files to
   * `namespaces` when given.
   */
  private exported(files: readonly number[], name: string, depth: number, seen: Set<number>, namespaces?: number[]): number[] {
    const found: number[] = [];
    for (const fileId of files) {
      if (seen.has(fileId)) continue;
      seen.add(fileId);
      const file = this.graph.files[fileId];
      const family = familyOf(file.language);
      const own = this.localDefinitions(file, name).filter((id) => {
        const definition = this.graph.definition(id).definition;
        if (definition.local !== undefined) return false;
        if (this.scopeOf(id) !== -1 && FUNCTION_KINDS.has(this.graph.definition(this.scopeOf(id)).definition.kind)) return false;
        return definition.container === undefined || !CLASS_CONTAINED.has(definition.kind) || family === 'java';
      });
      if (own.length > 0) {
        found.push(...own);
        continue;
      }
      if (depth >= MAX_EXPORT_DEPTH) continue;
      for (const entry of file.imports) {
        if (family !== 'typescript' && family !== 'python' && family !== 'rust') continue;
        // A namespace binding of the name: `export * as name from`, or an `import * as name` that the
        // file exports (`export { name }`: a file's own names exported as they are are not in its
        // rows, but an importer asking the module for `name` says the module exports it).
        if (namespaces !== undefined && entry.namespace === name && entry.module !== '') {
          namespaces.push(...this.modules.resolve(file, entry));
          continue;
        }
        // TypeScript re-exports only what it says it does; Python and Rust modules export what they import.
        if (family === 'typescript' && !entry.reexport) continue;
        const binding = entry.names.find(([, local]) => local === name);
        if (binding !== undefined) {
          if (entry.module === '' && family === 'typescript') {
            found.push(...this.exported([file.id], binding[0], depth + 1, new Set(), namespaces));
            continue;
          }
          const target = this.modules.resolve(file, entry);
          found.push(...this.exported(target, binding[0], depth + 1, seen, namespaces));
        } else if (entry.wildcard) {
          found.push(...this.exported(this.modules.resolve(file, entry), name, depth + 1, seen, namespaces));
        }
      }
    }
    return found;
  }

  localDefinitions(file: GraphFile, name: string): number[] {
    let byName = this.local.get(file.id);
    if (byName === undefined) {
      byName = new Map();
      file.definitions.forEach((definition, index) => {
        const list = byName!.get(definition.name);
        if (list === undefined) byName!.set(definition.name, [file.firstDefinition + index]);
        else list.push(file.firstDefinition + index);
      });
      this.local.set(file.id, byName);
    }
    return byName.get(name) ?? [];
  }

  /** The definition whose lines hold definition `id` (-1: none). */
  scopeOf(id: number): number {
    if (this.scopes[id] === -2) {
      const { file, definition } = this.graph.definition(id);
      this.scopes[id] = this.graph.enclosing(file, definition.startLine, { except: id, within: definition }) ?? -1;
    }
    return this.scopes[id];
  }

  /** The class a line of `file` is in: a class-like definition holding it, or the container of the method holding it. */
  enclosingClass(file: GraphFile, line: number, scope: number | undefined): string | undefined {
    for (let current = scope; current !== undefined && current !== -1; current = this.scopeOf(current)) {
      const { definition } = this.graph.definition(current);
      if (CLASS_KINDS.has(definition.kind)) return definition.name;
      if (definition.container !== undefined && definition.kind === 'method') return innermost(definition.container);
    }
    return undefined;
  }

  private insideClassNamed(file: GraphFile, line: number, container: string): boolean {
    return this.enclosingClass(file, line, this.graph.enclosing(file, line)) === innermost(container);
  }
}

/**
 * Member names the languages' standard types have (JavaScript's arrays, strings, maps, promises,
 * regular expressions; Python's dicts, lists, strings; Go's and Java's common ones): a use of one
 * through a value of unknown type needs more evidence to be tied to a class of the tree.
 */
const BUILTIN_MEMBERS: ReadonlySet<string> = new Set(
  (
    'map filter reduce forEach find findIndex some every includes indexOf push pop shift unshift slice splice concat join sort reverse flat flatMap fill keys values entries ' +
    'get set has delete clear add size length then catch finally test exec match matchAll replace replaceAll split trim trimStart trimEnd startsWith endsWith padStart padEnd ' +
    'toString valueOf toJSON toLowerCase toUpperCase charAt charCodeAt at next return throw call apply bind emit on once off write end close read open send ' +
    'append extend insert remove index count copy update items setdefault popitem format strip lstrip rstrip lower upper encode decode ' +
    'equals hashCode compareTo iterator stream contains put isEmpty String Error Close Read Write Len'
  ).split(' '),
);

/** Kinds that, with a container, are members rather than module-level names. */
const CLASS_CONTAINED: ReadonlySet<string> = new Set(['method', 'function', 'constant', 'type', 'macro']);

const TYPE_ONLY: ReadonlySet<string> = new Set(['interface', 'type']);
const BOTH_SPACES: ReadonlySet<string> = new Set(['class', 'enum', 'namespace', 'module']);

function inSpace(kind: string, space: 'type' | 'value'): boolean {
  if (BOTH_SPACES.has(kind)) return true;
  return space === 'type' ? TYPE_ONLY.has(kind) : !TYPE_ONLY.has(kind);
}

function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<number>();
  return candidates.filter((candidate) => (seen.has(candidate.definition) ? false : (seen.add(candidate.definition), true)));
}
