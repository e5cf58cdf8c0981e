/**
 * Language of a file from its name alone: no content sniffing, so it costs a couple of map
 * lookups per file in a 100k-file scan. The tables are data so adding a language is one line.
 */

/** The language of anything the tables do not name. */
export const OTHER_LANGUAGE = 'Other';

/** Whole file names that say more than their extension (or have none). Checked first. */
const LANGUAGE_BY_FILE_NAME: ReadonlyMap<string, string> = new Map([
  ['Dockerfile', 'Dockerfile'],
  ['Containerfile', 'Dockerfile'],
  ['Makefile', 'Makefile'],
  ['makefile', 'Makefile'],
  ['GNUmakefile', 'Makefile'],
  ['BSDmakefile', 'Makefile'],
  ['CMakeLists.txt', 'CMake'],
  ['meson.build', 'Meson'],
  ['meson_options.txt', 'Meson'],
  ['Gemfile', 'Ruby'],
  ['Rakefile', 'Ruby'],
  ['Guardfile', 'Ruby'],
  ['Podfile', 'Ruby'],
  ['Vagrantfile', 'Ruby'],
  ['Brewfile', 'Ruby'],
  ['Fastfile', 'Ruby'],
  ['Capfile', 'Ruby'],
  ['Dangerfile', 'Ruby'],
  ['config.ru', 'Ruby'],
  ['Jenkinsfile', 'Groovy'],
  ['BUILD', 'Starlark'],
  ['BUILD.bazel', 'Starlark'],
  ['WORKSPACE', 'Starlark'],
  ['WORKSPACE.bazel', 'Starlark'],
  ['MODULE.bazel', 'Starlark'],
  ['BUCK', 'Starlark'],
  ['Tiltfile', 'Starlark'],
  ['SConstruct', 'Python'],
  ['SConscript', 'Python'],
  ['Snakefile', 'Python'],
  ['go.mod', 'Go Module'],
  ['go.work', 'Go Module'],
  ['go.sum', 'Go Checksums'],
  ['Cargo.lock', 'TOML'],
  ['Pipfile', 'TOML'],
  ['poetry.lock', 'TOML'],
  ['Pipfile.lock', 'JSON'],
  ['justfile', 'Just'],
  ['Justfile', 'Just'],
  ['.bashrc', 'Shell'],
  ['.bash_profile', 'Shell'],
  ['.bash_logout', 'Shell'],
  ['.zshrc', 'Shell'],
  ['.zprofile', 'Shell'],
  ['.profile', 'Shell'],
  ['.vimrc', 'Vim Script'],
  ['.gitignore', 'Ignore List'],
  ['.dockerignore', 'Ignore List'],
  ['.npmignore', 'Ignore List'],
  ['.editorconfig', 'INI'],
]);

/**
 * Extensions, with their dot. Looked up as written first, then lower-cased, so `.S` and `.R`
 * land on the `.s` and `.r` rows without a row each.
 */
const LANGUAGE_BY_EXTENSION: ReadonlyMap<string, string> = new Map([
  ...group('TypeScript', '.ts', '.tsx', '.mts', '.cts'),
  ...group('JavaScript', '.js', '.jsx', '.mjs', '.cjs'),
  ...group('Python', '.py', '.pyi', '.pyw', '.pyx', '.pxd'),
  ...group('Jupyter Notebook', '.ipynb'),
  ...group('Java', '.java'),
  ...group('Kotlin', '.kt', '.kts'),
  ...group('Scala', '.scala', '.sc', '.sbt'),
  ...group('Groovy', '.groovy', '.gvy', '.gradle'),
  ...group('Clojure', '.clj', '.cljs', '.cljc', '.edn'),
  ...group('Go', '.go'),
  ...group('Rust', '.rs'),
  ...group('C', '.c', '.h'),
  ...group('C++', '.cpp', '.cc', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.ipp', '.tpp', '.ino'),
  ...group('C#', '.cs', '.csx'),
  ...group('F#', '.fs', '.fsi', '.fsx'),
  ...group('Visual Basic', '.vb', '.vbs', '.bas'),
  ...group('Objective-C', '.m'),
  ...group('Objective-C++', '.mm'),
  ...group('Swift', '.swift'),
  ...group('Dart', '.dart'),
  ...group('Ruby', '.rb', '.rake', '.gemspec', '.ru', '.erb'),
  ...group('PHP', '.php', '.phtml'),
  ...group('Perl', '.pl', '.pm'),
  ...group('Lua', '.lua'),
  ...group('R', '.r', '.rmd'),
  ...group('Julia', '.jl'),
  ...group('Elixir', '.ex', '.exs'),
  ...group('Erlang', '.erl', '.hrl'),
  ...group('Haskell', '.hs', '.lhs'),
  ...group('OCaml', '.ml', '.mli'),
  ...group('Elm', '.elm'),
  ...group('PureScript', '.purs'),
  ...group('Crystal', '.cr'),
  ...group('Nim', '.nim', '.nims', '.nimble'),
  ...group('Zig', '.zig'),
  ...group('Haxe', '.hx'),
  ...group('Pascal', '.pas', '.dpr'),
  ...group('Puppet', '.pp'),
  ...group('Ada', '.adb', '.ads'),
  ...group('Fortran', '.f', '.for', '.f77', '.f90', '.f95', '.f03', '.f08'),
  ...group('COBOL', '.cob', '.cbl', '.cpy'),
  ...group('Scheme', '.scm', '.ss'),
  ...group('Racket', '.rkt'),
  ...group('Common Lisp', '.lisp', '.lsp'),
  ...group('Emacs Lisp', '.el'),
  ...group('Tcl', '.tcl'),
  ...group('AWK', '.awk'),
  ...group('Assembly', '.s', '.asm', '.nasm'),
  ...group('WebAssembly', '.wat', '.wast'),
  ...group('CUDA', '.cu', '.cuh'),
  ...group('GLSL', '.glsl', '.vert', '.frag', '.geom', '.comp'),
  ...group('HLSL', '.hlsl'),
  ...group('Verilog', '.v', '.vh'),
  ...group('SystemVerilog', '.sv', '.svh'),
  ...group('VHDL', '.vhd', '.vhdl'),
  ...group('Solidity', '.sol'),
  ...group('Shell', '.sh', '.bash', '.zsh', '.ksh', '.fish'),
  ...group('PowerShell', '.ps1', '.psm1', '.psd1'),
  ...group('Batch', '.bat', '.cmd'),
  ...group('Vim Script', '.vim'),
  ...group('Nix', '.nix'),
  ...group('HTML', '.html', '.htm', '.xhtml'),
  ...group('CSS', '.css'),
  ...group('SCSS', '.scss'),
  ...group('Sass', '.sass'),
  ...group('Less', '.less'),
  ...group('Stylus', '.styl'),
  ...group('Vue', '.vue'),
  ...group('Svelte', '.svelte'),
  ...group('Astro', '.astro'),
  ...group('Handlebars', '.hbs', '.handlebars', '.mustache'),
  ...group('Pug', '.pug', '.jade'),
  ...group('EJS', '.ejs'),
  ...group('Jinja', '.j2', '.jinja', '.jinja2'),
  ...group('Twig', '.twig'),
  ...group('Liquid', '.liquid'),
  ...group('CoffeeScript', '.coffee'),
  ...group('ReScript', '.res', '.resi'),
  ...group('Reason', '.re', '.rei'),
  ...group('JSON', '.json', '.jsonc', '.json5', '.geojson', '.webmanifest'),
  ...group('YAML', '.yml', '.yaml'),
  ...group('TOML', '.toml'),
  ...group('XML', '.xml', '.xsd', '.xsl', '.xslt', '.plist', '.csproj', '.vbproj', '.fsproj', '.vcxproj', '.props', '.targets', '.resx', '.xaml', '.wsdl'),
  ...group('SVG', '.svg'),
  ...group('INI', '.ini', '.cfg'),
  ...group('Java Properties', '.properties'),
  ...group('CSV', '.csv', '.tsv'),
  ...group('Markdown', '.md', '.markdown', '.mdown', '.mkd'),
  ...group('MDX', '.mdx'),
  ...group('reStructuredText', '.rst'),
  ...group('AsciiDoc', '.adoc', '.asciidoc'),
  ...group('Org', '.org'),
  ...group('TeX', '.tex', '.sty', '.ltx'),
  ...group('BibTeX', '.bib'),
  ...group('Text', '.txt'),
  ...group('SQL', '.sql', '.psql', '.ddl'),
  ...group('PL/SQL', '.pls', '.plb', '.pks', '.pkb'),
  ...group('Protocol Buffers', '.proto'),
  ...group('Thrift', '.thrift'),
  ...group('Cap\'n Proto', '.capnp'),
  ...group('GraphQL', '.graphql', '.gql'),
  ...group('Terraform', '.tf', '.tfvars'),
  ...group('HCL', '.hcl'),
  ...group('Dockerfile', '.dockerfile'),
  ...group('Makefile', '.mk', '.mak'),
  ...group('CMake', '.cmake'),
  ...group('Starlark', '.bzl', '.star'),
  ...group('Ninja', '.ninja'),
  ...group('Jsonnet', '.jsonnet', '.libsonnet'),
  ...group('Dhall', '.dhall'),
  ...group('Diff', '.diff', '.patch'),
  ...group('Gleam', '.gleam'),
  ...group('Lean', '.lean'),
  ...group('Idris', '.idr'),
  ...group('Agda', '.agda'),
  ...group('Smalltalk', '.st'),
  ...group('Hack', '.hack'),
  ...group('Mojo', '.mojo'),
]);

/** Names that start like this are variants of a well-known file (`Dockerfile.prod`). */
const LANGUAGE_BY_FILE_NAME_PREFIX: ReadonlyArray<readonly [string, string]> = [
  ['Dockerfile.', 'Dockerfile'],
  ['Containerfile.', 'Dockerfile'],
  ['Jenkinsfile.', 'Groovy'],
];

function group(language: string, ...extensions: string[]): Array<[string, string]> {
  return extensions.map((extension) => [extension, language]);
}

/** Every language name the tables can return, for callers that want to list them. */
export const KNOWN_LANGUAGES: readonly string[] = [
  ...new Set([...LANGUAGE_BY_FILE_NAME.values(), ...LANGUAGE_BY_EXTENSION.values(), ...LANGUAGE_BY_FILE_NAME_PREFIX.map(([, language]) => language)]),
].sort();

/** The language of a file, from a relative (or absolute) POSIX path; "Other" when unknown. */
export function languageOf(relativePath: string): string {
  const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  const byName = LANGUAGE_BY_FILE_NAME.get(name);
  if (byName !== undefined) return byName;

  const dot = name.lastIndexOf('.');
  // A leading dot alone marks a hidden file (`.env`), not an extension.
  if (dot > 0) {
    const extension = name.slice(dot);
    const byExtension = LANGUAGE_BY_EXTENSION.get(extension) ?? LANGUAGE_BY_EXTENSION.get(extension.toLowerCase());
    if (byExtension !== undefined) return byExtension;
  }

  for (const [prefix, language] of LANGUAGE_BY_FILE_NAME_PREFIX) {
    if (name.startsWith(prefix)) return language;
  }
  return OTHER_LANGUAGE;
}
