import fs from 'node:fs';
import path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

/**
 * Tree-sitter grammars compiled to WebAssembly, shipped inside npm packages (nothing is
 * downloaded at run time): VS Code's set (`@vscode/tree-sitter-wasm`), plus the official C
 * grammar (`tree-sitter-c`), which VS Code's set lacks. Loaded once per process.
 */
export type GrammarName = 'c' | 'cpp' | 'c_sharp' | 'go' | 'java' | 'javascript' | 'php' | 'python' | 'ruby' | 'rust' | 'typescript' | 'tsx';

const VSCODE_FILES: Readonly<Record<Exclude<GrammarName, 'c'>, string>> = {
  cpp: 'tree-sitter-cpp.wasm',
  c_sharp: 'tree-sitter-c-sharp.wasm',
  go: 'tree-sitter-go.wasm',
  java: 'tree-sitter-java.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  php: 'tree-sitter-php.wasm',
  python: 'tree-sitter-python.wasm',
  ruby: 'tree-sitter-ruby.wasm',
  rust: 'tree-sitter-rust.wasm',
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
};

export const GRAMMAR_NAMES = ['c', ...Object.keys(VSCODE_FILES)] as GrammarName[];

/** Where a grammar's `.wasm` file is installed. */
export function grammarFile(name: GrammarName): string {
  if (name === 'c') return path.join(path.dirname(require.resolve('tree-sitter-c/package.json')), 'tree-sitter-c.wasm');
  return path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm', VSCODE_FILES[name]);
}

let runtime: Promise<void> | undefined;
/** What `Parser.init` was given: Emscripten sets the runtime's exports on it (see fast-cursor.ts). */
let runtimeModule: object | undefined;
const languages = new Map<GrammarName, Promise<Language>>();

/** The tree-sitter runtime's Emscripten module, once a grammar has loaded. */
export function treeSitterModule(): object | undefined {
  return runtimeModule;
}

/** The grammar, loaded on first use (tree-sitter's runtime too). */
export function loadGrammar(name: GrammarName): Promise<Language> {
  let language = languages.get(name);
  if (language === undefined) {
    // Bytes, not paths: given a path, web-tree-sitter reads it through a dynamic `import()`,
    // which CommonJS under jest's VM cannot run.
    if (runtime === undefined) {
      const module = { wasmBinary: fs.readFileSync(require.resolve('web-tree-sitter/tree-sitter.wasm')) };
      runtime = Parser.init(module).then(() => {
        runtimeModule = module;
      });
    }
    language = runtime.then(() => Language.load(fs.readFileSync(grammarFile(name))));
    // A failed load is not cached: the next call tries again.
    language.catch(() => languages.delete(name));
    languages.set(name, language);
  }
  return language;
}
