import type { Occurrence } from '@quarry/code-index';
import type { GraphFile } from '../graph/code-graph';
import type { NavigationIndex } from '../navigation-index';
import { CLASS_KINDS, innermost } from '../resolve/class-hierarchy';
import type { Candidate, ResolutionKind } from '../resolve/name-resolver';

/** One use of a definition, before its line is read. */
export interface Use {
  file: GraphFile;
  /** The name as written there (an import alias differs from the definition's name). */
  name: string;
  occurrence: Occurrence;
  /** Its position among the uses of `name` on that line (to find its column in the line's text). */
  ordinal: number;
  resolution: ResolutionKind;
  ambiguous: boolean;
  /** Another declaration of the same member (an override or an implementation), not a use. */
  declaration?: boolean;
}

/** Rounds of alias discovery (`import { a as b }`, then `export { b as c }`…). */
const ALIAS_ROUNDS = 4;

/**
 * Every use of definition `id` in the tree: the files that use its name (or an alias an import
 * gives it) are read occurrence by occurrence, and an occurrence counts when the definition, or
 * a member of its family (an override or implementation of the same member, see `familyOf`), is
 * among its best candidates. A candidate found from names with no evidence (score 0) never counts.
 * A constructor's uses are its class's.
 */
export function findUses(index: NavigationIndex, id: number): Use[] {
  const { graph, names } = index;
  const searched = constructedClass(index, id) ?? id;
  const target = graph.definition(searched);
  const family = familyOf(index, searched);
  const uses: Use[] = [];
  for (const name of aliasesOf(index, target.definition.name)) {
    for (const fileId of graph.filesReferencing(name)) {
      const file = graph.files[fileId];
      let line = -1;
      let ordinal = 0;
      for (const occurrence of graph.occurrences(file, name)) {
        ordinal = occurrence.line === line ? ordinal + 1 : 0;
        line = occurrence.line;
        // A constructor is used where its class is called (`new Foo()`, `Foo()`), not where the class is named.
        if (searched !== id && !occurrence.call) continue;
        const decision = decide(names.resolve(file, name, occurrence), family);
        if (decision !== undefined) uses.push({ file, name, occurrence, ordinal, ...decision });
      }
    }
  }
  // The family's other declarations (overrides, implementations) are listed as TypeScript's and pyright's references list them.
  for (const member of family) {
    if (member === id || member === searched) continue;
    const { file, definition } = graph.definition(member);
    uses.push({ file, name: definition.name, occurrence: { line: definition.line, column: -1, call: false, via: 'bare' }, ordinal: 0, resolution: 'this', ambiguous: false, declaration: true });
  }
  return uses.sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0) || a.occurrence.line - b.occurrence.line || a.ordinal - b.ordinal);
}

/** Whether an occurrence with these candidates is a use of one of `targets`, and how. */
export function decide(candidates: readonly Candidate[], targets: number | ReadonlySet<number>): { resolution: ResolutionKind; ambiguous: boolean } | undefined {
  if (candidates.length === 0) return undefined;
  const top = candidates[0].score;
  if (top === 0) return undefined;
  const mine = candidates.find((candidate) => (typeof targets === 'number' ? candidate.definition === targets : targets.has(candidate.definition)));
  if (mine === undefined || mine.score < top) return undefined;
  const tied = candidates.filter((candidate) => candidate.score === top).length;
  return { resolution: mine.kind, ambiguous: tied > 1 && !(typeof targets !== 'number' && candidates.every((candidate) => candidate.score < top || targets.has(candidate.definition))) };
}

/** TypeScript's constructor (and Java's, named after the class); pyright lists `__init__`'s own uses, not the class's calls. */
const CONSTRUCTORS: ReadonlySet<string> = new Set(['constructor']);

/** A constructor (`constructor`, `__init__`, a Java constructor) stands for its class: `new Foo()` and `Foo()` use both. */
function constructedClass(index: NavigationIndex, id: number): number | undefined {
  const { file, definition } = index.graph.definition(id);
  if (definition.container === undefined) return undefined;
  const owner = innermost(definition.container);
  if (!CONSTRUCTORS.has(definition.name) && definition.name !== owner) return undefined;
  return index.names.localDefinitions(file, owner).find((candidate) => CLASS_KINDS.has(index.graph.definition(candidate).definition.kind));
}

/**
 * A member and the members it overrides, implements or is overridden by: the definitions of the
 * same name in classes that share an ancestor which declares that member (or one is the other's
 * ancestor). An ancestor outside the tree counts when its name says it is about the member
 * (`OnModuleDestroy` for `onModuleDestroy`), as framework interfaces are named.
 */
export function familyOf(index: NavigationIndex, id: number): Set<number> {
  const family = new Set([id]);
  const { definition, file } = index.graph.definition(id);
  if (file.language === 'Python') {
    // A Python name is one symbol however often its scope binds it (`@overload`s, a redefined class).
    const scope = index.names.scopeOf(id);
    for (const other of index.names.localDefinitions(file, definition.name)) {
      if (other !== id && index.names.scopeOf(other) === scope && index.graph.definition(other).definition.container === definition.container) family.add(other);
    }
    return family;
  }
  // Overrides and implementations are one member to TypeScript's language service.
  if (file.language !== 'TypeScript' && file.language !== 'JavaScript') return family;
  if (!(definition.kind === 'method' || definition.kind === 'function')) return family;
  const { names } = index;
  if (definition.container === undefined) {
    // An object literal's method is the member of the type its context declares, and of that member's family.
    for (const type of names.types.contextOf(id)) {
      for (const member of names.types.membersOf({ classes: [type] }, definition.name)) for (const related of familyOf(index, member.definition)) family.add(related);
    }
    return family;
  }
  const owner = names.enclosingClassId(file, definition.line);
  if (owner === undefined) return family;
  // Classes by definition, bases as each class's file names them: zod's v3 and v4 `ZodString` are two classes.
  const lineage = new Set(names.types.closure(owner));
  const externals = new Set([...lineage].flatMap((ancestor) => names.externalBases(ancestor)));
  const declares = (ancestor: number) => names.classMembers(ancestor, definition.name).length > 0;
  // An ancestor outside the tree counts when its name says it is about the member (`OnModuleDestroy` for `onModuleDestroy`).
  const aboutMember = (external: string) => external.toLowerCase().includes(definition.name.toLowerCase());
  for (const other of index.graph.definitionsNamed(definition.name)) {
    if (other === id) continue;
    const { definition: otherDefinition, file: otherFile } = index.graph.definition(other);
    if (otherDefinition.container === undefined) continue;
    const otherOwner = names.enclosingClassId(otherFile, otherDefinition.line);
    if (otherOwner === undefined) continue;
    const otherLineage = names.types.closure(otherOwner);
    if (
      lineage.has(otherOwner) ||
      otherLineage.includes(owner) ||
      otherLineage.some((ancestor) => lineage.has(ancestor) && declares(ancestor)) ||
      otherLineage.some((ancestor) => names.externalBases(ancestor).some((external) => externals.has(external) && aboutMember(external)))
    )
      family.add(other);
  }
  // Object literals' methods of a type in the lineage (`{ min() {…} }` returned as `Methods<ZodString>`).
  for (const other of index.graph.definitionsNamed(definition.name)) {
    if (family.has(other) || index.graph.definition(other).definition.container !== undefined) continue;
    if (names.types.contextOf(other).some((type) => names.types.membersOf({ classes: [type] }, definition.name).some((member) => family.has(member.definition)))) family.add(other);
  }
  return family;
}

interface AliasTable {
  /** Imported name → local names it is bound to somewhere. */
  locals: Map<string, Set<string>>;
  /** Names some file exports as its default. */
  defaults: Set<string>;
}

const aliasTables = new WeakMap<object, AliasTable>();

function aliasTable(index: NavigationIndex): AliasTable {
  let table = aliasTables.get(index.graph);
  if (table === undefined) {
    table = { locals: new Map(), defaults: new Set() };
    for (const file of index.graph.files) {
      for (const entry of file.imports) {
        for (const [imported, local] of entry.names) {
          if (local === 'default' && entry.module === '') table.defaults.add(imported);
          if (imported === local) continue;
          let set = table.locals.get(imported);
          if (set === undefined) table.locals.set(imported, (set = new Set()));
          set.add(local);
        }
      }
    }
    aliasTables.set(index.graph, table);
  }
  return table;
}

/** The definition's name and the local names imports give it elsewhere (resolution then keeps the right ones). */
function aliasesOf(index: NavigationIndex, name: string): string[] {
  const table = aliasTable(index);
  const names = new Set([name]);
  if (table.defaults.has(name)) names.add('default');
  let frontier = [...names];
  for (let round = 0; round < ALIAS_ROUNDS && frontier.length > 0; round++) {
    const next: string[] = [];
    for (const imported of frontier) {
      for (const local of table.locals.get(imported) ?? []) {
        if (names.has(local) || local === 'default') continue;
        names.add(local);
        next.push(local);
      }
    }
    frontier = next;
  }
  // `default` stood for default exports while aliases were gathered; a member named `default` keeps its name.
  if (name !== 'default') names.delete('default');
  return [...names];
}
