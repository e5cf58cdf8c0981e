import { hasDirectoryNamed, type WorkspaceView } from '../workspace-view';
import { withoutQuotes } from '../deixis';

/** Pulling arguments out of a cleaned query. Each extractor returns undefined when it finds nothing. */

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/i;
const EXTENSIONLESS = /^(?:Dockerfile|Makefile|README|LICENSE|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|CHANGELOG|Containerfile)$/i;
const FILE_LIKE = /^(?:[\w@~.+-]+\/)*[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,9}$/;
const DEICTIC_WORDS = /^(?:this|that|these|those|here|the|current|same|previous|last|it|my|our|a|an|all|every|each|any|some|which|what|there|code|codebase|repo|repository|project|workspace|files?)$/i;

/** A URL as given, minus the sentence punctuation after it. */
export function urlIn(text: string): string | undefined {
  const match = URL_PATTERN.exec(text);
  if (!match) return undefined;
  let url = match[0].replace(/[.,;:!?]+$/, '');
  // A closing parenthesis belongs to the URL only if it opened one.
  while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) url = url.slice(0, -1);
  return url;
}

/** The first quoted string ("…", '…', `…`, “…”), without its quotes. */
export function quoted(text: string): string | undefined {
  const match = /"([^"]+)"|'([^']+)'|`([^`]+)`|“([^”]+)”/.exec(text);
  return match ? (match[1] ?? match[2] ?? match[3] ?? match[4]) : undefined;
}

export function stripToken(token: string): string {
  return token
    .replace(/#L\d+(?:-L?\d+)?$/, '').replace(/^[("'`“]+/, '').replace(/[)"'`”,;:!?]+$/, '').replace(/\.$/, '');
}

/** Whether a token names a file or directory: it has a slash, an extension, a well-known name, or exists. */
export function isPathLike(token: string, view?: WorkspaceView): boolean {
  if (token.length === 0 || /^https?:/i.test(token) || /[*?[\]{}]/.test(token)) return false;
  if (/^(?:\.{1,2}|~)?\//.test(token) || /^\.\.?$/.test(token)) return true;
  if (/^[\w@.+~-]+(?:\/[\w@.+-]*)+$/.test(token)) return true;
  if (FILE_LIKE.test(token) && !/^\d+(\.\d+)+$/.test(token) && !/^(?:e\.g|i\.e|etc)\.?$/i.test(token)) return true;
  if (EXTENSIONLESS.test(token)) return true;
  return view?.kind(token) !== undefined && !DEICTIC_WORDS.test(token);
}

/** Path-looking tokens outside quotes, in order. */
export function pathTokens(text: string, view?: WorkspaceView): string[] {
  const unquoted = withoutQuotes(text).replace(URL_PATTERN, ' ');
  const tokens = unquoted.split(/\s+/).map(stripToken).filter(Boolean);
  return tokens.filter((token) => isPathLike(token, view));
}

/** `[start, end]` from "lines 10-20", "line 5", "first 30 lines", "from line 40", "L10-L20". */
export function lineRange(text: string): { start_line?: number; end_line?: number } | undefined {
  const range = /\b(?:lines?|L)\s*(\d+)\s*(?:-|–|—|to|through|thru|until|till|and|\.\.)\s*(?:line\s*|L)?(\d+)\b/i.exec(text);
  if (range) return { start_line: Number(range[1]), end_line: Number(range[2]) };
  const hash = /#L(\d+)(?:-L?(\d+))?\b/.exec(text);
  if (hash) return { start_line: Number(hash[1]), end_line: Number(hash[2] ?? hash[1]) };
  const first = /\b(?:first|top|opening)\s+(\d+)\s+lines?\b/i.exec(text);
  if (first) return { start_line: 1, end_line: Number(first[1]) };
  if (/\b(?:first|top|opening)\s+line\b/i.test(text)) return { start_line: 1, end_line: 1 };
  const from = /\b(?:from|starting\s+(?:at|from)|after|beginning\s+at)\s+line\s+(\d+)\b/i.exec(text);
  if (from) return { start_line: Number(from[1]) };
  const single = /\bline\s+(?:number\s+)?(\d+)\b/i.exec(text);
  if (single) return { start_line: Number(single[1]), end_line: Number(single[1]) };
  return undefined;
}

const TYPE_EXTENSIONS: Readonly<Record<string, string>> = {
  typescript: 'ts', ts: 'ts', tsx: 'tsx', javascript: 'js', js: 'js', jsx: 'jsx', python: 'py', py: 'py', go: 'go', golang: 'go',
  rust: 'rs', rs: 'rs', java: 'java', kotlin: 'kt', ruby: 'rb', rb: 'rb', markdown: 'md', md: 'md', json: 'json', yaml: 'yml',
  yml: 'yml', css: 'css', html: 'html', shell: 'sh', sh: 'sh', bash: 'sh', c: 'c', cpp: 'cpp', php: 'php', toml: 'toml', sql: 'sql',
};

/** "*.ts" from "typescript files", "ts files", ".ts files", "*.ts". */
export function fileTypeGlob(text: string): string | undefined {
  const star = /(?:^|\s)(\*\*\/)?(\*\.[\w.]+)\b/.exec(text);
  if (star) return star[2];
  const named = /\b\.?([a-z+]+)\s+(?:source\s+)?files?\b/i.exec(text);
  const extension = named && TYPE_EXTENSIONS[named[1].toLowerCase()];
  return extension ? `*.${extension}` : undefined;
}

/** Whether a pattern reads as a regular expression rather than plain text. */
export function looksLikeRegex(pattern: string): boolean {
  return /^\^|(?<!\\)\$$|\\[bdwsBDWS]|\.[*+?]|\[[^\]]+\]|\w\|\w|\{\d+(?:,\d*)?\}|\(\?/.test(pattern);
}

/**
 * The directory a query points into ("in src/api", "under the api folder", "of lib"). A name
 * followed by "folder" wins, then one after in/under/inside, then one after of/from/at; a candidate
 * must look like a path, name an existing directory, or be called a folder.
 */
export function directoryPhrase(text: string, view?: WorkspaceView): string | undefined {
  const unquoted = withoutQuotes(text);
  let best: { candidate: string; rank: number; at: number } | undefined;
  const consider = (raw: string, rank: number, at: number, named: boolean) => {
    const candidate = stripToken(raw);
    if (!candidate || DEICTIC_WORDS.test(candidate) || PREPOSITIONS.test(candidate) || /^https?:/i.test(candidate)) return;
    if (named && NOT_A_NAME.test(candidate)) return;
    const plausible = named || candidate.includes('/') || /^\.{1,2}$/.test(candidate) || view?.kind(candidate) === 'directory' || (view !== undefined && !candidate.includes('.') && hasDirectoryNamed(view, candidate));
    if (plausible && (!best || rank < best.rank || (rank === best.rank && at < best.at))) best = { candidate, rank, at };
  };
  for (const match of unquoted.matchAll(NAMED_DIRECTORY)) consider(match[1], 0, match.index ?? 0, true);
  for (const match of unquoted.matchAll(AFTER_PREPOSITION)) consider(match[2], /^(?:of|from|at)$/i.test(match[1]) ? 2 : 1, match.index ?? 0, false);
  // "the root folder" is the workspace root.
  return best?.candidate.toLowerCase() === 'root' && view?.kind('root') === undefined ? '.' : best?.candidate;
}

/** Words that come before "directory" without naming one ("show directory contents", "root folder" aside). */
const NOT_A_NAME = /^(?:show|list|display|print|open|view|read|search|find|grep|whole|entire|parent|home|each|every|new|other|empty|which|what|whose|same|one|source|target|output|working|given|specific|particular)$/i;
const PREPOSITIONS = /^(?:in|under|inside|within|of|from|beneath|below|at|for|to|on)$/i;
const NAMED_DIRECTORY = /([\w@.~\/-]+)\s+(?:folder|directory|dir|package|module|subdirectory|subfolder)\b/gi;
const AFTER_PREPOSITION = /\b(in|under|inside|within|of|from|beneath|below|at)\s+(?:the\s+|my\s+|our\s+)?(?=([\w@.~\/-]+))/gi;

