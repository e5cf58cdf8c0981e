import { detectFixture, detectOne, removeFixtures } from '../testing/fixture';

afterAll(removeFixtures);

describe('Ruby', () => {
  it('rails with bundler, Gemfile ruby version, assets, package.json as secondary', async () => {
    const build = await detectOne({
      Gemfile: 'source "https://rubygems.org"\nruby "3.2.2"\ngem "rails", "~> 7.1"\ngem "puma"\n',
      'Gemfile.lock': '',
      '.ruby-version': '3.1.0',
      'package.json': { dependencies: { esbuild: '0' } },
    });
    expect(build.metadata).toMatchObject({ language: 'ruby', build_system: 'bundler', framework: 'rails' });
    expect(build.metadata.warnings).toContain('secondary runtime: node (package.json for front-end assets)');
    expect(build.build.commands).toEqual(['bundle config set --local deployment true', 'bundle install', 'bundle exec rails assets:precompile']);
    expect(build.runtime).toMatchObject({ command: 'bundle exec rails server -b 0.0.0.0 -p 3000', version: { requested: '3.2.2', source: 'Gemfile ruby' }, ports: [3000] });
  });

  it('sinatra, .ruby-version; rails-html-sanitizer alone is not rails', async () => {
    const build = await detectOne({ Gemfile: "gem 'sinatra'\ngem 'rails-html-sanitizer'\n", '.ruby-version': '3.3.0\n' });
    expect(build.metadata.framework).toBe('sinatra');
    expect(build.runtime.version).toEqual({ requested: '3.3.0', source: '.ruby-version' });
  });
});

describe('PHP', () => {
  it.each([
    ['laravel/framework', 'laravel', 'php artisan serve --host=0.0.0.0 --port=8000'],
    ['symfony/framework-bundle', 'symfony', 'php -S 0.0.0.0:8000 -t public'],
  ])('%s → %s', async (dependency, framework, command) => {
    const build = await detectOne({ 'composer.json': { name: 'acme/app', require: { php: '^8.2', [dependency]: '*' } } });
    expect(build.metadata).toMatchObject({ project_name: 'acme/app', language: 'php', build_system: 'composer', framework });
    expect(build.runtime).toMatchObject({ command, version: { requested: '^8.2', source: 'composer.json require.php' } });
  });
});

describe('.NET', () => {
  it('an ASP.NET Core csproj', async () => {
    const build = await detectOne({
      'Api.csproj': '<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>',
    });
    expect(build.metadata).toMatchObject({ project_name: 'Api', language: 'csharp', build_system: 'dotnet', framework: 'aspnet-core' });
    expect(build.build.commands).toEqual(['dotnet restore Api.csproj', 'dotnet publish Api.csproj -c Release -o out --no-restore']);
    expect(build.runtime).toMatchObject({ command: 'dotnet out/Api.dll', version: { requested: '8.0', source: 'Api.csproj TargetFramework' } });
  });

  it('an F# console project', async () => {
    const build = await detectOne({ 'Tool.fsproj': '<Project Sdk="Microsoft.NET.Sdk"></Project>' });
    expect(build.metadata).toMatchObject({ language: 'fsharp' });
    expect(build.metadata.framework).toBeUndefined();
  });
});

describe('Elixir', () => {
  it('phoenix with mix', async () => {
    const build = await detectOne({
      'mix.exs': 'defmodule Shop.MixProject do\n  def project do\n    [app: :shop, elixir: "~> 1.15"]\n  end\n  defp deps do\n    [{:phoenix, "~> 1.7"}]\n  end\nend\n',
    });
    expect(build.metadata).toMatchObject({ project_name: 'shop', language: 'elixir', build_system: 'mix', framework: 'phoenix' });
    expect(build.build.env).toEqual({ MIX_ENV: 'prod' });
    expect(build.runtime).toMatchObject({ command: '_build/prod/rel/shop/bin/shop start', ports: [4000], version: { requested: '~> 1.15', source: 'mix.exs elixir' } });
  });
});

describe('one-manifest ecosystems (manifest table)', () => {
  it.each([
    ['build.sbt', 'scala', 'sbt'],
    ['Package.swift', 'swift', 'swiftpm'],
    ['pubspec.yaml', 'dart', 'dart-pub'],
    ['project.clj', 'clojure', 'lein'],
    ['deps.edn', 'clojure', 'clojure-tools'],
    ['stack.yaml', 'haskell', 'stack'],
    ['app.cabal', 'haskell', 'cabal'],
    ['shard.yml', 'crystal', 'shards'],
    ['gleam.toml', 'gleam', 'gleam'],
    ['CMakeLists.txt', 'cpp', 'cmake'],
    ['meson.build', 'c', 'meson'],
    ['build.zig', 'zig', 'zig'],
  ])('%s → %s / %s', async (manifest, language, buildSystem) => {
    const build = await detectOne({ [manifest]: '' });
    expect(build.metadata).toMatchObject({ language, build_system: buildSystem, confidence: 1 });
  });

  it('stack wins over the .cabal file it wraps, and reads .tool-versions', async () => {
    const build = await detectOne({ 'stack.yaml': '', 'app.cabal': '', '.tool-versions': 'ghc 9.6.4\n' });
    expect(build.metadata.build_system).toBe('stack');
    expect(build.runtime).toMatchObject({ name: 'haskell', version: { requested: '9.6.4', source: '.tool-versions' } });
  });

  it('zig build: commands, caches and the version from .tool-versions', async () => {
    const build = await detectOne({ 'build.zig': '', 'build.zig.zon': '.{}', '.tool-versions': 'zig 0.13.0\n' });
    expect(build.build.commands).toEqual(['zig build --fetch', 'zig build -Doptimize=ReleaseSafe']);
    expect(build.build.cache).toContain('.zig-cache');
    expect(build.runtime).toMatchObject({ name: 'native', version: { requested: '0.13.0', source: '.tool-versions' } });
  });

  it.each([
    [{ Makefile: 'all:\n\tcc main.c\n', 'main.c': '' }, 'c'],
    [{ GNUmakefile: '', 'src/engine.cpp': '', 'src/engine.hpp': '' }, 'cpp'],
  ])('a make-only project takes its language from the sources: %o → %s', async (files, language) => {
    const build = await detectOne(files);
    expect(build.metadata).toMatchObject({ language, build_system: 'make' });
    expect(build.build.commands).toEqual(['make']);
  });

  it('a Makefile without C sources (a task runner) does not make a service', async () => {
    expect((await detectOne({ Makefile: 'test:\n\tpytest\n', 'pyproject.toml': '[project]\nname = "x"\n' })).metadata.language).toBe('python');
    expect((await detectOne({ Makefile: 'all:\n', 'README.md': '' })).metadata.language).toBe('unknown');
  });

  it('a CMake project that ships a Makefile stays cmake', async () => {
    expect((await detectOne({ 'CMakeLists.txt': '', Makefile: '', 'main.cpp': '' })).metadata.build_system).toBe('cmake');
  });

  it('a CMakeLists.txt beside a Cargo.toml does not take over', async () => {
    expect((await detectOne({ 'Cargo.toml': '[package]\nname="x"\n', 'CMakeLists.txt': '' })).metadata.language).toBe('rust');
  });
});

describe('one build, one project (no over-segmentation)', () => {
  it('a Kbuild tree (root Makefile + Kconfig, subsystem Makefiles below) is one C service', async () => {
    const builds = await detectFixture({
      Makefile: 'all: vmlinux\n',
      Kconfig: 'mainmenu "Linux"\n',
      'kernel/Makefile': 'obj-y = fork.o exec_domain.o\n',
      'kernel/sched/Makefile': 'obj-y += core.o\n',
      'kernel/sched/core.c': '',
      'drivers/net/Makefile': 'obj-$(CONFIG_NET) += dummy.o\n',
      'drivers/net/dummy.c': '',
      'tools/perf/Makefile': 'all:\n',
      'tools/perf/perf.c': '',
    });
    expect(builds.map((build) => [build.metadata.path, build.metadata.language, build.metadata.build_system])).toEqual([['.', 'c', 'make']]);
  });

  it('a CMake root owns its add_subdirectory() trees; C vs C++ comes from project() then the sources', async () => {
    const builds = await detectFixture({
      'CMakeLists.txt': 'cmake_minimum_required(VERSION 3.16)\nproject(app LANGUAGES C)\nadd_subdirectory(lib)\nadd_subdirectory(app)\n',
      'lib/CMakeLists.txt': 'add_library(core core.c)\n',
      'lib/core.c': '',
      'app/CMakeLists.txt': 'add_executable(app main.c)\n',
      'app/main.c': '',
    });
    expect(builds.map((build) => [build.metadata.path, build.metadata.language, build.metadata.build_system])).toEqual([['.', 'c', 'cmake']]);
    const cpp = await detectOne({ 'CMakeLists.txt': 'project(app)\n', 'src/main.cpp': '' });
    expect(cpp.metadata.language).toBe('cpp');
    const meson = await detectOne({ 'meson.build': "project('tool', 'cpp')\n", 'main.cc': '' });
    expect(meson.metadata).toMatchObject({ language: 'cpp', build_system: 'meson' });
  });

  it('Bazel: the language of the BUILD rules', async () => {
    const build = await detectOne({ 'MODULE.bazel': 'module(name = "x")\n', 'main/BUILD': 'cc_binary(name = "hello", srcs = ["hello.cc"])\n', 'main/hello.cc': '' });
    expect(build.metadata).toMatchObject({ language: 'cpp', build_system: 'bazel' });
    expect(build.build.commands).toEqual(['bazel build //...']);
  });
});
