import { parse } from 'smol-toml';

/*
 * TOML manifests (Cargo.toml, pyproject.toml, Pipfile, rust-toolchain.toml, mise.toml,
 * gleam.toml) through smol-toml, a maintained TOML 1.0 parser, plus typed readers for the few
 * shapes detectors ask for. A manifest that is not valid TOML throws here; the scan turns that
 * into a warning on the service and treats the file as unreadable.
 */

export type TomlValue = string | number | boolean | Date | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export function parseToml(text: string): TomlTable {
  return parse(text) as TomlTable;
}

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Reads a nested table by path; undefined when any step is missing or not a table. */
export function tomlTable(table: TomlTable | undefined, ...keys: string[]): TomlTable | undefined {
  let current: unknown = table;
  for (const key of keys) {
    if (!isTable(current)) return undefined;
    current = current[key];
  }
  return isTable(current) ? current : undefined;
}

export function tomlString(table: TomlTable | undefined, ...keys: string[]): string | undefined {
  const value = tomlTable(table, ...keys.slice(0, -1))?.[keys[keys.length - 1]];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

export function tomlStrings(table: TomlTable | undefined, ...keys: string[]): string[] {
  const value = tomlTable(table, ...keys.slice(0, -1))?.[keys[keys.length - 1]];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
