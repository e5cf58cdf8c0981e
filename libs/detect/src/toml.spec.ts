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

  it('skips multi-line strings and never throws on lines it cannot read', () => {
    const toml = parseToml('[project]\ndescription = """\nname = "wrong"\n"""\nname = "right"\n=broken\n[unclosed');
    expect(tomlString(toml, 'project', 'name')).toBe('right');
  });

  it('keeps # inside strings', () => {
    expect(tomlString(parseToml('a = "x # y"'), 'a')).toBe('x # y');
  });
});
