import type { Token } from './sentence';

/**
 * What a token looks like, independent of the sentence around it: code (identifiers, dotted or
 * namespaced names, calls, constants), a regular expression, a glob, a file name, a number. The
 * parse decides what each one is doing; these only say what it could be.
 */

const EXTENSIONLESS_FILES = /^(?:Dockerfile|Makefile|README|LICENSE|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|CHANGELOG|Containerfile|CODEOWNERS|Brewfile|Justfile|Caddyfile)$/i;
/** name.ext with a plausible extension; "e.g" and version numbers are not files. */
const FILE_NAME = /^(?:[\w@~.+-]+\/)*[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,9}$/;
const DOTFILE = /^(?:[\w@~.+-]+\/)*\.[A-Za-z0-9][\w.+-]*$/;
const SLASHED_PATH = /^(?:\.{1,2}\/|~\/|\/)?[\w@.+~-]+(?:\/[\w@.+~-]*)+$/;

/** Extensions that name source or data files: with one of these, a dotted word is a file, otherwise code. */
const FILE_EXTENSIONS = new Set(
  'ts tsx js jsx mjs cjs json json5 jsonc md mdx txt py go rs rb java kt kts swift c h cc cpp hpp cs php sh bash zsh fish ps1 sql toml yaml yml xml html htm css scss sass less vue svelte astro lock mod sum ini cfg conf lua dart ex exs erl clj scala r pl pm proto graphql gql csv tsv ico png jpg jpeg gif svg webp pdf zip gz tar wasm dockerfile tf hcl nix gradle properties editorconfig gitignore'.split(
    ' ',
  ),
);

export function isFileName(word: string): boolean {
  if (EXTENSIONLESS_FILES.test(word.replace(/^.*\//, ''))) return true;
  if (DOTFILE.test(word)) return true;
  if (!FILE_NAME.test(word) || /^\d+(?:\.\d+)+$/.test(word) || /^(?:e\.g|i\.e|etc|vs)\.?$/i.test(word)) return false;
  const extension = word.slice(word.lastIndexOf('.') + 1).toLowerCase();
  return FILE_EXTENSIONS.has(extension) || word.includes('/');
}

export function isSlashedPath(word: string): boolean {
  return SLASHED_PATH.test(word) && !/^https?:/i.test(word);
}

/**
 * `*.ts`, `index.*`, `README*`, `src/**\/*.tsx`: wildcards and no regex-only syntax. A `.*` ending a
 * name ("index.*") or standing alone (".*", the dot files) reads as a glob; one with more pattern
 * after it ("TODO.*urgent", ".*Service") is a regular expression: no file name is spelt that way.
 */
export function isGlob(word: string): boolean {
  return /[*?]/.test(word) && /^[\w@.*?{},/[\]!+-]+$/.test(word) && !/^\*+$/.test(word) && !/\w\+|\]\{|\}\{|\.\+/.test(word) && !/\.\*[^/]/.test(word);
}

/** Whether a pattern reads as a regular expression rather than plain text or a glob. */
export function looksLikeRegex(pattern: string): boolean {
  return /^\^|(?<!\\)\$$|\\[bdwsBDWSnt.()[\]{}*+?|^$/-]|\.[*+?]|\[[^\]]+\][*+?{]?|\w\|\w|\)\||\|\(|\{\d+(?:,\d*)?\}|\(\?|\)[?*+]|\]\{/.test(pattern);
}

/** Identifiers and other things code names: camelCase, PascalCase, snake_case, CONSTANTS, a.b.c, calls, @decorators. */
export function isCodeLike(token: Token): boolean {
  const word = token.text;
  if (token.quoted) return true;
  if (/^https?:\/\/$/i.test(word)) return true;
  if (/^[@#$][\w.-]+$/.test(word)) return true;
  if (/\w\(.*\)?$/.test(word) && /^[\w.$]+\(/.test(word)) return true;
  if (/[a-z0-9][A-Z]/.test(word) && /^[\w$.]+$/.test(word)) return true;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(word) && !isFileName(word)) return true;
  if (/^[A-Za-z$]*_[\w$]*$/.test(word) && /[A-Za-z]/.test(word)) return true;
  if (/^[A-Z][A-Z0-9]+s?$/.test(word) && word.length >= 3) return true;
  if (/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/.test(word) && !COMMON_HYPHENATED.has(word)) return true;
  // A capitalised word inside a sentence names something ("the Logger class"), unless it starts it.
  return token.index > 0 && /^[A-Z][a-z0-9]+$/.test(word) && !CAPITALISED_WORDS.has(word.toLowerCase());
}

const COMMON_HYPHENATED = new Set(['built-in', 'so-called', 'up-to-date', 'top-level', 'non-recursive', 'non-hidden', 'sub-folders', 'sub-directories']);
/** Capitalised words that are still English in a query ("Is", "I", languages, places). */
const CAPITALISED_WORDS = new Set(['i', 'is', 'are', 'do', 'does', 'the', 'please', 'thanks', 'ok', 'linux', 'mac', 'windows', 'github', 'english']);

/** "five" → 5; digits as they are. */
export function numberOf(word: string): number | undefined {
  if (/^\d+$/.test(word)) return Number(word);
  return NUMBER_WORDS[word.toLowerCase()];
}

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  fifteen: 15, twenty: 20, thirty: 30, fifty: 50, hundred: 100, a: 1, single: 1,
};
export const NUMBER = '(?:\\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|hundred)';

/** Language and format names → the glob of their files. */
export const TYPE_GLOBS: Readonly<Record<string, string>> = {
  typescript: '*.ts', ts: '*.ts', tsx: '*.tsx', javascript: '*.js', js: '*.js', jsx: '*.jsx', python: '*.py', py: '*.py', go: '*.go', golang: '*.go',
  rust: '*.rs', rs: '*.rs', java: '*.java', kotlin: '*.kt', ruby: '*.rb', rb: '*.rb', markdown: '*.md', md: '*.md', json: '*.json',
  yaml: '*.{yaml,yml}', yml: '*.yml', css: '*.css', scss: '*.scss', html: '*.html', shell: '*.sh', sh: '*.sh', bash: '*.sh', c: '*.c', cpp: '*.cpp',
  'c++': '*.cpp', php: '*.php', toml: '*.toml', sql: '*.sql', vue: '*.vue', svelte: '*.svelte', swift: '*.swift', csharp: '*.cs', lua: '*.lua',
  xml: '*.xml', text: '*.txt', txt: '*.txt', elixir: '*.ex', scala: '*.scala', dart: '*.dart', proto: '*.proto',
};

/** Words that name what a file is for rather than its type ("the test files" → `*test*`). */
export const NOT_A_KIND = /^(?:the|all|any|a|an|my|our|those|these|which|what|some|every|each|other|new|old|source|code|hidden|dot|matching|same|two|three|few|many|more|most|text|plain|binary|small|large|big|whole|entire|individual|relevant|following)$/i;

/** Determiners, pronouns, auxiliaries and the generic nouns around an object: never the object when something else is there. */
export const FUNCTION_WORDS = new Set(
  `a an the this that these those any anything anywhere anybody anyone some something somewhere every everything all each of for to in on at by from with
   into onto about as is are was were be been being do does did done have has had having will would can could should shall may might must
   i me my we us our you your it its they them their there here which what who whom whose where when why how whether if or and but not no nor
   still ever yet already again just only also even really actually currently left remaining called named
   please pls plz kindly hey hi hmm ok okay so well um uh`.split(/\s+/),
);

/** Nouns that say what kind of thing the object is ("the word X", "X comments"): dropped next to the object. */
export const KIND_NOUNS = new Set(
  `word words string strings text phrase term terms symbol symbols identifier identifiers token keyword function functions method methods class classes
   variable variables var const constant constants type types interface interfaces struct enum module modules package packages library libraries lib dependency
   hook hooks component components call calls caller callers usage usages occurrence occurrences instance instances reference references mention mentions
   definition definitions declaration declarations comment comments note notes marker markers line lines code snippet pattern value values name
   statement statements flag flags setting settings option options env link links url urls literal`.split(/\s+/),
);
