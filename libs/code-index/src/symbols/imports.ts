import type { SyntaxNode } from './syntax-node';

/**
 * One import (or re-export, include, `use`, `mod`) statement of a file, as written: what name
 * resolution across files needs. `module` is the specifier in the language's own syntax (`./a`,
 * `..pkg.mod`, `github.com/x/y`, `java.util`, `crate::a::b`, `linux/fs.h`); resolving it to files
 * is the graph's work, not the blob's.
 */
export interface ImportEntry {
  /** 1-based line of the statement. */
  line: number;
  module: string;
  /** `[name in the module, local name]`; `default` is a module's default export. */
  names: [imported: string, local: string][];
  /** The local name bound to the whole module (`import * as ns`, `import a.b as c`, Go's package name). */
  namespace?: string;
  /** Every exported name of the module comes in (`from m import *`, `export * from`, Go's `.` import). */
  wildcard?: boolean;
  /** The names are exported again from this file (`export { a as b } from './c'`, `export { a as b }`). */
  reexport?: boolean;
  /** `#include <…>` rather than `"…"`: searched in include directories, not beside the file. */
  system?: boolean;
}

/** Builds the entries of one statement node (line is filled in by the caller). */
export type ImportRule = (node: SyntaxNode) => Omit<ImportEntry, 'line'>[];

const unquote = (text: string) => text.replace(/^["'`<]|["'`>]$/g, '');

function stringChild(node: SyntaxNode | null): string | undefined {
  if (node === null) return undefined;
  return unquote(node.text);
}

// ── TypeScript / JavaScript ─────────────────────────────────────────────────────────────────

function specifiers(clause: SyntaxNode, type: 'import_specifier' | 'export_specifier'): [string, string][] {
  const names: [string, string][] = [];
  for (const specifier of clause.namedChildren) {
    if (specifier?.type !== type) continue;
    const name = specifier.childForFieldName('name')?.text;
    if (name === undefined) continue;
    names.push([name, specifier.childForFieldName('alias')?.text ?? name]);
  }
  return names;
}

const tsImport: ImportRule = (node) => {
  const source = stringChild(node.childForFieldName('source'));
  const clause = node.namedChildren.find((child) => child?.type === 'import_clause' || child?.type === 'import_require_clause') ?? undefined;
  if (clause?.type === 'import_require_clause') {
    // import x = require('./m')
    const local = clause.namedChildren.find((child) => child?.type === 'identifier')?.text;
    const module = stringChild(clause.childForFieldName('source'));
    return module === undefined ? [] : [{ module, names: [], ...(local === undefined ? {} : { namespace: local }) }];
  }
  if (source === undefined) return [];
  const entry: Omit<ImportEntry, 'line'> = { module: source, names: [] };
  for (const part of clause?.namedChildren ?? []) {
    if (part === null) continue;
    if (part.type === 'identifier') entry.names.push(['default', part.text]);
    else if (part.type === 'named_imports') entry.names.push(...specifiers(part, 'import_specifier'));
    else if (part.type === 'namespace_import') {
      const local = part.namedChildren.find((child) => child?.type === 'identifier')?.text;
      if (local !== undefined) entry.namespace = local;
    }
  }
  return [entry];
};

const tsExport: ImportRule = (node) => {
  const source = stringChild(node.childForFieldName('source'));
  const clause = node.namedChildren.find((child) => child?.type === 'export_clause') ?? undefined;
  if (source !== undefined) {
    const namespace = node.namedChildren.find((child) => child?.type === 'namespace_export');
    if (namespace) {
      const local = namespace.namedChildren.find((child) => child?.type === 'identifier' || child?.type === 'string')?.text;
      return [{ module: source, names: [], reexport: true, ...(local === undefined ? {} : { namespace: local }) }];
    }
    if (clause === undefined) return [{ module: source, names: [], reexport: true, wildcard: true }];
    return [{ module: source, names: specifiers(clause, 'export_specifier'), reexport: true }];
  }
  // Exports of this file's own names under other names: `export { a as b }`, `export default foo`.
  if (clause !== undefined) {
    const renamed = specifiers(clause, 'export_specifier').filter(([name, alias]) => name !== alias);
    return renamed.length === 0 ? [] : [{ module: '', names: renamed, reexport: true }];
  }
  if (!/^export\s+default\b/.test(node.text)) return [];
  const value = node.childForFieldName('value');
  const declared = node.childForFieldName('declaration')?.childForFieldName('name');
  const name = value?.type === 'identifier' ? value.text : declared?.text;
  return name === undefined ? [] : [{ module: '', names: [[name, 'default']], reexport: true }];
};

/**
 * `const x = require('m')`, `const { a, b: c } = require('m')` (CommonJS) and the same with
 * `await import('m')` (a dynamic import, as lazy-loading code writes it).
 */
const requireDeclarator: ImportRule = (node) => {
  let value = node.childForFieldName('value');
  if (value?.type === 'await_expression') value = value.namedChild(0);
  const callee = value?.type === 'call_expression' ? value.childForFieldName('function') : null;
  if (value === null || (callee?.text !== 'require' && callee?.type !== 'import')) return [];
  const module = stringChild(value.childForFieldName('arguments')?.namedChild(0) ?? null);
  if (module === undefined) return [];
  const name = node.childForFieldName('name');
  if (name?.type === 'identifier') return [{ module, names: [], namespace: name.text }];
  if (name?.type !== 'object_pattern') return [{ module, names: [] }];
  const names: [string, string][] = [];
  for (const property of name.namedChildren) {
    if (property?.type === 'shorthand_property_identifier_pattern') names.push([property.text, property.text]);
    else if (property?.type === 'pair_pattern') {
      const key = property.childForFieldName('key')?.text;
      const local = property.childForFieldName('value');
      if (key !== undefined && local?.type === 'identifier') names.push([key, local.text]);
    }
  }
  return [{ module, names }];
};

export const JS_IMPORTS: Readonly<Record<string, ImportRule>> = {
  import_statement: tsImport,
  export_statement: tsExport,
  variable_declarator: requireDeclarator,
};

// ── Python ──────────────────────────────────────────────────────────────────────────────────

const pythonImport: ImportRule = (node) => {
  const entries: Omit<ImportEntry, 'line'>[] = [];
  for (const name of node.childrenForFieldName('name')) {
    if (name === null) continue;
    if (name.type === 'aliased_import') {
      const module = name.childForFieldName('name')?.text;
      const alias = name.childForFieldName('alias')?.text;
      if (module !== undefined) entries.push({ module, names: [], ...(alias === undefined ? {} : { namespace: alias }) });
    } else {
      // `import a.b` binds `a`, through which `a.b.x` is reached.
      entries.push({ module: name.text, names: [], namespace: name.text.split('.')[0] });
    }
  }
  return entries;
};

const pythonFromImport: ImportRule = (node) => {
  const module = node.childForFieldName('module_name')?.text.replace(/\s+/g, '');
  if (module === undefined) return [];
  if (node.namedChildren.some((child) => child?.type === 'wildcard_import')) return [{ module, names: [], wildcard: true }];
  const names: [string, string][] = [];
  for (const name of node.childrenForFieldName('name')) {
    if (name === null) continue;
    if (name.type === 'aliased_import') {
      const imported = name.childForFieldName('name')?.text;
      const alias = name.childForFieldName('alias')?.text;
      if (imported !== undefined) names.push([imported, alias ?? imported]);
    } else names.push([name.text, name.text]);
  }
  return [{ module, names }];
};

export const PYTHON_IMPORTS: Readonly<Record<string, ImportRule>> = {
  import_statement: pythonImport,
  import_from_statement: pythonFromImport,
};

// ── Go ──────────────────────────────────────────────────────────────────────────────────────

const goImportSpec: ImportRule = (node) => {
  const module = stringChild(node.childForFieldName('path'));
  if (module === undefined) return [];
  const name = node.childForFieldName('name');
  if (name?.type === 'dot') return [{ module, names: [], wildcard: true }];
  if (name?.type === 'blank_identifier') return [{ module, names: [] }];
  // Without an alias the package's own name binds it; its last path segment is the usual guess.
  return [{ module, names: [], namespace: name?.text ?? goPackageGuess(module) }];
};

/** `gopkg.in/yaml.v3` → `yaml`, `github.com/a/b/v2` → `b`. */
function goPackageGuess(module: string): string {
  const segments = module.split('/');
  let last = segments.pop() ?? module;
  if (/^v\d+$/.test(last) && segments.length > 0) last = segments.pop()!;
  return last.replace(/\.v\d+$/, '').replace(/^go-/, '').replace(/[.-]/g, '_');
}

export const GO_IMPORTS: Readonly<Record<string, ImportRule>> = { import_spec: goImportSpec };

// ── Java ────────────────────────────────────────────────────────────────────────────────────

const javaImport: ImportRule = (node) => {
  const path = node.namedChildren.find((child) => child?.type === 'scoped_identifier' || child?.type === 'identifier')?.text;
  if (path === undefined) return [];
  if (node.namedChildren.some((child) => child?.type === 'asterisk')) return [{ module: path, names: [], wildcard: true }];
  const dot = path.lastIndexOf('.');
  if (dot === -1) return [{ module: '', names: [[path, path]] }];
  const name = path.slice(dot + 1);
  return [{ module: path.slice(0, dot), names: [[name, name]] }];
};

export const JAVA_IMPORTS: Readonly<Record<string, ImportRule>> = { import_declaration: javaImport };

// ── Rust ────────────────────────────────────────────────────────────────────────────────────

/** The entries of a `use` tree: `a::b::{c, d as e, f::*}` under a prefix. */
function rustUseTree(node: SyntaxNode, prefix: string, out: Omit<ImportEntry, 'line'>[]): void {
  const join = (a: string, b: string) => (a === '' ? b : `${a}::${b}`);
  switch (node.type) {
    case 'scoped_use_list': {
      const path = node.childForFieldName('path')?.text ?? '';
      const list = node.childForFieldName('list');
      for (const child of list?.namedChildren ?? []) if (child) rustUseTree(child, join(prefix, path), out);
      return;
    }
    case 'use_list':
      for (const child of node.namedChildren) if (child) rustUseTree(child, prefix, out);
      return;
    case 'use_as_clause': {
      const path = node.childForFieldName('path')?.text ?? '';
      const alias = node.childForFieldName('alias')?.text;
      const full = join(prefix, path);
      const split = full.lastIndexOf('::');
      const name = split === -1 ? full : full.slice(split + 2);
      out.push({ module: split === -1 ? '' : full.slice(0, split), names: [[name, alias ?? name]] });
      return;
    }
    case 'use_wildcard': {
      const path = node.namedChildren[0]?.text ?? '';
      out.push({ module: join(prefix, path), names: [], wildcard: true });
      return;
    }
    default: {
      // `a::b::c`, `self`, an identifier
      const full = join(prefix, node.text.replace(/\s+/g, ''));
      const split = full.lastIndexOf('::');
      const name = split === -1 ? full : full.slice(split + 2);
      if (name === 'self') {
        const module = full.slice(0, Math.max(0, split));
        const last = module.split('::').pop() ?? module;
        out.push({ module, names: [], namespace: last });
        return;
      }
      out.push({ module: split === -1 ? '' : full.slice(0, split), names: [[name, name]] });
    }
  }
}

const rustUse: ImportRule = (node) => {
  const argument = node.childForFieldName('argument');
  if (argument === null) return [];
  const out: Omit<ImportEntry, 'line'>[] = [];
  rustUseTree(argument, '', out);
  return out;
};

/** `mod inner;` (no body): the module lives in `inner.rs` or `inner/mod.rs` beside the file. */
const rustMod: ImportRule = (node) => {
  if (node.childForFieldName('body') !== null) return [];
  const name = node.childForFieldName('name')?.text;
  return name === undefined ? [] : [{ module: `self::${name}`, names: [], namespace: name }];
};

export const RUST_IMPORTS: Readonly<Record<string, ImportRule>> = { use_declaration: rustUse, mod_item: rustMod };

// ── C / C++ ─────────────────────────────────────────────────────────────────────────────────

const cInclude: ImportRule = (node) => {
  const path = node.childForFieldName('path');
  if (path === null) return [];
  return [{ module: unquote(path.text), names: [], ...(path.type === 'system_lib_string' ? { system: true } : {}) }];
};

export const C_IMPORTS: Readonly<Record<string, ImportRule>> = { preproc_include: cInclude };
