import { parseToml, tomlString, tomlStrings, tomlTable } from './toml';

describe('parseToml', () => {
  it('reads tables, dotted keys, arrays of tables, inline tables and multi-line arrays', () => {
    const toml = parseToml(`
# comment
[package]
name = "api" # trailing comment
rust-version = "1.75"

[dependencies]
axum = "0.7"
tokio = { version = "1", features = ["full"] }
"quoted.key" = 'literal'

[workspace]
members = [
  "crates/*",   # all crates
  "tools/cli",
]

[[bin]]
name = "server"
[[bin]]
name = "worker"

[tool.poetry.dependencies]
python = "^3.11"
tool.other = true
`);
    expect(tomlString(toml, 'package', 'name')).toBe('api');
    expect(tomlTable(toml, 'dependencies', 'tokio')).toEqual({ version: '1', features: ['full'] });
    expect(tomlString(toml, 'dependencies', 'quoted.key')).toBe('literal');
    expect(tomlStrings(toml, 'workspace', 'members')).toEqual(['crates/*', 'tools/cli']);
    expect(toml.bin).toEqual([{ name: 'server' }, { name: 'worker' }]);
    expect(tomlString(toml, 'tool', 'poetry', 'dependencies', 'python')).toBe('^3.11');
    expect(tomlTable(toml, 'tool', 'poetry', 'dependencies', 'tool')).toEqual({ other: true });
  });

  it('reads multi-line strings, dates and TOML 1.0 details the old hand-written reader skipped', () => {
    const toml = parseToml('[project]\ndescription = """\nname = "wrong"\n"""\nname = "right"\nreleased = 2024-01-02\n');
    expect(tomlString(toml, 'project', 'name')).toBe('right');
    expect(tomlString(toml, 'project', 'description')).toBe('name = "wrong"\n');
    expect(tomlTable(toml, 'project', 'released')).toBeUndefined();
  });

  it('throws on invalid TOML, so the scan can say which manifest is malformed', () => {
    expect(() => parseToml('[project]\nname = "x"\n=broken\n[unclosed')).toThrow();
  });

  it('keeps # inside strings', () => {
    expect(tomlString(parseToml('a = "x # y"'), 'a')).toBe('x # y');
  });
});
