/*
 * A tiny TOML reader for the subset manifests use (Cargo.toml, pyproject.toml, Pipfile,
 * rust-toolchain.toml, mise.toml): tables, arrays of tables, dotted and quoted keys, strings,
 * numbers, booleans, (multi-line) arrays and inline tables. Dates and multi-line strings are
 * read as raw text or skipped: detection never needs them. Never throws: a line it cannot read is
 * ignored, because a half-read manifest still beats no answer.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export function parseToml(text: string): TomlTable {
  const root: TomlTable = {};
  let current = root;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = stripComment(lines[i]).trim();
    if (!line) continue;
    if (line.startsWith('[[')) {
      current = appendTableArray(root, splitKey(line.slice(2, line.lastIndexOf(']]'))));
      continue;
    }
    if (line.startsWith('[')) {
      current = tableAt(root, splitKey(line.slice(1, line.lastIndexOf(']'))));
      continue;
    }
    const eq = findTopLevel(line, '=');
    if (eq < 0) continue;
    let raw = line.slice(eq + 1).trim();
    // Multi-line arrays and inline tables: keep reading until brackets balance.
    while (!balanced(raw) && i + 1 < lines.length) raw += ' ' + stripComment(lines[++i]).trim();
    if (raw.startsWith('"""') || raw.startsWith("'''")) i = skipMultilineString(lines, i, raw);
    const keys = splitKey(line.slice(0, eq));
    const value = parseValue(raw);
    if (value !== undefined) tableAt(current, keys.slice(0, -1))[keys[keys.length - 1]] = value;
  }
  return root;
}

function skipMultilineString(lines: string[], i: number, raw: string): number {
  const fence = raw.slice(0, 3);
  if (raw.length > 3 && raw.indexOf(fence, 3) >= 0) return i;
  while (i + 1 < lines.length && !lines[++i].includes(fence));
  return i;
}

function stripComment(line: string): string {
  const hash = findTopLevel(line, '#');
  return hash < 0 ? line : line.slice(0, hash);
}

/** Index of the first `char` outside quotes, or -1. */
function findTopLevel(text: string, char: string): number {
  let found = -1;
  walkUnquoted(text, (c, index) => {
    if (found < 0 && c === char) found = index;
  });
  return found;
}

function balanced(raw: string): boolean {
  return walkUnquoted(raw) <= 0;
}

/**
 * Walks `text` outside quoted strings, tracking `[`/`{` nesting, and calls `visit` for each
 * unquoted character that is not a bracket with the depth it sits at. Returns the final depth.
 */
function walkUnquoted(text: string, visit?: (char: string, index: number, depth: number) => void): number {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else visit?.(c, i, depth);
  }
  return depth;
}

function splitKey(raw: string): string[] {
  return splitTopLevel(raw, '.').map((part) => unquote(part.trim()));
}

function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  walkUnquoted(text, (char, index, depth) => {
    if (char === separator && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  });
  parts.push(text.slice(start));
  return parts;
}

function unquote(text: string): string {
  if (text.length >= 2 && (text[0] === '"' || text[0] === "'") && text[text.length - 1] === text[0]) {
    const inner = text.slice(1, -1);
    return text[0] === '"' ? inner.replace(/\\(["\\])/g, '$1').replace(/\\n/g, '\n').replace(/\\t/g, '\t') : inner;
  }
  return text;
}

function parseValue(raw: string): TomlValue | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  if (text.startsWith('"""') || text.startsWith("'''")) return text.slice(3).replace(/("""|''')$/, '');
  if (text[0] === '"' || text[0] === "'") return unquote(text);
  if (text.startsWith('[')) return splitItems(text.slice(1, text.lastIndexOf(']'))).map(parseValue).filter(isValue);
  if (text.startsWith('{')) return parseInlineTable(text.slice(1, text.lastIndexOf('}')));
  if (text === 'true' || text === 'false') return text === 'true';
  const number = Number(text.replace(/_/g, ''));
  return Number.isFinite(number) ? number : text;
}

function parseInlineTable(body: string): TomlTable {
  const table: TomlTable = {};
  for (const item of splitItems(body)) {
    const eq = findTopLevel(item, '=');
    if (eq < 0) continue;
    const keys = splitKey(item.slice(0, eq));
    const value = parseValue(item.slice(eq + 1));
    if (value !== undefined) tableAt(table, keys.slice(0, -1))[keys[keys.length - 1]] = value;
  }
  return table;
}

function splitItems(body: string): string[] {
  return splitTopLevel(body, ',').map((item) => item.trim()).filter(Boolean);
}

function isValue(value: TomlValue | undefined): value is TomlValue {
  return value !== undefined;
}

function tableAt(table: TomlTable, keys: string[]): TomlTable {
  let current = table;
  for (const key of keys) {
    let next = current[key];
    if (Array.isArray(next)) next = next[next.length - 1];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      next = {};
      current[key] = next;
    }
    current = next as TomlTable;
  }
  return current;
}

function appendTableArray(root: TomlTable, keys: string[]): TomlTable {
  const parent = tableAt(root, keys.slice(0, -1));
  const last = keys[keys.length - 1];
  const list = Array.isArray(parent[last]) ? (parent[last] as TomlValue[]) : [];
  const table: TomlTable = {};
  list.push(table);
  parent[last] = list;
  return table;
}

/** Reads a nested table by path; undefined when any step is missing or not a table. */
export function tomlTable(table: TomlTable | undefined, ...keys: string[]): TomlTable | undefined {
  let current: TomlValue | undefined = table;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = current[key];
  }
  return typeof current === 'object' && current !== null && !Array.isArray(current) ? current : undefined;
}

export function tomlString(table: TomlTable | undefined, ...keys: string[]): string | undefined {
  const parent = tomlTable(table, ...keys.slice(0, -1));
  const value = parent?.[keys[keys.length - 1]];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

export function tomlStrings(table: TomlTable | undefined, ...keys: string[]): string[] {
  const parent = tomlTable(table, ...keys.slice(0, -1));
  const value = parent?.[keys[keys.length - 1]];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
