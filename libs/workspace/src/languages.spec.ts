import { KNOWN_LANGUAGES, languageOf, OTHER_LANGUAGE } from './languages';

describe('languageOf', () => {
  it.each([
    ['src/index.ts', 'TypeScript'],
    ['src/App.tsx', 'TypeScript'],
    ['lib/x.mjs', 'JavaScript'],
    ['tool.py', 'Python'],
    ['Main.java', 'Java'],
    ['cmd/main.go', 'Go'],
    ['src/lib.rs', 'Rust'],
    ['a.c', 'C'],
    ['a.h', 'C'],
    ['a.cpp', 'C++'],
    ['a.hpp', 'C++'],
    ['Program.cs', 'C#'],
    ['app.rb', 'Ruby'],
    ['index.php', 'PHP'],
    ['View.swift', 'Swift'],
    ['Main.kt', 'Kotlin'],
    ['build.gradle.kts', 'Kotlin'],
    ['App.scala', 'Scala'],
    ['run.sh', 'Shell'],
    ['setup.ps1', 'PowerShell'],
    ['index.html', 'HTML'],
    ['site.css', 'CSS'],
    ['site.scss', 'SCSS'],
    ['site.less', 'Less'],
    ['package.json', 'JSON'],
    ['ci.yml', 'YAML'],
    ['Cargo.toml', 'TOML'],
    ['pom.xml', 'XML'],
    ['README.md', 'Markdown'],
    ['schema.sql', 'SQL'],
    ['init.lua', 'Lua'],
    ['script.pl', 'Perl'],
    ['analysis.R', 'R'],
    ['analysis.r', 'R'],
    ['main.dart', 'Dart'],
    ['mix.exs', 'Elixir'],
    ['server.erl', 'Erlang'],
    ['Main.hs', 'Haskell'],
    ['main.ml', 'OCaml'],
    ['Lib.fs', 'F#'],
    ['core.clj', 'Clojure'],
    ['build.groovy', 'Groovy'],
    ['View.m', 'Objective-C'],
    ['start.s', 'Assembly'],
    ['start.S', 'Assembly'],
    ['main.zig', 'Zig'],
    ['main.nim', 'Nim'],
    ['run.jl', 'Julia'],
    ['App.vue', 'Vue'],
    ['App.svelte', 'Svelte'],
    ['api.proto', 'Protocol Buffers'],
    ['schema.graphql', 'GraphQL'],
    ['main.tf', 'Terraform'],
    ['config.hcl', 'HCL'],
    ['build.bat', 'Batch'],
    ['solver.f90', 'Fortran'],
    ['Module.vb', 'Visual Basic'],
    ['Token.sol', 'Solidity'],
    ['index.rst', 'reStructuredText'],
    ['paper.tex', 'TeX'],
    ['UPPER.TS', 'TypeScript'],
  ])('%s is %s', (file, language) => {
    expect(languageOf(file)).toBe(language);
  });

  it.each([
    ['Dockerfile', 'Dockerfile'],
    ['deploy/Dockerfile.prod', 'Dockerfile'],
    ['web.dockerfile', 'Dockerfile'],
    ['Makefile', 'Makefile'],
    ['src/GNUmakefile', 'Makefile'],
    ['rules.mk', 'Makefile'],
    ['CMakeLists.txt', 'CMake'],
    ['Gemfile', 'Ruby'],
    ['Rakefile', 'Ruby'],
    ['Jenkinsfile', 'Groovy'],
    ['BUILD', 'Starlark'],
    ['third_party/BUILD.bazel', 'Starlark'],
    ['go.mod', 'Go Module'],
    ['.bashrc', 'Shell'],
  ])('knows the well-known file %s (%s)', (file, language) => {
    expect(languageOf(file)).toBe(language);
  });

  it.each(['LICENSE', 'notes.unknownext', '.env', 'a/b/c', 'weird.'])('calls %s Other', (file) => {
    expect(languageOf(file)).toBe(OTHER_LANGUAGE);
  });

  it('lists at least 40 languages', () => {
    expect(KNOWN_LANGUAGES.length).toBeGreaterThanOrEqual(40);
    expect(KNOWN_LANGUAGES).toContain('TypeScript');
  });
});
