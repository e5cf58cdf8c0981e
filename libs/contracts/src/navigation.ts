import { z } from 'zod';
import { resolvedSourceSchema, withRepository } from './source';

/*
 * Code navigation (issue 31): references, definitions, callers and callees, imports, the impact
 * of a change and the tests that cover it, outlines. @quarry/code-graph answers each query with
 * one of these shapes; the CLI, REST, MCP and mentions are thin layers over it. Paths are
 * root-relative (POSIX), lines and columns 1-based.
 */

export const NAVIGATION_MAX_DEPTH = 10;
export const NAVIGATION_DEFAULT_LIMIT = 1000;
export const NAVIGATION_MAX_LIMIT = 100_000;

/**
 * How a use was tied to its definition, most certain first: `type` is through a value whose type
 * the code declares or implies (`const s: Shop`, `new Shop()`, a function's declared return);
 * `member` is a guess from names and the file's evidence about a receiver of unknown type.
 */
export const RESOLUTION_KINDS = ['local', 'import', 'this', 'static', 'type', 'package', 'global', 'member'] as const;
export const resolutionKindSchema = z.enum(RESOLUTION_KINDS);

/** A definition with where it is. */
export const navigationSymbolSchema = z.object({
  path: z.string(),
  name: z.string(),
  kind: z.string(),
  /** The line of the name. */
  line: z.number().int(),
  startLine: z.number().int(),
  endLine: z.number().int(),
  signature: z.string(),
  container: z.string().optional(),
});
export type NavigationSymbol = z.infer<typeof navigationSymbolSchema>;

/** The definition a use sits in (absent at a file's top level). */
const enclosingSchema = z.object({ name: z.string(), kind: z.string(), line: z.number().int(), container: z.string().optional() });

export const referenceSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  /** The line as it is in the file (at most 400 characters). */
  text: z.string(),
  enclosing: enclosingSchema.optional(),
  /** The use calls it (`foo()`, `a.foo()`, `new Foo()`). */
  call: z.boolean(),
  resolution: resolutionKindSchema,
  /** Other definitions were as likely for this use: it is listed under each. */
  ambiguous: z.boolean(),
  /** Not a use: another declaration of the same member (an override, an implementation of the same interface member). */
  declaration: z.boolean().optional(),
});
export type Reference = z.infer<typeof referenceSchema>;

/** Where the query's name was looked for: the definition chosen, and the others that matched it, ranked. */
const targetSchema = z.object({
  symbol: navigationSymbolSchema,
  /** Other definitions the name (or line) matched, best first: the query was ambiguous when there are any. */
  alternatives: z.array(navigationSymbolSchema),
});

export const referencesResultSchema = targetSchema.extend({
  references: z.array(referenceSchema),
  /** Uses found before `limit` cut the list. */
  total: z.number().int(),
  /**
   * Of the uses found, those guessed (`resolution: 'member'`): reached through a value whose type
   * the code does not say (an untyped parameter such as a pytest fixture), tied to this definition
   * by the file's evidence. With `guessed: false` in the query they are left out of `references`
   * and `total`, and counted here.
   */
  guessed: z.number().int(),
  truncated: z.boolean(),
  files: z.number().int(),
});
export type ReferencesResult = z.infer<typeof referencesResultSchema>;

export const definitionResultSchema = z.object({
  /** Best first. */
  definitions: z.array(navigationSymbolSchema.extend({ resolution: resolutionKindSchema.optional() })),
  /** More than one definition is as likely (a name defined in several places, or a use that names several). */
  ambiguous: z.boolean(),
});
export type DefinitionResult = z.infer<typeof definitionResultSchema>;

export const callGraphEntrySchema = navigationSymbolSchema.extend({
  /** Hops from the query's definition (1: calls it directly, or is called by it). */
  distance: z.number().int(),
  /** The entry one hop nearer the query's definition it was reached from (index into `entries`; absent at distance 1). */
  from: z.number().int().optional(),
  /** Where the call (or use) is: in the caller, for callers; in the query's definition or the entry it was reached from, for callees. */
  sites: z.array(z.object({ path: z.string(), line: z.number().int(), call: z.boolean() })),
  ambiguous: z.boolean(),
});
export const callGraphResultSchema = targetSchema.extend({
  direction: z.enum(['callers', 'callees']),
  depth: z.number().int(),
  entries: z.array(callGraphEntrySchema),
  truncated: z.boolean(),
});
export type CallGraphEntry = z.infer<typeof callGraphEntrySchema>;
export type CallGraphResult = z.infer<typeof callGraphResultSchema>;

export const importEdgeSchema = z.object({
  path: z.string(),
  /** The line of the import statement (in the importing file). */
  line: z.number().int(),
  /** The specifier as written. */
  module: z.string(),
});
export const importsResultSchema = z.object({
  path: z.string(),
  direction: z.enum(['imports', 'importedBy']),
  files: z.array(importEdgeSchema),
  /** Imports of the file that name nothing in the tree (packages, the standard library). */
  external: z.array(z.object({ line: z.number().int(), module: z.string() })),
});
export type ImportsResult = z.infer<typeof importsResultSchema>;

export const outlineResultSchema = z.object({
  path: z.string(),
  language: z.string().optional(),
  definitions: z.array(navigationSymbolSchema.omit({ path: true }).extend({ depth: z.number().int() })),
});
export type OutlineResult = z.infer<typeof outlineResultSchema>;

export const impactResultSchema = z.object({
  /** Files the change touches (new paths; a deleted file by its old path). */
  changedFiles: z.array(z.object({ path: z.string(), status: z.enum(['modified', 'added', 'deleted', 'renamed']), oldPath: z.string().optional() })),
  /** Definitions whose lines the change touches. */
  changed: z.array(navigationSymbolSchema.extend({ change: z.enum(['modified', 'added', 'removed']) })),
  /** Definitions that use the changed ones, directly or through others, nearest and most used first. */
  dependents: z.array(navigationSymbolSchema.extend({ distance: z.number().int(), fanIn: z.number().int() })),
  /** Files that depend on the change (through uses or imports), nearest and most used first. */
  files: z.array(z.object({ path: z.string(), distance: z.number().int(), fanIn: z.number().int() })),
  /** Tests to run: test files (and their test functions) that reach the changed code, then those matched by name. */
  tests: z.array(
    z.object({
      path: z.string(),
      reason: z.enum(['calls', 'imports', 'changed', 'name']),
      distance: z.number().int(),
      functions: z.array(z.object({ name: z.string(), line: z.number().int() })),
    }),
  ),
  depth: z.number().int(),
  truncated: z.boolean(),
});
export type ImpactResult = z.infer<typeof impactResultSchema>;

/** What navigation answers: one query of a repository, read on its commit's code index. */
export const NAVIGATION_QUERIES = ['references', 'definition', 'callers', 'callees', 'imports', 'importedBy', 'outline', 'impact'] as const;
export type NavigationQuery = (typeof NAVIGATION_QUERIES)[number];
/** A diff larger than this is not a change to analyse but a tree to scan. */
export const NAVIGATION_MAX_DIFF_BYTES = 16 * 1024 * 1024;

/**
 * A navigation request (`POST /v1/navigation`, the MCP tools, `quarry refs`…): the repository,
 * the query, and what it is about — `symbol` (`Name`, `Class.method` or `path:line[:column]`) for
 * references, definition, callers and callees; `path` for imports, importedBy and outline; the
 * change for impact (`diff`, a unified diff; or, for a directory, `since` a ref, or `workingTree`).
 */
export const navigationInputSchema = withRepository({
  query: z.enum(NAVIGATION_QUERIES),
  symbol: z.string().min(1).max(1024).optional(),
  path: z.string().min(1).max(4096).optional(),
  depth: z.number().optional(),
  limit: z.number().int().min(1).max(NAVIGATION_MAX_LIMIT).optional(),
  /** references: false leaves out the uses guessed from a file's evidence (default true: listed, marked `resolution: 'member'`). */
  guessed: z.boolean().optional(),
  diff: z.string().max(NAVIGATION_MAX_DIFF_BYTES).optional(),
  since: z.string().min(1).max(256).optional(),
  workingTree: z.boolean().optional(),
});
export type NavigationInput = z.infer<typeof navigationInputSchema>;

/** Each query's answer, with the commit it was read on. */
const withSource = { source: resolvedSourceSchema };
export const navigationResultSchemas = {
  references: referencesResultSchema.extend(withSource),
  definition: definitionResultSchema.extend(withSource),
  callers: callGraphResultSchema.extend(withSource),
  callees: callGraphResultSchema.extend(withSource),
  imports: importsResultSchema.extend(withSource),
  importedBy: importsResultSchema.extend(withSource),
  outline: outlineResultSchema.extend(withSource),
  impact: impactResultSchema.extend(withSource),
} as const satisfies Record<NavigationQuery, z.ZodType>;
export type NavigationResult<Q extends NavigationQuery = NavigationQuery> = z.infer<(typeof navigationResultSchemas)[Q]>;
