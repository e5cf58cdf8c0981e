import type { PlanStep } from '../plan';
import type { References } from '../deixis';
import type { WorkspaceView } from '../workspace-view';
import { directoryPhrase, fileTypeGlob, isPathLike, lineRange, looksLikeRegex, pathTokens, quoted, stripToken, urlIn } from './extract';
import { shellStep } from './shell';

/**
 * The pattern registry of the rule fallback. Rules are tried in order and the first that matches
 * decides; each is a small function of the cleaned query, so adding one is adding an entry.
 * `none` means "no tool needed" (how-to questions, chit-chat).
 */

export interface RuleInput {
  /** The cleaned query (filler gone, keyword typos fixed), argument case preserved. */
  text: string;
  lower: string;
  references: References;
  view?: WorkspaceView;
}

export type RuleOutcome = PlanStep | 'none' | undefined;

export interface IntentRule {
  name: string;
  match(input: RuleInput): RuleOutcome;
}

const HIGH = 0.9;
const MEDIUM = 0.7;
const LOW = 0.45;

const step = (name: string, args: Record<string, unknown>, confidence = HIGH): PlanStep => ({ name, args, confidence });

/** Words that end a search term: what follows is where to look, not what to look for. */
const TERM_END = /\s+(?:in|inside|under|within|across|throughout|from|among|on)\s+(?:the\s+|my\s+|our\s+|this\s+|that\s+|all\s+)?(?:[\w@.~\/-]+\s+)?(?:folder|directory|dir|files?|codebase|code|repo|repository|project|workspace|source|[\w@.~-]*\/[\w@.~\/-]*|src|lib|here)\b.*$/i;
/** " in services", " under docs" closing the sentence: a place, whatever its name. */
const TRAILING_PLACE = /\s+(?:in|inside|under|within)\s+(?:the\s+)?[\w@.~\/-]+$/i;
const TERM_NOISE_START = /^(?:for\s+)?(?:the\s+|a\s+|an\s+|all\s+)?(?:(?:text|string|word|phrase|term|symbol|identifier|function|method|class|variable|const(?:ant)?|type|interface|call(?:s)?\s+to|usages?\s+of|uses\s+of|occurrences?\s+of|references?\s+to|references?\s+of|mentions?\s+of)\s+)*/i;
const TERM_NOISE_END = /\s+(?:function|method|class|variable|constant|const|type|interface|symbol|is|are|gets?|get|being)?\s*(?:defined|declared|used|called|referenced|imported|implemented|mentioned|set|initiali[sz]ed|created|thrown|handled)?$/i;

/** The thing to search for in an unquoted phrase: "the fetchUser function in src" → "fetchUser". */
function cleanTerm(raw: string): string | undefined {
  let term = raw.trim().replace(TERM_END, '').replace(TRAILING_PLACE, '');
  term = term.replace(TERM_NOISE_START, '');
  for (let previous = ''; previous !== term; ) {
    previous = term;
    term = term.replace(TERM_NOISE_END, '').trim();
  }
  term = term.replace(/^(?:for|the)\s+/i, '').replace(/[?!,;]+$/, '').trim();
  return term.length > 0 ? term : undefined;
}

/** The directory a query narrows to: an explicit phrase, else a deictic reference ("here", "that folder"). */
function scope(input: RuleInput): string | undefined {
  return (
    directoryPhrase(input.text, input.view) ??
    input.references.directory?.value ??
    (input.references.directory?.slot === 'cwd' ? '.' : undefined) ??
    pathTokens(input.text, input.view).find((token) => input.view?.kind(token) === 'directory')
  );
}

function withDirectory(args: Record<string, unknown>, directory: string | undefined): Record<string, unknown> {
  return directory && directory !== '.' ? { ...args, directory } : args;
}

const CHIT_CHAT = /^(?:hi|hello|hey|yo|thanks|thank\s+you|thx|cheers|good\s+(?:morning|afternoon|evening|night)|how\s+are\s+you(?:\s+doing)?|who\s+are\s+you|what\s+are\s+you|what\s+can\s+you\s+do|what\s+do\s+you\s+do|tell\s+me\s+a\s+joke|bye|goodbye|see\s+you|cool|nice|great|awesome|lol|ok|okay|yes|no|sure|nevermind|never\s+mind|are\s+you\s+there|you\s+there|help)(?:\s+(?:there|quarry|mate|buddy|friend))?$/i;
const HOW_TO = /^(?:how\s+(?:do|can|would|should|could)\s+(?:i|you|we|one)|how\s+to|what(?:'s|\s+is)\s+the\s+(?:command|syntax|shortcut|way)|what\s+command|which\s+command|explain\s+(?:how|what|why|the\s+difference)|what(?:'s|\s+is|\s+are)\s+(?:a|an|the\s+difference)\b|why\s+(?:does|do|is|are|would)|when\s+should|is\s+it\s+(?:possible|better|bad|good)|should\s+i\s+use|what\s+does\s+[\w-]+\s+mean|difference\s+between)\b/i;
const BUILD_VERB = /\bhow\s+(?:do|can|should|would|to)\s+(?:i\s+|we\s+|you\s+)?(?:build|run|start|compile|test|install|launch|serve|deploy|set\s*up|bootstrap)\b/i;
const ABOUT_THIS = /\b(?:this|it|here|the\s+(?:project|app|application|repo|repository|code|codebase|service|server)|locally)\b/i;
const STACK = /\b(?:tech(?:nology)?\s+stack|stack|frameworks?|programming\s+languages?|languages?|build\s+(?:system|tool)|package\s+manager|runtime|written\s+in|built\s+(?:with|in|on)|what\s+kind\s+of\s+project|type\s+of\s+project)\b/i;
const STACK_QUESTION = /\b(?:what|which|detect|identify|figure\s+out|tell)\b/i;

const GREP_WORD = /\b(?:grep|egrep|rg|ripgrep|regex(?:p|es)?|regular\s+expressions?|re2)\b/i;
const SEARCH_VERB = /\b(?:search|look\s+for|look\s+up|find|grep|occurrences?|usages?|references?|mentions?)\b/i;

export const INTENT_RULES: readonly IntentRule[] = [
  { name: 'shell command', match: ({ text }) => shellStep(text) },
  {
    name: 'url',
    match: ({ text }) => {
      const url = urlIn(text);
      return url ? step('fetch_url', { url }) : undefined;
    },
  },
  { name: 'chit-chat', match: ({ text }) => (text === '' || CHIT_CHAT.test(text) ? 'none' : undefined) },
  {
    name: 'build or run this project',
    match: (input) => (BUILD_VERB.test(input.text) && ABOUT_THIS.test(input.text) ? step('detect_stack', { directory: scope(input) ?? '.' }) : undefined),
  },
  {
    name: 'how-to question',
    match: ({ text, view }) => {
      if (!HOW_TO.test(text)) return undefined;
      // "how do I read src/app.ts" is still about the workspace when the file exists.
      const mentionsWorkspace = pathTokens(text).some((token) => view?.kind(token.replace(/^\.\//, '').replace(/\/$/, '')) !== undefined);
      return mentionsWorkspace ? undefined : 'none';
    },
  },
  {
    name: 'stack question',
    match: (input) => {
      if (!STACK.test(input.text) || !STACK_QUESTION.test(input.text) || SEARCH_VERB.test(input.text)) return undefined;
      return step('detect_stack', { directory: scope(input) ?? '.' });
    },
  },
  { name: 'grep', match: grepIntent },
  { name: 'search', match: searchIntent },
  { name: 'find files', match: findIntent },
  { name: 'read file', match: readIntent },
  { name: 'list files', match: listIntent },
  { name: 'bare path', match: barePathIntent },
];

function grepIntent(input: RuleInput): RuleOutcome {
  const { text } = input;
  const explicitGrep = GREP_WORD.test(text);
  const slashed = /(?:^|\s)\/((?:[^/\\\s]|\\.)+)\/(?=\s|$)/.exec(text)?.[1];
  const quotedTerm = quoted(text);
  const glob = SEARCH_VERB.test(text) || explicitGrep ? fileTypeGlob(text) : undefined;
  const regexGiven = (quotedTerm !== undefined && looksLikeRegex(quotedTerm)) || slashed !== undefined;
  if (!explicitGrep && !regexGiven && !(glob && SEARCH_VERB.test(text) && (quotedTerm || termOf(text)))) return undefined;
  const pattern = slashed ?? quotedTerm ?? grepTerm(text) ?? termOf(text);
  if (!pattern) return undefined;
  const args: Record<string, unknown> = withDirectory({ pattern }, scope(input));
  if (glob) args.glob = glob;
  return step('grep', args);
}

/** "grep for foo", "regex foo", "lines matching foo" → foo. */
function grepTerm(text: string): string | undefined {
  const match = /\b(?:grep|rg|regex(?:p)?|regular\s+expression|matching|matches|match)\s+(?:-\w+\s+)*(?:for\s+)?(?:the\s+)?(?:pattern\s+)?(\S+)/i.exec(text);
  if (!match) return undefined;
  const word = stripToken(match[1]);
  return word && !/^(?:for|in|the|files?|across|through)$/i.test(word) ? word : undefined;
}

/** The search term of a search-like sentence, quoted text first. */
function termOf(text: string): string | undefined {
  const inQuotes = quoted(text);
  if (inQuotes) return inQuotes;
  const forms: RegExp[] = [
    /\bwhere\s+(?:is|are|'s)\s+(.+?)\s+(?:defined|declared|used|called|referenced|imported|implemented|set|thrown|handled|created|initiali[sz]ed)\b/i,
    /\bwhere\s+(?:is|are|does|do)\s+(.+?)(?:\s+(?:get|gets|come\s+from|live|lives))?$/i,
    /\b(?:who|what|which\s+\w+)\s+(?:calls|uses|imports|references|throws)\s+(.+)$/i,
    /\b(?:usages?|uses|occurrences?|references?|mentions?|instances?|calls?|callers?|definition|definitions|declaration)\s+(?:of|to|for)\s+(.+)$/i,
    /\bfiles?\s+(?:that\s+|which\s+)?(?:contain|contains|containing|mention|mentions|mentioning|use|uses|using|reference|references|referencing|import|imports|importing|call|calls|calling|define|defines|with)\s+(.+)$/i,
    /\b(?:search|look)\b(?:\s+\S+){0,4}?\s+(?:for|up)\s+(.+)$/i,
    /\bsearch\s+(.+)$/i,
    /\bfind\s+(?:the\s+)?(?:text|string|word|phrase|term|code)\s+(.+)$/i,
    /\bgrep\s+(?:for\s+)?(.+)$/i,
  ];
  for (const form of forms) {
    const match = form.exec(text);
    if (match) return cleanTerm(match[1]);
  }
  return undefined;
}

function searchIntent(input: RuleInput): RuleOutcome {
  const { text } = input;
  const isSearch =
    /\b(?:search|look\s+for|look\s+up|usages?|occurrences?|references?\s+(?:of|to)|mentions?\s+of|who\s+calls|what\s+calls|callers\s+of)\b/i.test(text) ||
    /\bfiles?\s+(?:that\s+|which\s+)?(?:contain|contains|containing|mention|mentions|mentioning|use|uses|using|reference|references|referencing|import|imports|importing|call|calls|calling|define|defines)\b/i.test(text) ||
    /\bwhere\s+(?:is|are|'s)\s+.+?\s+(?:defined|declared|used|called|referenced|imported|implemented|set|thrown|handled|created|initiali[sz]ed)\b/i.test(text) ||
    /\bfind\s+(?:the\s+)?(?:text|string|word|phrase|term)\b/i.test(text);
  const whereIdentifier = /\bwhere\s+(?:is|are|'s)\s+(?:the\s+)?([A-Za-z_$][\w$]*(?:\(\))?)$/i.exec(text);
  if (!isSearch && !(whereIdentifier && !isPathLike(whereIdentifier[1], input.view) && isIdentifier(whereIdentifier[1]))) return undefined;
  // "search for config.json" still means finding the file.
  const query = termOf(text) ?? whereIdentifier?.[1];
  if (!query) return undefined;
  if (!quoted(text) && /\b(?:search|look)\s+for\s+(?:the\s+|a\s+)?(?:files?\s+(?:named\s+|called\s+)?\S+|\S+\.[A-Za-z]\w{0,5})$/i.test(text)) return undefined;
  return step('search', withDirectory({ query }, scope(input)));
}

/** camelCase, snake_case, PascalCase or a call: things code defines, not English words. */
function isIdentifier(word: string): boolean {
  return /[a-z][A-Z]|_|\(\)$|^[A-Z][a-z]+[A-Z]/.test(word);
}

function findIntent(input: RuleInput): RuleOutcome {
  const { text, view } = input;
  const verb = /\b(?:find|locate|where(?:'s|\s+is|\s+are|\s+can\s+i\s+find)|which\s+(?:folder|directory)\s+(?:has|contains|holds)|search\s+for|look\s+for|is\s+there\s+an?)\b/i.exec(text);
  if (!verb) return undefined;
  const after = text.slice(verb.index + verb[0].length);
  const directory = directoryPhrase(after, view);
  const glob = /(?:^|\s)((?:\*\*\/)?[\w.-]*\*[\w.*-]*)/.exec(after)?.[1];
  if (glob) return step('find_files', withDirectory({ pattern: glob }, directory));
  const named = /\b(?:files?\s+)?(?:named|called)\s+(\S+)/i.exec(after);
  if (named) return step('find_files', withDirectory({ pattern: stripToken(named[1]) }, directory));
  // Syntactic path-likeness only: "the config file" is a kind of file here, even with a config/ directory.
  const file = pathTokens(after).find((token) => token !== directory);
  if (file) return step('find_files', withDirectory({ pattern: file.split('/').pop() ?? file }, directory));
  const type = fileTypeGlob(after);
  if (type) return step('find_files', withDirectory({ pattern: type }, directory));
  const kind = /\b(?:the\s+|all\s+|any\s+)?([\w-]+)\s+files?\b/i.exec(after);
  if (kind && !/^(?:the|all|any|a|my|those|these|which|what)$/i.test(kind[1])) return step('find_files', withDirectory({ pattern: `*${kind[1]}*` }, directory), MEDIUM);
  return undefined;
}

const READ_VERB = /\b(?:show|open|read|cat|display|print|view|see|dump|output|give\s+me|get|explain|summari[sz]e|describe|check|inspect|look\s+at|what(?:'s|\s+is|\s+does)|contents?\s+of)\b/i;

function readIntent(input: RuleInput): RuleOutcome {
  const { text, view, references } = input;
  const range = lineRange(text);
  const listy = /\b(?:list|ls|files\s+in|folder|directory|dir|tree|structure)\b/i.test(text) && !range;
  if (!range && !READ_VERB.test(text)) return undefined;
  const target = pathTokens(text, view).find((token) => view?.kind(token) !== 'directory' && !/\/$/.test(token));
  if (target && (range || !listy || !isDirectoryish(target, view))) {
    const looksLikeDirectory = !/\.[A-Za-z]\w*$/.test(target) && view?.kind(target) === undefined && !/^(?:Dockerfile|Makefile|README|LICENSE|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|CHANGELOG|Containerfile)$/i.test(target);
    if (!looksLikeDirectory || range) return step('read_file', { path: target, ...(range ?? {}) });
  }
  if (references.file && (range || READ_VERB.test(text))) {
    return step('read_file', { ...(references.file.value ? { path: references.file.value } : {}), ...(range ?? {}) }, references.file.value ? HIGH : LOW);
  }
  if (range) return step('read_file', { ...range }, LOW);
  return undefined;
}

function isDirectoryish(token: string, view?: WorkspaceView): boolean {
  return view?.kind(token) === 'directory' || token.endsWith('/');
}

const LIST_WORDS = /\b(?:list|ls|dir|tree|structure|layout|contents?|files|folders|directories|subdirectories|what(?:'s|s|\s+is|\s+are)\s+(?:in|inside|under|here|there)|show|display|browse|explore|overview)\b/i;
const RECURSIVE = /\b(?:recursive(?:ly)?|whole\s+(?:tree|project|repo)|entire\s+(?:tree|project|repo)|full\s+tree|everything\s+(?:under|below|beneath|in)|all\s+(?:sub)?(?:directories|folders|levels)|subdirectories|project\s+structure|directory\s+tree|folder\s+tree|file\s+tree|tree|nested|-R)\b/i;

function listIntent(input: RuleInput): RuleOutcome {
  const { text, view, references } = input;
  if (!LIST_WORDS.test(text)) return undefined;
  const explicit = directoryPhrase(text, view) ?? pathTokens(text, view).find((token) => isDirectoryish(token, view) || (!/\.\w+$/.test(token) && view?.kind(token) === undefined));
  const directory = explicit ?? references.directory?.value ?? (references.directory && references.directory.slot !== 'cwd' ? undefined : '.');
  const args: Record<string, unknown> = directory === undefined ? {} : { directory };
  if (RECURSIVE.test(text)) args.recursive = true;
  const pattern = fileTypeGlob(text);
  if (pattern) args.pattern = pattern;
  return step('list_files', args, directory === undefined ? LOW : HIGH);
}

/** A query that is only a path ("src/app.ts", "docs/"): show it. */
function barePathIntent(input: RuleInput): RuleOutcome {
  const tokens = pathTokens(input.text, input.view);
  const only = tokens.length === 1 && input.text.split(/\s+/).length <= 3 ? tokens[0] : undefined;
  if (!only) return undefined;
  return isDirectoryish(only, input.view) ? step('list_files', { directory: only }, MEDIUM) : step('read_file', { path: only }, MEDIUM);
}
