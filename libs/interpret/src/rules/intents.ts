import * as path from 'node:path';
import type { PlanStep } from '../plan';
import type { References } from '../deixis';
import { resolvePath } from '../path-resolution';
import { hasDirectoryNamed, type WorkspaceView } from '../workspace-view';
import { escapeRegex, type Frame, type ObjectTerm } from './frame';
import { FUNCTION_WORDS, isFileName, isSlashedPath, TYPE_GLOBS } from './lexicon';
import { codeQuestion } from './code-question';
import { generalQuestion } from './general-question';
import { shellStep } from './shell';
import type { Token } from './sentence';

/**
 * The intents of the rule fallback, tried in order; the first that matches decides. Each reads
 * the parsed frame (object, location, filters) and the cue words of the sentence, and builds one
 * step with the filters carried into the tool's arguments. `none` means "no tool needed".
 */

export interface RuleInput {
  /** The query as asked (whitespace collapsed): what a tool that reads the whole question gets. */
  query: string;
  /** The cleaned query (filler gone, keyword typos fixed), argument case preserved. */
  text: string;
  lower: string;
  references: References;
  view?: WorkspaceView;
  /** The query read as object × location × filters. */
  frame: Frame;
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

const CHIT_CHAT =
  /^(?:hi|hello|hey|yo|thanks|thank\s+you|thx|ty|cheers|good\s+(?:morning|afternoon|evening|night)|how\s+are\s+you(?:\s+doing)?|who\s+are\s+you|what\s+are\s+you|what\s+can\s+you\s+do|what\s+do\s+you\s+do|tell\s+me\s+a\s+joke|bye|goodbye|see\s+you|cool|nice|great|awesome|perfect|lol|ok|okay|yes|no|sure|nevermind|never\s+mind|are\s+you\s+there|you\s+there|help)(?:[\s,!.]+(?:there|quarry|mate|buddy|friend|thanks|thank\s+you|thx|so\s+much|a\s+lot|that\s+helped|that\s+works|it\s+works))*$/i;
const HOW_TO =
  /^(?:how\s+(?:do|does|can|would|should|could|to)\b(?!\s+(?:i|we)\s+(?:build|run|start|compile|test|install|launch|serve|deploy|set\s*up|bootstrap)\s+(?:this|it|the\s+(?:project|app|tests?)))|what(?:'s|\s+is)\s+the\s+(?:command|syntax|shortcut|way|best|difference)|what\s+command|which\s+command|explain\b|what(?:'s|\s+is|\s+are)\s+(?:a|an)\b|why\s+(?:does|do|is|are|would|should)|when\s+should|is\s+it\s+(?:possible|better|bad|good)|should\s+i\s+use|what\s+does\s+\S+\s+mean|what\s+does\s+.+\s+do$|difference\s+between|(?:write|create|generate|make|give)\s+(?:me\s+)?(?:a|an)\s+(?:regex|regular|function|script|class|program|example)|is\s+\w+\s+(?:better|worse|faster|slower)\s+than)\b/i;
const BUILD_VERB = /\bhow\s+(?:do|can|should|would|to)\s+(?:i\s+|we\s+|you\s+)?(?:build|run|start|compile|test|install|launch|serve|deploy|set\s*up|bootstrap)\b/i;
const ABOUT_THIS = /\b(?:this|it|here|locally|deps|dependencies|the\s+(?:project|app|application|repo|repository|code|codebase|service|server|tests?|test\s+suite|specs?|api|frontend|backend|client|crate|package)|[\w.-]+\/[\w./-]*)\b/i;
const STACK =
  /\b(?:tech(?:nology)?\s+stack|technolog(?:y|ies)|stack|frameworks?|programming\s+languages?|languages?|build\s+(?:system|tool)|package\s+manager|runtime|written\s+in|built\s+(?:with|in|on)|what\s+kind\s+of\s+(?:project|app|application|service|repo)|type\s+of\s+project|is\s+(?:this|it)\s+an?\s+[\w.+-]+\s+(?:project|app|application|repo|service)|(?:project|app|repo|codebase)\s+using|use\s+for\s+(?:testing|tests|building|builds|linting|formatting|bundling|deploying|deployment|packaging|ci)|(?:testing|test|lint|linting|build)\s+(?:framework|library|tool|runner|setup))\b/i;
const STACK_QUESTION = /\b(?:whats?|which|detect|identify|figure\s+out|tell|is\s+(?:this|it))\b/i;
const STACK_NOUN = /^(?:framework|frameworks|language|languages|runner|tool|tools|stack|runtime|version)$/i;

const GREP_WORD = /\b(?:grep|egrep|rg|ripgrep|regex(?:p|es)?|regular\s+expressions?|re2)\b/i;
const SEARCH_VERB = /\b(?:search(?:ing)?|look(?:ing)?\s+for|look\s+up|grep|scan)\b/i;
const FIND_VERB = /\b(?:find|locate|fd|where(?:'s|\s+is|\s+are|\s+can\s+i\s+find|\s+does|\s+do)|which\s+(?:folder|directory|dir)|is\s+there\s+an?|are\s+there\s+any|any\s+files?|search\s+for|look(?:ing)?\s+for|get\s+me|what\s+\S+\s+(?:files?|scripts?)\s+are\s+there|which\s+\S+\s+(?:files?|scripts?)\s+are\s+there)\b/i;
const LIST_VERB = /\b(?:list|ls|dir|tree|show|display|give\s+me|print|browse|explore|dump|what(?:'s|s|\s+is|\s+are|\s+do\s+we\s+have)|overview|listing|contents?|structure|layout|files|folders|directories|subdirectories)\b/i;
const READ_VERB =
  /\b(?:show|open|read|cat|display|print|view|see|dump|output|give\s+me|get|pull\s+up|explain|summari[sz]e|describe|check|inspect|look\s+at|what(?:'s|s|\s+is|\s+does)|contents?\s+of)\b/i;

/** Words that say the object's content is wanted, whatever it looks like ("what files reference theme.css"). */
const CONTENT_CUES: readonly RegExp[] = [
  /\b(?:contain(?:s|ing|ed)?|mention(?:s|ing|ed)?|referenc(?:e|es|ing|ed)|refer(?:s|ring)?\s+to|usages?|occurrences?|instances?\s+of|callers?\s+of|calls?\s+to|uses\s+of)\b/i,
  /\b(?:who|what|whats|what's|what\s+is|who's|who\s+is|anything|anybody|anyone|something|nothing|code)\s+(?:that\s+|which\s+)?(?:still\s+|ever\s+)?(?:calls?|calling|uses?|using|imports?|importing|references?|referencing|throws?|depends?|exports?|reads?)\b/i,
  /\bwhich\s+\w+\s+(?:calls?|uses?|imports?|references?|exports?|throws?|defines?)\b/i,
  /\bfiles?\s+(?:that\s+|which\s+)?(?:has|have|having|with|include|includes|including|use|uses|using|import|imports|importing|call|calls|calling|define|defines)\b/i,
  /\b(?:do|does|did)\s+(?:we|you|they|it|anything|anybody|anyone|any\s+\w+|the\s+\w+(?:\s+code)?)\s+(?:\w+\s+)?(?:use|call|import|reference|throw|handle|mention|depend|log|read|have|export)\b/i,
  /\b(?:we|you|they|i)\s+(?:still\s+|ever\s+)?(?:use|call|import|reference|using|calling|importing|referencing)\b/i,
  /\b(?:is|are|was|were)\b.{1,60}?\b(?:used|called|imported|referenced|defined|declared|implemented|instantiated|thrown|handled|exported|mentioned)\b/i,
];
/** Where-questions about something code defines: searched when the object is code, found when it is a file. */
const WHERE_CODE =
  /\bwhere(?:'s|\s+is|\s+are|\s+was|\s+do|\s+does|\s+did)\b.*\b(?:defined|declared|used|called|referenced|imported|implemented|instantiated|set|thrown|handled|created|initiali[sz]ed|read|coming\s+from|comes?\s+from|exported|define|call|log|read|use|import|using)\b/i;
const PLAIN_QUESTION = /^(?:(?:are|is|r)\s+(?:there|we)|any|anything|anyone|anybody|do|does|did|is|are|who|what|which|where(?:'s)?|has|have|hey\s+is)\b/i;
const CONTENT_NOUNS = /\b(?:comments?|notes?|markers?|calls?|usages?|occurrences?|mentions?|references?|imports?|statements?|strings?)\b/i;

export const INTENT_RULES: readonly IntentRule[] = [
  { name: 'shell command', match: ({ text }) => shellStep(text) },
  { name: 'url', match: urlIntent },
  { name: 'chit-chat', match: ({ text }) => (text === '' || CHIT_CHAT.test(text) ? 'none' : undefined) },
  { name: 'build or run this project', match: buildIntent },
  { name: 'open question about the code', match: codeQuestionIntent },
  { name: 'how-to question', match: howToIntent },
  { name: 'general question', match: ({ text, frame, view }) => (generalQuestion(text, frame.sentence, view) !== undefined ? 'none' : undefined) },
  { name: 'stack question', match: stackIntent },
  { name: 'count, size or date', match: measureIntent },
  { name: 'find by name', match: nameIntent },
  { name: 'what a file contains', match: contentsIntent },
  { name: 'grep', match: grepIntent },
  { name: 'search', match: searchIntent },
  { name: 'find files', match: findIntent },
  { name: 'read file', match: readIntent },
  { name: 'list files', match: listIntent },
  { name: 'bare path', match: barePathIntent },
];

/** An open question about what the code does goes to retrieval, the question as asked its task; one the general-question reading takes for the world's stays without tools. */
function codeQuestionIntent({ query, text, frame, view }: RuleInput): RuleOutcome {
  const asked = codeQuestion(text, frame.sentence);
  if (asked === undefined || (asked === 'open' && generalQuestion(text, frame.sentence, view) !== undefined)) return undefined;
  return step('find_relevant_code', { task: query });
}

function urlIntent({ text }: RuleInput): RuleOutcome {
  const match = /\bhttps?:\/\/[^\s<>"'`]+/i.exec(text);
  if (!match) return undefined;
  let url = match[0].replace(/[.,;:!?]+$/, '');
  // A closing parenthesis belongs to the URL only if it opened one.
  while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) url = url.slice(0, -1);
  return step('fetch_url', { url });
}

function buildIntent(input: RuleInput): RuleOutcome {
  if (!BUILD_VERB.test(input.text)) return undefined;
  const directory = stackDirectory(input);
  if (!ABOUT_THIS.test(input.text) && directory === undefined) return undefined;
  return step('detect_stack', { directory: directory ?? '.' });
}

function howToIntent({ text, view }: RuleInput): RuleOutcome {
  if (!HOW_TO.test(text) || /^how\s+(?:many|big|large|long|often)\b/i.test(text)) return undefined;
  // "how do I read src/app.ts", "what does scripts/deploy.sh do" are still about the workspace when the path exists.
  const mentionsWorkspace = text.split(/\s+/).some((word) => {
    const candidate = word.replace(/^[("'`]+|[)"'`,;:!?]+$/g, '').replace(/^\.\//, '').replace(/\/$/, '');
    return (isFileName(candidate) || candidate.includes('/')) && view?.kind(candidate) !== undefined;
  });
  return mentionsWorkspace ? undefined : 'none';
}

function stackIntent(input: RuleInput): RuleOutcome {
  const { text, frame, view } = input;
  if (SEARCH_VERB.test(text) || /\bfind\b/i.test(text)) return undefined;
  const stack = STACK.test(text) && STACK_QUESTION.test(text);
  // "is auth.service.ts a service" asks about a file, not a project.
  const kind = PROJECT_KIND.some((form) => form.test(text)) && !frame.files.some((file) => view?.kind(file) === 'file' || isFileName(file));
  // "what is web": a directory asked about as a whole is a project to identify.
  const whole = /^(?:what(?:'s|\s+is)|whats)\s+(?:the\s+)?([\w@.~-][\w@.~/-]*?)\/?$/i.exec(text)?.[1];
  const wholeDirectory = whole !== undefined && view !== undefined && (view.kind(whole) === 'directory' || (!whole.includes('.') && hasDirectoryNamed(view, whole)));
  if (!stack && !kind && !wholeDirectory) return undefined;
  return step('detect_stack', { directory: stackDirectory(input) ?? '.' });
}

const PROJECT_NOUNS = '(?:project|app|application|service|repo|repository|codebase|code\\s*base|package|crate|module|library|lib|program|workspace|monorepo|cli|binary)';
/** What kind of project a directory (or the root) is: "what sort of app is web", "is api a rest service or a cli", "what is the api project". */
const PROJECT_KIND: readonly RegExp[] = [
  new RegExp(`\\b(?:kind|sort|type|flavou?r|category|variety)s?\\s+of\\s+${PROJECT_NOUNS}\\b`, 'i'),
  new RegExp(`\\b${PROJECT_NOUNS}\\s+type\\b`, 'i'),
  new RegExp(`^(?:is|are)\\s+(?!there\\b|it\\s+(?:possible|better|bad|good|ok|okay|safe)\\b).{1,60}?\\s+an?\\s+(?:[\\w.+-]+\\s+){0,3}?${PROJECT_NOUNS}\\b`, 'i'),
  new RegExp(`^what(?:'s|\\s+is)\\s+the\\s+[\\w@.~/-]+\\s+${PROJECT_NOUNS}$`, 'i'),
  new RegExp(`,\\s*an?\\s+(?:[\\w.+-]+\\s+)?${PROJECT_NOUNS}\\s+or\\b`, 'i'),
  // "a flask or fastapi app", "react app or vue app": two technologies for one project.
  new RegExp(`\\b[\\w.+-]+\\s+or\\s+(?:an?\\s+)?[\\w.+-]+\\s+${PROJECT_NOUNS}\\b`, 'i'),
  /\bwhat\s+are\s+we\s+dealing\s+with\b|\bclassify\s+(?:this|the|it)\b|\becosystem\b/i,
];

/** The directory a stack question is about: a phrase, a path or directory name anywhere ("what framework does web use"), or "here". */
function stackDirectory({ frame, view }: RuleInput): string | undefined {
  if (frame.directory !== undefined) return frame.directory;
  // "which language is python/app.py written in": the directory holding the file.
  const file = frame.files.find((candidate) => view?.kind(candidate) === 'file');
  if (file) return path.posix.dirname(file);
  const tokens = frame.sentence.rest();
  for (const [at, token] of tokens.entries()) {
    const word = token.text.replace(/\/$/, '');
    // "which test framework", "how do I run the tests": the test suite, not a tests/ directory.
    if (token.quoted || FUNCTION_WORDS.has(token.lower) || STACK_NOUN.test(tokens[at + 1]?.text ?? '') || /^(?:tests?|specs?|suite)$/i.test(token.text)) continue;
    if (view?.kind(word) === 'directory' || (isSlashedPath(word) && view?.kind(word) !== 'file') || (view && !word.includes('.') && hasDirectoryNamed(view, word))) return word;
  }
  return undefined;
}

const COUNT = /\b(?:how\s+many|count(?:ing)?|number\s+of|how\s+often|line\s+count|lines\s+of\s+code|loc|how\s+long\s+is)\b/i;
const SIZE = /\b(?:how\s+(?:big|large|heavy)|size|bytes|how\s+much\s+space)\b/i;
const DATE = /\b(?:when\s+(?:was|were|did|is)\b.*\b(?:modified|changed|change|updated|update|edited|touched|created|written)|last\s+(?:modified|changed|change|updated|edited|touched|modification)|modifi(?:ed|cation)\s+(?:time|date)|mtime)\b/i;

function measureIntent(input: RuleInput): RuleOutcome {
  const { text, frame } = input;
  const size = SIZE.test(text) || DATE.test(text);
  const count = COUNT.test(text);
  if (!size && !count) return undefined;
  const file = targetFile(input);
  if (size && file) {
    const where = locate(file, input.view);
    const directory = path.posix.dirname(where);
    return step('list_files', { directory, pattern: path.posix.basename(where) });
  }
  if (!count) return undefined;
  if (file && /\b(?:lines?|loc|long)\b/i.test(text)) return step('read_file', { path: file });
  const directory = frame.directory;
  const object = frame.object;
  if (/\b(?:times|often|occurrences?|matches|usages?|uses|used|called|appears?|mentions?|hits)\b/i.test(text) || (object && (object.kind === 'code' || object.kind === 'literal') && !frame.filters.type && !frame.kind)) {
    if (object) return withLimit(step('search', withDirectory({ query: object.text }, directory)), frame);
  }
  if (frame.filters.type || frame.kind) return step('find_files', withDirectory({ pattern: frame.filters.type ?? `*${frame.kind}*` }, directory));
  if (/\bfiles\b/i.test(text) && directory !== undefined) return step('list_files', { directory, recursive: true });
  // "how many migrations are there": the entries of a directory named on its own.
  const named = bareDirectory(frame, input.view);
  return named !== undefined && named !== '.' ? step('list_files', { directory: named }) : undefined;
}

/** A file the query is about: one it names, "this file", or a word naming one file of the workspace ("the logger", "the README"). */
function targetFile({ frame, references, view }: RuleInput): string | undefined {
  const named = frame.files[0];
  if (named) return joinLocation(named, frame, view);
  if (references.file?.value) return references.file.value;
  for (const token of frame.sentence.rest()) {
    const file = fileByStem(token, view);
    if (file) return file;
  }
  return undefined;
}

/** "the go.mod in api" → api/go.mod: a bare file name and a place the query names. */
function joinLocation(file: string, frame: Frame, view?: WorkspaceView): string {
  if (file.includes('/') || frame.directory === undefined || frame.directory === '.' || frame.directoryFrom !== 'phrase') return file;
  const joined = path.posix.join(frame.directory, file);
  if (view?.kind(joined) === 'file') return joined;
  // "the Cargo.toml of engine": the place may be a directory's name rather than its path.
  const resolved = view ? resolvePath(frame.directory, 'directory', view) : undefined;
  if (resolved && (resolved.status === 'resolved' || resolved.status === 'exact') && view?.kind(path.posix.join(resolved.path, file)) === 'file') return path.posix.join(resolved.path, file);
  return joined;
}

/** A word that is the stem of exactly one file ("logger" → src/utils/logger.ts, "README" → README.md). */
function fileByStem(token: Token, view?: WorkspaceView): string | undefined {
  if (!view || token.quoted || token.index === 0 || token.text.length < 3 || FUNCTION_WORDS.has(token.lower) || !/^[\w-]+$/.test(token.text)) return undefined;
  return stemMatch(token.text, view);
}

function stemMatch(word: string, view: WorkspaceView): string | undefined {
  const { bare, stem } = stemIndex(view);
  const key = word.toLowerCase();
  const exact = bare.get(key);
  if (exact) return exact.length === 1 ? exact[0] : undefined;
  const loose = stem.get(key);
  return loose?.length === 1 ? loose[0] : undefined;
}

interface StemIndex {
  /** Lower-cased name without its last extension ("server" for server.ts, "server.test" for server.test.ts). */
  bare: Map<string, string[]>;
  /** Lower-cased name up to its first dot ("server" for both). */
  stem: Map<string, string[]>;
}

const stemIndexes = new WeakMap<WorkspaceView, StemIndex>();

/** Files by their name without extension, built once per view (a view lives for one job). */
function stemIndex(view: WorkspaceView): StemIndex {
  let index = stemIndexes.get(view);
  if (!index) {
    index = { bare: new Map(), stem: new Map() };
    const add = (map: Map<string, string[]>, key: string, file: string) => {
      const list = map.get(key);
      if (list) list.push(file);
      else map.set(key, [file]);
    };
    for (const file of view.files()) {
      const base = file.slice(file.lastIndexOf('/') + 1).toLowerCase();
      const last = base.lastIndexOf('.');
      const first = base.indexOf('.', 1);
      add(index.bare, last > 0 ? base.slice(0, last) : base, file);
      add(index.stem, first > 0 ? base.slice(0, first) : base, file);
    }
    stemIndexes.set(view, index);
  }
  return index;
}

/** A file's path in the workspace: as given if it exists, else the one file of that name. */
function locate(file: string, view?: WorkspaceView): string {
  if (!view || view.kind(file) === 'file') return file;
  const resolution = resolvePath(file, 'file', view);
  if (resolution.status === 'resolved' || resolution.status === 'exact') return resolution.path;
  return (!file.includes('/') && stemMatch(file, view)) || file;
}

function nameIntent(input: RuleInput): RuleOutcome {
  const { frame } = input;
  if (frame.name === undefined || frame.lineRegex !== undefined) return undefined;
  return findStep(frame.name, frame);
}

function findStep(pattern: string, frame: Frame, confidence = HIGH): PlanStep {
  const args = withDirectory({ pattern }, frame.directory);
  if (frame.filters.hidden || pattern.startsWith('.')) {
    if (frame.filters.hidden) args.hidden = true;
  }
  return withLimit(step('find_files', args, confidence), frame);
}

function grepIntent(input: RuleInput): RuleOutcome {
  const { text, frame } = input;
  const object = frame.object;
  const explicit = GREP_WORD.test(text);
  const regex = frame.lineRegex ?? (object?.kind === 'regex' || wildcardAsRegex(input) ? object?.text : undefined);
  const typed = frame.filters.type !== undefined && object !== undefined && !frame.name && object.kind !== 'file' && object.kind !== 'glob' && (contentWanted(input, object) || (/\bfind\b/i.test(text) && object.kind !== 'words'));
  if (!explicit && regex === undefined && !typed) return undefined;
  const pattern = regex ?? (object ? (explicit ? object.text : asRegex(object)) : undefined);
  if (!pattern) return undefined;
  const args = withDirectory({ pattern }, frame.directory);
  if (frame.filters.type) args.glob = frame.filters.type;
  return withLimit(step('grep', args), frame);
}

/** Words of a question about content (where text occurs), as opposed to one about file names. */
const CONTENT_QUESTION = /\b(?:search(?:ing)?|look(?:ing)?\s+for|grep|match(?:es|ing)?|usages?|occurrences?|instances?|references?|where\s+do\s+(?:we|you|i)\s+(?:have|use|call)|appears?|lines?)\b/i;

/** "where do we have console.log.* in src": a name then `.*` is a glob when files are found, a regex when text is looked for. */
function wildcardAsRegex({ text, frame }: RuleInput): boolean {
  const object = frame.object;
  return object?.kind === 'glob' && /^[\w$]+(?:\.[\w$]+)*\.\*$/.test(object.text) && frame.name === undefined && (contentCue(frame) || CONTENT_QUESTION.test(text));
}

/** A literal term as a regex that matches it: what would break or change the match is escaped; a "." still matches itself. */
function asRegex(object: ObjectTerm): string {
  return object.kind === 'regex' ? object.text : escapeRegex(object.text).replace(/\\\./g, '.');
}

function contentCue(frame: Frame): boolean {
  const open = frame.sentence.open;
  return CONTENT_CUES.some((cue) => cue.test(open));
}

/** Whether the query asks about files' content: a content cue, a search verb, a where-question or plain question about code, a limit counted in matches. */
function contentWanted({ text, frame }: RuleInput, object: ObjectTerm): boolean {
  if (/\bwhich\s+(?:folder|directory|dir)\b/i.test(text)) return false;
  if (contentCue(frame) || frame.filters.limitOf === 'matches') return true;
  if (object.kind === 'file' || object.kind === 'glob') return false;
  const lookable = object.kind === 'code' || object.kind === 'literal' || object.kind === 'regex' || (object.kind === 'words' && !isTypeWord(object.text));
  if (SEARCH_VERB.test(text) && lookable) return true;
  if (object.kind === 'code' && /\bwhere(?:'s|\s+is|\s+are)\b/i.test(text)) return true;
  // "where is the retry count read from": a where-question about something code uses, whatever it looks like.
  if (WHERE_CODE.test(text) && !frame.kind) return true;
  if (PLAIN_QUESTION.test(text) && (object.kind === 'code' || object.kind === 'literal' || (object.kind === 'words' && CONTENT_NOUNS.test(text)))) return true;
  return /\bfind\b/i.test(text) && (object.kind === 'literal' || object.kind === 'code');
}

function searchIntent(input: RuleInput): RuleOutcome {
  const { frame } = input;
  const object = frame.object;
  if (!object || frame.filters.hidden === 'only' || !contentWanted(input, object)) return undefined;
  if ((frame.kind || frame.filters.type) && !contentCue(frame) && frame.filters.limitOf !== 'matches') return undefined;
  return withLimit(step('search', withDirectory({ query: object.text }, frame.directory)), frame);
}

function isTypeWord(word: string): boolean {
  return TYPE_GLOBS[word.toLowerCase()] !== undefined;
}

function findIntent(input: RuleInput): RuleOutcome {
  const { text, frame } = input;
  const object = frame.object;
  const verb = FIND_VERB.test(text) || SEARCH_VERB.test(text);
  const listy = LIST_VERB.test(text);
  const asked = verb || /^(?:every|all|any)\b/i.test(text);
  if (frame.filters.hidden === 'only' && (verb && !/^(?:what|which|show|list)\b/i.test(text))) return findStep('.*', frame);
  const file = frame.files[0];
  if (file && (verb || /\bwhich\s+(?:folder|directory)\b/i.test(text) || /^(?:any|is\s+there|are\s+there|do\s+we\s+have|does\s+\S+\s+have)\b/i.test(text))) return findStep(path.posix.basename(file), frame);
  if (object?.kind === 'glob' && (asked || listy)) return findStep(object.text, frame);
  // "*.sql", "migrations/*.sql", "the markdown files under docs": a pattern or a file type and nothing else asked.
  const pattern = object?.kind === 'glob' ? object.text : frame.filters.type;
  if (pattern !== undefined && onlyThePattern(frame)) return findStep(pattern, frame);
  // A file type or kind with no place: the whole workspace ("list all .lock files", "what html files are there");
  // with a place, found below it unless a listing is asked for ("grab the json files under web", but "list the go files in api").
  const anywhere = frame.directory === undefined;
  const placed = !anywhere && !EXPLICIT_LIST.test(text);
  if (frame.filters.type && (asked || (listy && anywhere) || COUNT.test(text) || placed)) return findStep(frame.filters.type, frame);
  if (frame.kind && !frame.filters.lines && (asked || (listy && anywhere))) return findStep(`*${frame.kind}*`, frame, MEDIUM);
  // "any sql under migrations?", "what markdown is there under docs": a file type named on its own (not "of python", a directory).
  const typeWord = object?.kind === 'words' && isTypeWord(object.text) && !(input.view && hasDirectoryNamed(input.view, object.text));
  if (typeWord && (verb || !anywhere || /^(?:any|all|every|what|which)\b/i.test(text))) return findStep(TYPE_GLOBS[object.text.toLowerCase()], frame);
  return undefined;
}

/** Asks for a listing of one directory rather than files found below it. */
const EXPLICIT_LIST = /\b(?:list|listing|ls|dir|show|display|print|enumerate|browse|dump|tree)\b|^what\b.*\b(?:is|are)\s+(?:in|inside)\b/i;
/** What may stand around a bare pattern: "*.lock anywhere", "all *.sql files". */
const AROUND_A_PATTERN = /^(?:files?|anywhere|everywhere|all|every|any|only|just)$/i;

function onlyThePattern(frame: Frame): boolean {
  const object = frame.object;
  return frame.sentence.rest().every((token) => (object?.kind === 'glob' && token.text === object.text) || FUNCTION_WORDS.has(token.lower) || AROUND_A_PATTERN.test(token.text));
}

function readIntent(input: RuleInput): RuleOutcome {
  const { text, frame, references, view } = input;
  const range = frame.filters.lines;
  if (!range && !READ_VERB.test(text)) return undefined;
  // A where-question asks where something is, not to see it ("where is X read from").
  if (!range && /^where\b/i.test(text) && frame.files.length === 0) return undefined;
  const file = namedFile(frame, view);
  if (file) return step('read_file', { path: file, ...(range ?? {}) });
  if (references.file) return step('read_file', { ...(references.file.value ? { path: references.file.value } : {}), ...(range ?? {}) }, references.file.value ? HIGH : LOW);
  // "the server file" with a line range: the one file of that name.
  const kindFile = frame.kind && view ? stemMatch(frame.kind, view) : undefined;
  if (kindFile && (range || /\b(?:open|read|cat|view|pull\s+up|print)\b/i.test(text))) return step('read_file', { path: kindFile, ...(range ?? {}) }, MEDIUM);
  // "the logger", "the readme": one file of the workspace by its name without extension.
  if (range || /\b(?:open|read|cat|view|pull\s+up|print|show)\b/i.test(text)) {
    const byStem = frame.sentence
      .rest()
      .filter((token) => token.index > 0 && frame.sentence.tokens[token.index - 1]?.lower === 'the')
      .map((token) => fileByStem(token, view))
      .find(Boolean);
    if (byStem) return step('read_file', { path: byStem, ...(range ?? {}) }, MEDIUM);
  }
  if (range) return step('read_file', { ...range }, LOW);
  return undefined;
}

/** The first file the query names, as a path: joined with the place it names, or the one file of a well-known name. */
function namedFile(frame: Frame, view?: WorkspaceView): string | undefined {
  const file = frame.files.find((candidate) => view?.kind(clean(candidate)) !== 'directory' && !candidate.endsWith('/'));
  if (!file) return undefined;
  // "the readme", "the makefile": a well-known name without its extension.
  return view && view.kind(clean(file)) === undefined && !/[./]/.test(file) ? (stemMatch(file, view) ?? file) : joinLocation(clean(file), frame, view);
}

/** "what does package.json contain", "what's inside tsconfig.json", "contents of .nvmrc": the file's text is the answer. */
const ASKS_CONTENTS =
  /^(?:what|whats|what's|(?:show|tell)(?:\s+me)?\s+what)\b.*\b(?:contain(?:s|ed)?|consists?\s+of|says?|holds?|ha(?:s|ve)\s+in\s+it|in\s+it|inside|written|stored|look\s+like|contents?|(?:is|are)\s+(?:in|inside))\b|\bcontents?\s+of\b/i;

function contentsIntent(input: RuleInput): RuleOutcome {
  const { text, frame, view } = input;
  // "what files contain X", "which scripts say hello": files are what is asked for, X the text — a search.
  if (!ASKS_CONTENTS.test(text) || /^(?:what|which)\s+(?:(?!does|do|did|is|are)\w+\s+)?(?:files?|folders?|scripts?|directories)(?![\w./-])/i.test(text)) return undefined;
  const file = namedFile(frame, view);
  // Something else asked about besides the file ("what does package.json contain about lodash") is searched for.
  const object = frame.object;
  if (!file || (object && object.kind !== 'file' && !frame.files.includes(object.text))) return undefined;
  return step('read_file', { path: file, ...(frame.filters.lines ?? {}) });
}

function clean(candidate: string): string {
  return candidate.replace(/^\.\/(?=.)/, '').replace(/(?<=.)\/+$/, '');
}

function listIntent(input: RuleInput): RuleOutcome {
  const { text, frame, references, view } = input;
  if (!LIST_VERB.test(text) && !frame.filters.recursive && frame.filters.hidden === undefined && frame.filters.limitOf !== 'files') return undefined;
  const directory = frame.directory ?? bareDirectory(frame, view) ?? (references.directory && references.directory.slot !== 'cwd' ? undefined : '.');
  const args: Record<string, unknown> = directory === undefined ? {} : { directory };
  if (frame.filters.recursive) args.recursive = true;
  if (frame.filters.hidden) args.hidden = true;
  const pattern = frame.filters.type ?? (frame.filters.hidden === 'only' ? '.*' : undefined);
  if (pattern) args.pattern = pattern;
  return withLimit(step('list_files', args, directory === undefined ? LOW : HIGH), frame);
}

/** "list services", "browse public": a directory of the workspace named on its own. */
function bareDirectory(frame: Frame, view?: WorkspaceView): string | undefined {
  for (const token of frame.sentence.rest()) {
    if (token.quoted || FUNCTION_WORDS.has(token.lower)) continue;
    const word = clean(token.text);
    if (/^(?:root|repo|repository|project|codebase|workspace)$/i.test(word) && view?.kind(word) !== 'directory') return '.';
    if (view?.kind(word) === 'directory' || token.text.endsWith('/') || (isSlashedPath(word) && view?.kind(word) !== 'file')) return word;
    if (view && !word.includes('.') && hasDirectoryNamed(view, word)) return word;
  }
  return undefined;
}

/** A query that is only a path ("src/app.ts", "docs/"): show it. */
function barePathIntent(input: RuleInput): RuleOutcome {
  const { frame, view } = input;
  const words = input.text.split(/\s+/);
  const only = words.length <= 3 ? (frame.files[0] ?? bareDirectory(frame, view)) : undefined;
  if (!only) return undefined;
  const directory = view?.kind(clean(only)) === 'directory' || only.endsWith('/');
  return directory ? step('list_files', { directory: clean(only) }, MEDIUM) : step('read_file', { path: only }, MEDIUM);
}

function withDirectory(args: Record<string, unknown>, directory: string | undefined): Record<string, unknown> {
  return directory && directory !== '.' ? { ...args, directory } : args;
}

function withLimit(planned: PlanStep, frame: Frame): PlanStep {
  if (frame.filters.limit !== undefined) planned.args.max_results = frame.filters.limit;
  return planned;
}

