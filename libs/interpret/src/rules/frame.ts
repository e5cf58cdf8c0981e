import type { References } from '../deixis';
import { hasDirectoryNamed, hasFileNamed, type WorkspaceView } from '../workspace-view';
import { FUNCTION_WORDS, isCodeLike, isFileName, isGlob, isSlashedPath, KIND_NOUNS, looksLikeRegex, NOT_A_KIND, NUMBER, numberOf, TYPE_GLOBS } from './lexicon';
import { Sentence, type Token } from './sentence';

/**
 * The structure a query is read into: intent cues aside, a query names an object (what to look
 * for, show or find), a location (the directory it is about) and filters (file type, hidden
 * files, recursion, a limit, a line range). Phrases are recognised and taken out of the sentence
 * in a fixed order — URL, lines, limit, hidden, recursion, name, file type, location — and the
 * object is what is left once verbs, function words and kind nouns are trimmed off its edges.
 */

export interface Filters {
  /** Glob of a file type or extension ("python files" → `*.py`, "*.ts", "with a .ico extension"). */
  type?: string;
  /** include: hidden entries wanted alongside the rest; only: the hidden ones are the object. */
  hidden?: 'include' | 'only';
  recursive?: boolean;
  limit?: number;
  /** What the limit counts, when said: content matches ("5 matches") or files. */
  limitOf?: 'matches' | 'files';
  lines?: { start_line?: number; end_line?: number };
}

export type ObjectKind = 'regex' | 'literal' | 'code' | 'file' | 'glob' | 'words';

export interface ObjectTerm {
  text: string;
  kind: ObjectKind;
}

export interface Frame {
  sentence: Sentence;
  filters: Filters;
  /** A name-based find: "with X in the name" → `*X*`, "ending in .lock" → `*.lock`. */
  name?: string;
  /** "the test files", "the build script": a kind of file, found by name (`*test*`). */
  kind?: string;
  /** A regex built from "lines starting/ending with X". */
  lineRegex?: string;
  /** The directory the query is about, root-relative ('.' for the root). */
  directory?: string;
  /** How the directory was given: a phrase of the query, or an editor reference ("here"). */
  directoryFrom?: 'phrase' | 'reference';
  /** Files named in the query, as written. */
  files: string[];
  object?: ObjectTerm;
}

const ROOT_WORDS = /^(?:root|repo|repository|project|codebase|workspace|top-level|toplevel)$/i;
const FOLDER_WORD = '(?:folder|directory|dir|subfolder|subdirectory)(?![\\w.-])';
/** "the engine crate", "the api package": a place only when such a directory exists ("the uuid package" is a dependency). */
const WEAK_FOLDER_WORD = '(?:package|crate|module|project|app)(?![\\w.-])';
/** Words before "folder" that do not name one ("show directory contents", "which folder"). */
const NOT_A_FOLDER_NAME = /^(?:show|list|display|print|open|view|read|search|find|grep|whole|entire|parent|home|each|every|new|other|empty|which|what|whose|same|one|source|target|output|given|specific|particular|a|an|the|this|that|current|working|previous|last|earlier|its|their|my|our|your|hidden|dot|of|in|into|to|from)$/i;
const LOCATION_PREPOSITION = '(?:in|under|inside|within|from|of|at|across|beneath|below|throughout)';

export function parseFrame(text: string, references: References, view?: WorkspaceView): Frame {
  const sentence = new Sentence(text);
  const frame: Frame = { sentence, filters: {}, files: [] };
  takeUrl(sentence);
  takeLines(sentence, frame.filters);
  takeLimit(sentence, frame.filters);
  takeHidden(sentence, frame.filters);
  takeRecursive(sentence, frame.filters);
  takeLineRegex(sentence, frame);
  takeName(sentence, frame);
  takeType(sentence, frame.filters, view);
  takeLocation(sentence, frame, view);
  takeReferences(sentence, frame, references);
  takeKind(sentence, frame);
  frame.files = sentence
    .rest()
    .map((token) => (token.quoted ? '' : token.text.replace(/#L\d+(?:-L?\d+)?$/, '')))
    .filter((word) => word !== '' && (isFileName(word) || (isSlashedPath(word) && view?.kind(clean(word)) !== 'directory')));
  frame.object = objectOf(sentence);
  return frame;
}

function clean(path: string): string {
  return path.replace(/^\.\/(?=.)/, '').replace(/(?<=.)\/+$/, '');
}

function takeUrl(sentence: Sentence): void {
  sentence.take(/<?\bhttps?:\/\/[^\s<>"'`]+>?/i);
}

/** "lines 10-20", "line 5", "first 30 lines", "from line 40", "L10-L20", "#L5-L9", "starting at line 100". */
function takeLines(sentence: Sentence, filters: Filters): void {
  const range = sentence.take(/(?<!#)\b(?:lines?|L)\s*(\d+)\s*(?:-|–|—|to|through|thru|until|till|and|\.\.)\s*(?:line\s*|L)?(\d+)\b/i);
  if (range) return void (filters.lines = { start_line: Number(range[1]), end_line: Number(range[2]) });
  const hash = sentence.test(/#L(\d+)(?:-L?(\d+))?\b/);
  if (hash) return void (filters.lines = { start_line: Number(hash[1]), end_line: Number(hash[2] ?? hash[1]) });
  const first = sentence.take(new RegExp(`\\b(?:the\\s+)?(?:first|top|opening)\\s+(${NUMBER})\\s+lines?\\b(?!\\s+(?:containing|matching|that|with|where|which))`, 'i'));
  if (first) return void (filters.lines = { start_line: 1, end_line: numberOf(first[1]) });
  if (sentence.take(/\b(?:the\s+)?(?:first|top|opening)\s+line\b(?!\s+(?:containing|matching|that|with|where|which))/i)) return void (filters.lines = { start_line: 1, end_line: 1 });
  const from = sentence.take(/\b(?:from|starting\s+(?:at|from)|after|beginning\s+at)\s+line\s+(\d+)\b/i);
  if (from) return void (filters.lines = { start_line: Number(from[1]) });
  const single = sentence.take(/\b(?:on\s+)?line\s+(?:number\s+)?(\d+)\b/i);
  if (single) filters.lines = { start_line: Number(single[1]), end_line: Number(single[1]) };
}

const MATCH_UNITS = 'results?|matches|match|hits?|occurrences?|usages?|instances?|lines';
const FILE_UNITS = 'files?|entries|entry|items?|paths?';
const UNIT = `(?:(?=\\s+(${MATCH_UNITS}|${FILE_UNITS})\\b)|)`;

/** "first 5 matches", "top 3", "at most 10", "limit 25", "-m 5", "(max 4)", "only the first match". */
function takeLimit(sentence: Sentence, filters: Filters): void {
  const set = (count: string, unit?: string) => {
    const value = numberOf(count);
    if (value === undefined || value <= 0) return;
    filters.limit = value;
    if (unit) filters.limitOf = new RegExp(`^(?:${MATCH_UNITS})$`, 'i').test(unit) ? 'matches' : 'files';
  };
  const firstOne = sentence.take(new RegExp(`\\b(?:only\\s+)?(?:the\\s+)?(?:first|top)\\s+(result|match|hit|occurrence|file|entry)\\b(?!\\s+\\d)`, 'i'));
  if (firstOne) return set('1', firstOne[1]);
  const patterns: RegExp[] = [
    /(?:^|\s)(?:-m\s*|--max-count[=\s]+)(\d+)\b()/i,
    new RegExp(`\\(\\s*(?:max(?:imum)?|at\\s+most|up\\s+to)\\s+(${NUMBER})\\s*\\)()`, 'i'),
    new RegExp(
      `(?:[,;:]\\s*)?\\b(?:limit(?:ed)?(?:\\s+(?:the\\s+)?(?:results?|output|it|them))?(?:\\s+to)?|max(?:imum)?(?:\\s+of)?|at\\s+most|up\\s+to|no\\s+more\\s+than|not\\s+more\\s+than|only\\s+(?:show|give|return|list)(?:\\s+me)?(?:\\s+the\\s+first)?|(?:only|just)\\s+(?:the\\s+)?(?:first|top))\\s+(${NUMBER})${UNIT}\\b[,:]?`,
      'i',
    ),
    new RegExp(`\\b(?:the\\s+)?(?:first|top)\\s+(${NUMBER})${UNIT}\\b(?!\\s+lines?\\b)[,:]?`, 'i'),
    new RegExp(`\\b(${NUMBER})\\s+(${MATCH_UNITS}|${FILE_UNITS})\\s+(?:max(?:imum)?|at\\s+most|tops)\\b`, 'i'),
    new RegExp(`\\b(\\d+|two|three|four|five|ten|twenty)${UNIT}(?=\\s+(?:${MATCH_UNITS})\\s+(?:of|for)\\b)`, 'i'),
  ];
  for (const pattern of patterns) {
    const match = sentence.take(pattern);
    if (match) return set(match[1], match[2] || undefined);
  }
  // "list 5 files in docs", "find two json files", "just give me 10 files": a count before files (only the count is taken).
  const counted = sentence.test(new RegExp(`\\b(?:list|show|find|give\\s+me|get|locate|display|me)\\s+(?:(?:only|just|up\\s+to)\\s+)?(${NUMBER})\\s+(?=(?:[\\w.+-]+\\s+)?(?:files?|scripts?)\\b)`, 'i'));
  if (counted) {
    const at = counted.index + counted[0].length - counted[1].length - 1;
    sentence.claim(at, at + counted[1].length + 1);
    set(counted[1], 'files');
    // "find 10 markdown files max": the qualifier after the noun belongs to the limit.
    sentence.take(/(?<=\b(?:files?|scripts?))\s+(?:max(?:imum)?|at\s+most|tops|or\s+(?:so|less|fewer))\b/i);
  }
}

/** Hidden (dot) files: wanted alongside the others ("including hidden", "ls -a"), or as the object ("show hidden files"). */
function takeHidden(sentence: Sentence, filters: Filters): void {
  const hidden = '(?:hidden|dot)\\s*(?:files?|ones|folders?|directories|entries|stuff)?';
  if (
    sentence.take(
      new RegExp(`(?:[,;]\\s*)?\\b(?:skip(?:ping)?|except(?:\\s+for)?|excluding|exclude|without|ignor(?:e|ing)|but\\s+not|no)\\s+(?:the\\s+|any\\s+)?${hidden}|\\bnon-?hidden\\b|\\bnot\\s+hidden\\b`, 'i'),
    )
  )
    return;
  if (sentence.take(new RegExp(`(?:[,;]\\s*)?\\b(?:including|incl\\.?|include|plus|with|and)\\s+(?:the\\s+|all\\s+)?${hidden}(?:\\s+(?:too|as\\s+well|included))?|(?:[,;]\\s*)?\\b${hidden}\\s+(?:too|as\\s+well|included)\\b`, 'i'))) {
    filters.hidden = 'include';
    return;
  }
  if (sentence.take(/\b(?:only\s+)?(?:the\s+)?(?:hidden\s*(?:files?|folders?|directories|entries|stuff|ones)|dot\s*files?|dotfiles?|dot\s*folders?)\b/i)) filters.hidden = 'only';
}

const RECURSIVE_PHRASES =
  /\b(?:recursive(?:ly)?|recursivly|recursivley|all\s+the\s+way\s+down|(?:whole|entire|full)\s+(?:tree|project|repo|repository|hierarchy)|everything\s+(?:under|below|beneath)|sub-?folders|sub-?directories|subdirs|nested|structure|layout|tree|-R)\b/i;

/** "recursively", "the whole tree", "and its subdirectories"; "not recursively" turns it off. */
function takeRecursive(sentence: Sentence, filters: Filters): void {
  if (sentence.take(/(?:[,;]\s*)?\b(?:not|non|without\s+going)[\s-]+(?:recursive(?:ly)?|into\s+sub-?(?:folders|directories))\b/i)) {
    filters.recursive = false;
    return;
  }
  if (!sentence.test(RECURSIVE_PHRASES)) return;
  filters.recursive = true;
  // Only the adverb-like words go; "tree"/"structure" stay so that the intent can see a listing.
  sentence.take(
    /(?:[,;]\s*)?\b(?:recursive(?:ly)?|recursivly|recursivley|all\s+the\s+way\s+down|(?:and|including|with|plus)\s+(?:all\s+)?(?:its\s+|their\s+|the\s+)?(?:sub-?folders|sub-?directories|subdirs|nested\s+(?:ones|files|folders))|including\s+nested(?:\s+ones)?)\b/i,
  );
}

const TERM = '("[^"]+"|\'[^\']+\'|`[^`]+`|“[^”]+”|\\S+)';

function unquote(value: string): string {
  return /^(["'`“]).*["'`”]$/.test(value) ? value.slice(1, -1) : value.replace(/(?<=[\w)\]])[?!,;]+$/, '');
}

/** Punctuation called by its name ("lines ending with a semicolon"). */
const SYMBOL_NAMES: Readonly<Record<string, string>> = {
  backslash: '\\\\', semicolon: ';', comma: ',', colon: ':', period: '\\.', dot: '\\.', 'full stop': '\\.', space: ' ', whitespace: '\\s', tab: '\\t',
  hash: '#', pound: '#', slash: '/', brace: '\\{', bracket: '\\[', parenthesis: '\\(', quote: '"', comment: '(?://|#)',
};

function lineTerm(raw: string): string {
  const word = unquote(raw);
  if (/^["'`“]/.test(raw)) return escapeRegex(word);
  // "lines ending in \{$": already a regular expression, anchors and escapes its own.
  if (/\\./.test(word) || /^\^.|.\$$/.test(word)) return word;
  return SYMBOL_NAMES[word.toLowerCase()] ?? escapeRegex(word);
}

/** "lines starting with #!" → `^#!`, "lines that end with TODO" → `TODO$`, "ending with a semicolon" → `;$`. */
function takeLineRegex(sentence: Sentence, frame: Frame): void {
  const start = sentence.takeFirst(new RegExp(`\\b(?:a\\s+)?lines?\\s+(?:that\\s+|which\\s+)?(?:start|starts|starting|begin|begins|beginning)\\s+with\\s+(?:the\\s+word\\s+|an?\\s+)?${TERM}`, 'i'), undefined, 'text');
  if (start) return void (frame.lineRegex = anchored('^', lineTerm(start[1])));
  const end = sentence.takeFirst(new RegExp(`\\b(?:a\\s+)?lines?\\s+(?:that\\s+|which\\s+)?(?:end|ends|ending)\\s+(?:with|in)\\s+(?:an?\\s+)?${TERM}`, 'i'), undefined, 'text');
  if (end) frame.lineRegex = anchored('$', lineTerm(end[1]));
}

/** The term with its anchor, unless it carries one already. */
function anchored(anchor: '^' | '$', term: string): string {
  if (anchor === '^') return term.startsWith('^') ? term : `^${term}`;
  return /(?<!\\)\$$/.test(term) ? term : `${term}$`;
}

export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
/** A name-based find: "with X in the name", "whose name contains X", "ending in .lock", "starting with README", "files named X". */
function takeName(sentence: Sentence, frame: Frame): void {
  const forms: Array<{ pattern: RegExp; glob: (value: string) => string }> = [
    { pattern: new RegExp(`\\b(?:with|having|has|have|contain(?:s|ing)?|includ(?:e|es|ing))\\s+(?:the\\s+word\\s+)?${TERM}\\s+in\\s+(?:the|their|its|his|her)\\s+(?:file\\s*)?names?\\b`, 'i'), glob: (x) => `*${x}*` },
    { pattern: new RegExp(`\\b(?:whose|with|where\\s+the)\\s+(?:file\\s*)?names?\\s+(?:contains?|containing|includes?|including|has|have|with)\\s+${TERM}`, 'i'), glob: (x) => `*${x}*` },
    { pattern: new RegExp(`\\bfile\\s*names?\\s+(?:that\\s+)?(?:containing|contain|contains|with|including)\\s+${TERM}`, 'i'), glob: (x) => `*${x}*` },
    { pattern: new RegExp(`\\b(?:whose\\s+)?(?:file\\s*)?(?:names?\\s+)?(?:that\\s+)?(?:ends?|ending)\\s+(?:in|with)\\s+${TERM}`, 'i'), glob: (x) => `*${x}` },
    {
      pattern: new RegExp(`\\b(?:whose\\s+)?(?:file\\s*)?(?:names?\\s+)?(?:that\\s+)?(?:starting|starts?|beginning|begins?)\\s+with\\s+(?:a\\s+)?${TERM}`, 'i'),
      glob: (x) => (/^(?:dot|period|\.)$/i.test(x) ? '.*' : `${x}*`),
    },
    {
      pattern: new RegExp(`\\b(?:files?|filenames?|anything|something|scripts?)\\s+(?:(?:that\\s+|which\\s+)?(?:is|are)\\s+)?(?:named|called)\\s+(?:like\\s+)?${TERM}`, 'i'),
      glob: (x) => (isGlob(x) || isFileName(x) ? x : `*${x}*`),
    },
  ];
  for (const { pattern, glob } of forms) {
    const match = sentence.takeFirst(pattern, undefined, 'text');
    if (!match) continue;
    const value = unquote(match[1]);
    if (value) frame.name = glob(value);
    return;
  }
}

/** A file type: "python files", ".tsx files", "*.ts", "in go code", "with a .ico extension", "shell scripts". */
function takeType(sentence: Sentence, filters: Filters, view?: WorkspaceView): void {
  const extension = sentence.take(/\b(?:with\s+)?(?:a|an|the)\s+(?:extension\s+\.?([\w+]+)|\.?([\w+]+)\s+extension)\b/i);
  if (extension) return void (filters.type = `*.${(extension[1] ?? extension[2]).toLowerCase()}`);
  // "in package.json files": every file of that name.
  const sameName = sentence.takeFirst(/(?:\b(?:in|within|across|among)\s+)?(?:\b(?:all|the|any|every)\s+)*(?<![\w.])([\w-]+(?:\.[\w-]+)*\.[A-Za-z]\w*)\s+files\b/i, (match) => isFileName(match[1]));
  if (sameName) return void (filters.type = sameName[1]);
  const glob = sentence.rest().find((token) => !token.quoted && isGlob(token.text) && /^(?:\*\*\/)?\*\.[\w.{},]+$/.test(token.text));
  const typeOf = (match: RegExpMatchArray) => (match[1] ? `*.${match[1].toLowerCase()}` : TYPE_GLOBS[match[2].toLowerCase()]);
  const named = sentence.takeFirst(
    /(?:\b(?:in|within|across|among|on)\s+)?(?:\b(?:all|the|any|every)\s+)*(?:(?<![\w.])\.([\w+]+)|(?<![\w.])([\w+]+))\s+(?:source\s+)?(?:files?|sources|scripts?|code|docs|documents|modules)\b/i,
    // "in go code" is a type; "the python code" is a place, read by the location; "the .editorconfig file" is that file.
    (match) =>
      typeOf(match) !== undefined &&
      (!/code$/i.test(match[0]) || /^\s*(?:in|within)\b/i.test(match[0])) &&
      !(match[1] && /\bfile$/i.test(match[0]) && view !== undefined && hasFileNamed(view, `.${match[1]}`)),
  );
  if (named) return void (filters.type = typeOf(named));
  if (glob) {
    const before = sentence.tokens[glob.index - 1];
    if (before && /^(?:in|within|on|for|across)$/i.test(before.text) && !sentence.isClaimed(before)) sentence.claimToken(before);
    sentence.claimToken(glob);
    filters.type = glob.text;
  }
}

/** The directory the query is about: "the api folder", "directory crates", "in src/in", "of crates/engine", "under docs", "in the root". */
function takeLocation(sentence: Sentence, frame: Frame, view?: WorkspaceView): void {
  const set = (directory: string) => {
    frame.directory = ROOT_WORDS.test(directory) && view?.kind(directory) !== 'directory' ? '.' : clean(directory);
    frame.directoryFrom = 'phrase';
  };
  // "search docs for X", "grep src/in for Y": the place right after the verb.
  const searched = sentence.takeFirst(/(?<=\b(?:search|searching|grep|scan|check)\s+(?:the\s+|in\s+|through\s+)?)[\w@.~/-]+(?=\s+(?:for|to\s+find)\b)/i, (match) => isDirectory(match[0], view) || ROOT_WORDS.test(match[0]));
  if (searched) return set(searched[0]);
  // "the python tests" naming python/tests: two words that are a path of the workspace.
  const pair = sentence.takeFirst(/(?<=\b(?:the|in|of|under)\s+)([\w@.-]+)\s+([\w@.-]+)\b/i, (match) => view?.kind(`${match[1]}/${match[2]}`) === 'directory');
  if (pair) return set(`${pair[1]}/${pair[2]}`);
  const topLevel = sentence.take(/\b(?:at\s+|in\s+)?(?:the\s+)?(?:top[\s-]level|repo(?:sitory)?\s+root|project\s+root|root\s+(?:of\s+the\s+)?(?:repo|repository|project))(?:\s+of\s+the\s+(?:repo|repository|project|codebase|workspace))?\b/i);
  if (topLevel) return set('.');
  const named = sentence.takeFirst(
    new RegExp(`(?:\\b${LOCATION_PREPOSITION}\\s+)?(?:\\b(?:the|my|our)\\s+)?(?<![\\w@.~/-])([\\w@.~/-]+)\\s+${FOLDER_WORD}\\b(?!\\s+(?:structure|tree|layout|contents?|listing))`, 'i'),
    (match) => !NOT_A_FOLDER_NAME.test(match[1]),
  );
  if (named) return set(named[1]);
  const weak = sentence.takeFirst(
    new RegExp(`(?:\\b${LOCATION_PREPOSITION}\\s+)?(?:\\b(?:the|my|our)\\s+)?(?<![\\w@.~/-])([\\w@.~/-]+)\\s+${WEAK_FOLDER_WORD}`, 'i'),
    (match) => !NOT_A_FOLDER_NAME.test(match[1]) && isDirectory(match[1], view),
  );
  if (weak) return set(weak[1]);
  const after = sentence.takeFirst(new RegExp(`\\b${FOLDER_WORD}\\s+([\\w@.~/-]+)`, 'i'), (match) => isDirectory(trimPunctuation(match[1]), view));
  if (after) return set(trimPunctuation(after[1]));
  const preposition = sentence.takeFirst(
    new RegExp(`(?:[,;]\\s*)?\\b${LOCATION_PREPOSITION}\\s+(?:the\\s+|my\\s+|our\\s+)?([\\w@.~/-]*[\\w/.~])(?:\\s+(?:code|files|sources))?(?=[\\s,;:?!]|$)`, 'i'),
    // Not across words another phrase took ("the list of [.py files] in python/helpers" has no place "in").
    // "what kind of project": "of project" classifies, it names no place.
    (match) => (isDirectory(match[1], view) || ROOT_WORDS.test(match[1])) && !spansClaimedWords(sentence, match) && !/\b(?:kind|sort|type|flavou?r|category|variety)s?\s*$/i.test(sentence.text.slice(0, match.index)),
  );
  if (preposition) return set(preposition[1]);
  // "does the api handle SIGTERM", "do the migrations mention created_at": a directory as the subject.
  const subject = sentence.takeFirst(
    /\b(?:do|does|did)\s+(?:any\s+of\s+)?the\s+([\w@.~/-]+)(?:\s+(?:code|folder|files))?(?=\s+\w)/i,
    (match) => isDirectory(match[1], view) && !FUNCTION_WORDS.has(match[1].toLowerCase()),
  );
  if (subject) set(subject[1]);
}

function spansClaimedWords(sentence: Sentence, match: RegExpMatchArray): boolean {
  const start = match.index ?? 0;
  const inner = sentence.text.slice(start, start + match[0].lastIndexOf(match[1]));
  return inner.trim() !== sentence.open.slice(start, start + inner.length).trim() && /\S\s+\S/.test(inner);
}

function trimPunctuation(word: string): string {
  return word.replace(/[?!,;:]+$/, '');
}

/** Whether a word names a directory: a slashed path, `.`, a trailing slash, or a directory of the workspace (by path or name). */
function isDirectory(candidate: string, view?: WorkspaceView): boolean {
  if (/^https?:/i.test(candidate) || candidate.length === 0) return false;
  if (/^\.{1,2}\/?$/.test(candidate) || candidate.endsWith('/')) return true;
  const path = clean(candidate);
  if (view?.kind(path) === 'directory') return true;
  if (view?.kind(path) === 'file' || isFileName(path)) return false;
  if (path.includes('/')) return isSlashedPath(path);
  return view !== undefined && hasDirectoryNamed(view, path);
}

/** Deictic phrases ("here", "this folder", "the current file") are the editor's, never an object. */
function takeReferences(sentence: Sentence, frame: Frame, references: References): void {
  const directory = references.directory;
  if (directory) {
    const at = sentence.text.toLowerCase().indexOf(directory.phrase.toLowerCase());
    if (at >= 0) {
      // "in this folder", "below the current directory": the preposition goes with the phrase.
      const before = /\b(?:in|under|inside|within|from|of|at|below|beneath)\s+$/i.exec(sentence.text.slice(0, at));
      sentence.claim(before ? before.index : at, at + directory.phrase.length);
    }
    if (frame.directory === undefined) {
      frame.directory = directory.value ?? (directory.slot === 'cwd' ? '.' : undefined);
      frame.directoryFrom = 'reference';
    }
  }
  const file = references.file;
  if (file) {
    const at = sentence.text.toLowerCase().indexOf(file.phrase.toLowerCase());
    if (at >= 0) sentence.claim(at, at + file.phrase.length);
  }
}

/** "the test files", "the build script", "lock files": a kind of file, found by name. */
function takeKind(sentence: Sentence, frame: Frame): void {
  const kind = sentence.test(/(?<![\w.-])([\w.-]+)\s+(?:files?|scripts?)\b/i);
  const word = kind?.[1].toLowerCase() ?? '';
  if (!kind || NOT_A_KIND.test(word) || FUNCTION_WORDS.has(word) || CUE_WORDS.has(word) || KIND_NOUNS.has(word) || TYPE_GLOBS[word] || /^\d+$/.test(word) || /^(?:many|much)$/.test(word)) return;
  if (isFileName(kind[1]) || isGlob(kind[1])) return;
  sentence.claim(kind.index, kind.index + kind[0].length);
  frame.kind = kind[1];
}

/** Verbs and cue words that introduce an object but are never one when anything else is left. */
const CUE_WORDS = new Set(
  `search searching searched find finding look looking grep rg locate show list display print give get tell fetch open read see view check
   match matching matches matched contain contains containing contained include includes mention mentions mentioning mentioned
   reference references referencing referenced referring refers refer use uses using used import imports importing imported
   call calls calling called define defines defined defining declare declares declared implement implements implemented instantiate instantiated
   create creates created throw throws thrown raise raises raised set sets log logs logged handle handles handled export exports exported
   depend depends depending rely relies appear appears occur occurs exist exists live lives located sit sits come comes coming up like
   regex regexp pattern expression regular occurrences usages files file lines line anywhere somewhere everywhere codebase repo repository project code
   r u ur whats what's where's wheres who's there's theres is isn't any more let lemme need want
   how many much often times number count counting results result matches hits hit entries items`.split(/\s+/),
);

/** What surrounds an object in a question without being one: question and measure words, search verbs, participles. */
const QUESTION_AND_PARTICIPLE =
  /^(?:how|many|much|often|times|number|count|counting|search|searching|find|look|looking|grep|show|list|display|give|get|\w+(?:ed|ing)|called|used|set|read|thrown|made|done|matches|results|hits|files|file|lines|line|code|codebase|repo|repository|project|anywhere|somewhere|everywhere|whats|what's|where's|wheres|r|u)$/;

function removable(token: Token): boolean {
  if (token.quoted) return false;
  const word = token.lower.replace(/[:,]$/, '');
  return FUNCTION_WORDS.has(word) || KIND_NOUNS.has(word) || CUE_WORDS.has(word);
}

/** What is left once phrases are out and the edges are trimmed: the object of the query. */
function objectOf(sentence: Sentence): ObjectTerm | undefined {
  const rest = sentence.rest();
  const quoted = rest.find((token) => token.quoted);
  if (quoted) return { text: quoted.text, kind: looksLikeRegex(quoted.text) ? 'regex' : 'literal' };
  const slashed = rest.find((token) => /^\/.+\/$/.test(token.text) && token.text.length > 2 && !isSlashedPath(token.text.slice(0, -1)));
  if (slashed) return { text: slashed.text.slice(1, -1), kind: 'regex' };
  // "/version: \d+/": a slash-delimited regex with spaces in it.
  const opening = rest.find((token) => /^\/[^/\s]/.test(token.text) && !/\/$/.test(token.text) && !isSlashedPath(token.text));
  const closing = opening && rest.find((token) => token.index > opening.index && /[^/\\]\/$/.test(token.text));
  if (opening && closing && sentence.tokens.slice(opening.index, closing.index + 1).every((token) => !sentence.isClaimed(token))) {
    return { text: sentence.span(opening, closing).slice(1, -1), kind: 'regex' };
  }

  const runs: Token[][] = [];
  for (const token of rest) {
    const run = runs[runs.length - 1];
    if (run && run[run.length - 1].index === token.index - 1) run.push(token);
    else runs.push([token]);
  }
  const trimmed = runs.map((run) => trimRun(run, sentence)).filter((run) => run.length > 0);
  const regexy = (token: Token) => looksLikeRegex(token.text) && !isGlob(token.text);
  // A regex runs from its first regex-looking word; the words after it are its own ("^export default
  // function") up to a cue or function word ("^func main appears").
  const regexRun = runs.find((run) => run.some(regexy));
  if (regexRun) {
    const first = regexRun.findIndex(regexy);
    let last = regexRun.length - 1;
    while (last > first && !regexRun[last].quoted && (FUNCTION_WORDS.has(regexRun[last].lower) || CUE_WORDS.has(regexRun[last].lower))) last--;
    return { text: sentence.span(regexRun[first], regexRun[last]), kind: 'regex' };
  }
  for (const run of trimmed) {
    const all = run.filter((token) => isCodeLike(token) || isFileName(token.text));
    if (all.length === 0 || all.length === run.length) continue;
    // English around an identifier ("the app read PORT from"): the identifier is the object; a
    // snake_case, camelCase, dotted or called name beats an acronym ("API keys like sk_live").
    const strong = all.filter((token) => isStrongCode(token.text));
    const code = strong.length > 0 ? strong : all;
    const first = code[0];
    let last = first;
    for (const token of run.slice(run.indexOf(first) + 1)) {
      if (!code.includes(token)) break;
      last = token;
    }
    return termOf(sentence.span(first, last), first === last ? first : undefined);
  }
  const run = trimmed.find((candidate) => candidate.some((token) => isCodeLike(token) || isFileName(token.text))) ?? trimmed[0];
  if (run) return termOf(sentence.span(run[0], run[run.length - 1]), run.length === 1 ? run[0] : undefined);
  // Nothing but function words: "search typescript files for any" looks for "any".
  const afterFor = rest.find((token, at) => at > 0 && rest[at - 1].lower === 'for' && rest[at - 1].index === token.index - 1);
  if (afterFor) return termOf(afterFor.text, afterFor);
  // "how many times is fetch called": a verb-like word between the question words and the participle is the object.
  const left = rest.filter((token) => !FUNCTION_WORDS.has(token.lower) && !KIND_NOUNS.has(token.lower) && !QUESTION_AND_PARTICIPLE.test(token.lower));
  return left.length === 1 ? termOf(left[0].text, left[0]) : undefined;
}

/** Whether the nearest earlier unclaimed word is a search verb ("search all python files for …"). */
function searchVerbBefore(sentence: Sentence, token: Token): boolean {
  const before = sentence.tokens
    .slice(0, token.index)
    .reverse()
    .find((candidate) => !sentence.isClaimed(candidate) && !FUNCTION_WORDS.has(candidate.lower));
  return before !== undefined && /^(?:search|searching|look|looking|grep|scan)$/.test(before.lower);
}

function isStrongCode(word: string): boolean {
  return /[a-z0-9][A-Z]|_|\(|[A-Za-z]\.[A-Za-z]|^@/.test(word) && !/^[A-Z][A-Z0-9]*$/.test(word);
}

function trimRun(run: Token[], sentence: Sentence): Token[] {
  let start = 0;
  let end = run.length;
  // What follows "search for"/"look up" is the object as written: only articles and kind nouns go before it.
  const introduced = run.findIndex((token) => /^(?:for|up)$/.test(token.lower) && searchVerbBefore(sentence, token));
  if (introduced >= 0) {
    start = introduced + 1;
    while (start < end && !run[start].quoted && (FUNCTION_WORDS.has(run[start].lower) || KIND_NOUNS.has(run[start].lower))) start++;
    while (end > start && removable(run[end - 1])) end--;
    if (start < end) return run.slice(start, end);
    start = 0;
    end = run.length;
  }
  while (start < end && removable(run[start])) start++;
  while (end > start && removable(run[end - 1])) end--;
  return run.slice(start, end);
}

function termOf(text: string, token?: Token): ObjectTerm {
  // "TODOs" and "FIXMEs" are counted markers: the marker is the object.
  const singular = /^([A-Z]{3,})s$/.test(text) ? text.slice(0, -1) : text;
  if (token && isFileName(singular)) return { text: singular, kind: 'file' };
  if (isGlob(singular)) return { text: singular, kind: 'glob' };
  if (looksLikeRegex(singular)) return { text: singular, kind: 'regex' };
  const code = token ? isCodeLike(token) : /[A-Za-z_$][\w$]*[._(][\w$(). ]*|[a-z][A-Z]|_/.test(singular);
  return { text: singular, kind: code ? 'code' : 'words' };
}
