import { detectFixture, detectOne, removeFixtures } from '../testing/fixture';
import { parseGoMod } from './go';

afterAll(removeFixtures);

const goMod = (requires: string[] = []) => `module github.com/acme/api/v2\n\ngo 1.22\n\nrequire (\n${requires.map((r) => `\t${r} v1.0.0\n`).join('')})\n`;

describe('Go', () => {
  it('go.mod: module name, go directive, main package at the root', async () => {
    const build = await detectOne({ 'go.mod': goMod(), 'main.go': 'package main' });
    expect(build.metadata).toMatchObject({ project_name: 'api', language: 'go', build_system: 'go' });
    expect(build.build.commands).toEqual(['go mod download', 'go build -o bin/api .']);
    expect(build.build.env).toEqual({ CGO_ENABLED: '0' });
    expect(build.runtime).toMatchObject({ name: 'go', command: './bin/api', version: { requested: '1.22', source: 'go.mod go directive' } });
  });

  it('a cmd/<name>/main.go entry point', async () => {
    const build = await detectOne({ 'go.mod': goMod(), 'cmd/server/main.go': 'package main' });
    expect(build.build.commands[1]).toBe('go build -o bin/server ./cmd/server');
    expect(build.runtime.command).toBe('./bin/server');
  });

  it.each([
    ['github.com/gin-gonic/gin', 'gin', 8080],
    ['github.com/labstack/echo/v4', 'echo', 1323],
    ['github.com/gofiber/fiber/v2', 'fiber', 3000],
  ])('%s → %s', async (module, framework, port) => {
    const build = await detectOne({ 'go.mod': goMod([module]), 'main.go': '' });
    expect(build.metadata.framework).toBe(framework);
    expect(build.runtime.ports).toEqual([port]);
  });

  it('does not match a module that merely shares a prefix', () => {
    expect(parseGoMod(goMod(['github.com/gin-gonic/gin-contrib'])).requires.has('github.com/gin-gonic/gin')).toBe(false);
    expect(parseGoMod('module x\nrequire github.com/a/b/v3 v3.0.0 // indirect\n').requires).toEqual(new Set(['github.com/a/b']));
  });

  it('go.work: one service per used module', async () => {
    const builds = await detectFixture({
      'go.work': 'go 1.22\n\nuse (\n\t./api\n\t./worker\n)\n',
      'api/go.mod': 'module example.com/api\n\ngo 1.22\n',
      'api/main.go': '',
      'worker/go.mod': 'module example.com/worker\n\ngo 1.21\n',
    });
    expect(builds.map((b) => b.metadata.path)).toEqual(['api', 'worker']);
    expect(builds[0].workspace).toEqual({ root: '.', orchestrator: 'go-work', manager: 'go', members: ['api', 'worker'] });
    expect(builds[0].build.commands).toEqual(['cd api && go mod download', 'cd api && go build -o bin/api .']);
    expect(builds[1].runtime.version.requested).toBe('1.21');
  });
});

describe('Rust', () => {
  const cargo = (deps = '') => `[package]\nname = "server"\nversion = "0.1.0"\nrust-version = "1.74"\n\n[dependencies]\n${deps}\n`;

  it('Cargo.toml: cargo build, binary, caches, rust-version', async () => {
    const build = await detectOne({ 'Cargo.toml': cargo(), 'src/main.rs': '' });
    expect(build.metadata).toMatchObject({ project_name: 'server', language: 'rust', build_system: 'cargo' });
    expect(build.build.commands).toEqual(['cargo fetch', 'cargo build --release']);
    expect(build.build.cache).toEqual(['~/.cargo/registry', '~/.cargo/git', 'target']);
    expect(build.runtime).toMatchObject({ command: './target/release/server', version: { requested: '1.74', source: 'Cargo.toml rust-version' } });
  });

  it('rust-toolchain.toml beats rust-version; a library has no start command', async () => {
    const build = await detectOne({ 'Cargo.toml': cargo(), 'rust-toolchain.toml': '[toolchain]\nchannel = "1.79.0"\n', 'src/lib.rs': '' });
    expect(build.runtime.version).toEqual({ requested: '1.79.0', source: 'rust-toolchain.toml' });
    expect(build.runtime.command).toBeUndefined();
  });

  it.each([
    ['actix-web = "4"', 'actix-web', 8080],
    ['axum = { version = "0.7" }', 'axum', 3000],
    ['rocket = "0.5"', 'rocket', 8000],
  ])('%s → %s', async (dependency, framework, port) => {
    const build = await detectOne({ 'Cargo.toml': cargo(dependency), 'src/main.rs': '' });
    expect(build.metadata.framework).toBe(framework);
    expect(build.runtime.ports).toEqual([port]);
  });

  it('cargo workspace: members by glob, -p commands, one shared target/', async () => {
    const builds = await detectFixture({
      'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/old"]\n',
      'rust-toolchain': '1.80\n',
      'crates/api/Cargo.toml': '[package]\nname = "acme-api"\n[dependencies]\naxum = "0.7"\n',
      'crates/api/src/main.rs': '',
      'crates/core/Cargo.toml': '[package]\nname = "acme-core"\n',
      'crates/old/Cargo.toml': '[package]\nname = "old"\n',
    });
    expect(builds.map((b) => b.metadata.path)).toEqual(['crates/api', 'crates/core']);
    const api = builds[0];
    expect(api.metadata).toMatchObject({ project_name: 'acme-api', framework: 'axum' });
    expect(api.workspace).toMatchObject({ orchestrator: 'cargo-workspace', manager: 'cargo' });
    expect(api.build.commands).toEqual(['cargo fetch', 'cargo build --release -p acme-api']);
    expect(api.build.cache).toEqual(['target', '~/.cargo/registry', '~/.cargo/git']);
    expect(api.runtime).toMatchObject({ command: './target/release/acme-api', version: { requested: '1.80', source: 'rust-toolchain' } });
  });
});
