import type { PlanStep } from '../plan';
import { isGlob, TYPE_GLOBS } from './lexicon';

/**
 * Shell-like queries: `ls -R src`, `cat README.md`, `head -n 20 f`, `grep -rn foo src`,
 * `find . -name '*.ts'`, `rg foo`, `curl URL`, `tree`. Users type them out of habit; each maps to
 * one tool with certainty.
 */

const SURE = 0.95;

/** Splits like a shell would for simple cases: whitespace, with '…' and "…" kept together. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) words.push(match[1] ?? match[2] ?? match[3]);
  return words;
}

type ShellCommand = (words: string[]) => PlanStep | undefined;

const step = (name: string, args: Record<string, unknown>): PlanStep => ({ name, args, confidence: SURE });

const COMMANDS: Readonly<Record<string, ShellCommand>> = {
  ls: (words) => {
    const flags = words.filter((word) => /^-[A-Za-z]+$/.test(word)).join('');
    const target = words.find((word) => !word.startsWith('-'));
    // `ls src/*.ts`: the directory and a name pattern.
    const slash = target && isGlob(target) ? target.lastIndexOf('/') : -1;
    const args: Record<string, unknown> =
      target && isGlob(target) ? { directory: slash > 0 ? target.slice(0, slash) : '.', pattern: target.slice(slash + 1) } : { directory: target ?? '.' };
    if (/R/.test(flags)) args.recursive = true;
    // -a and -A show dot entries, which listings leave out otherwise.
    if (/[aA]/.test(flags)) args.hidden = true;
    return step('list_files', orderListArgs(args));
  },
  dir: (words) => COMMANDS.ls(words),
  tree: (words) => {
    const operands = words.filter((word, index) => !word.startsWith('-') && !/^-[LPI]$/.test(words[index - 1] ?? ''));
    return step('list_files', { directory: operands[0] ?? '.', recursive: true });
  },
  wc: (words) => readStep(words),
  cat: (words) => readStep(words),
  less: (words) => readStep(words),
  more: (words) => readStep(words),
  bat: (words) => readStep(words),
  head: (words) => {
    let count = 10;
    const rest: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const word = words[i];
      if (word === '-n' || word === '--lines') count = Number(words[++i]) || count;
      else if (/^-n\d+$/.test(word)) count = Number(word.slice(2));
      else if (/^-\d+$/.test(word)) count = Number(word.slice(1));
      else if (!word.startsWith('-')) rest.push(word);
    }
    return rest[0] ? step('read_file', { path: rest[0], start_line: 1, end_line: count }) : undefined;
  },
  sed: (words) => {
    const range = words.map((word) => /^(\d+),(\d+)p$/.exec(word)).find(Boolean);
    const file = words.filter((word) => !word.startsWith('-') && !/^\d+,\d+p$/.test(word)).pop();
    return range && file ? step('read_file', { path: file, start_line: Number(range[1]), end_line: Number(range[2]) }) : undefined;
  },
  grep: (words) => grepStep(words),
  egrep: (words) => grepStep(words),
  rg: (words) => grepStep(words),
  ag: (words) => grepStep(words),
  find: (words) => {
    const nameAt = words.findIndex((word) => word === '-name' || word === '-iname');
    const pattern = nameAt >= 0 ? words[nameAt + 1] : undefined;
    if (!pattern) return undefined;
    const start = words[0] && !words[0].startsWith('-') ? words[0] : '.';
    return step('find_files', start === '.' ? { pattern } : { pattern, directory: start });
  },
  fd: (words) => {
    const positional = words.filter((word) => !word.startsWith('-'));
    if (!positional[0]) return undefined;
    return step('find_files', positional[1] && positional[1] !== '.' ? { pattern: positional[0], directory: positional[1] } : { pattern: positional[0] });
  },
  curl: (words) => urlStep(words),
  wget: (words) => urlStep(words),
};

/** Arguments in the registry's order, so plans compare and print the same way. */
function orderListArgs(args: Record<string, unknown>): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  for (const key of ['directory', 'recursive', 'hidden', 'pattern']) if (args[key] !== undefined) ordered[key] = args[key];
  return ordered;
}

function stripToken(token: string): string {
  return token.replace(/^[("'`“]+/, '').replace(/[)"'`”,;:!?]+$/, '');
}

function readStep(words: string[]): PlanStep | undefined {
  const file = words.find((word) => !word.startsWith('-'));
  return file ? step('read_file', { path: file }) : undefined;
}

function urlStep(words: string[]): PlanStep | undefined {
  const url = words.find((word) => /^https?:\/\//i.test(word));
  return url ? step('fetch_url', { url }) : undefined;
}

/** grep/rg: the first operand is the pattern, the next the directory; --include/-g/-t give the file type. */
function grepStep(words: string[]): PlanStep | undefined {
  const operands: string[] = [];
  let glob: string | undefined;
  let max: number | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const include = /^--include=(.+)$/.exec(word) ?? /^--glob=(.+)$/.exec(word);
    const count = /^(?:-m|--max-count=?)(\d+)$/.exec(word);
    if (include) glob = include[1];
    else if (count) max = Number(count[1]);
    else if (word === '-m' || word === '--max-count') max = Number(words[++i]) || undefined;
    else if (word === '-g' || word === '--glob' || word === '--include') glob = words[++i];
    else if (word === '-t' || word === '--type') glob = TYPE_GLOBS[(words[++i] ?? '').toLowerCase()];
    else if (word === '-e') operands.unshift(words[++i]);
    else if (!word.startsWith('-') || operands.length > 0) operands.push(word);
  }
  const [pattern, directory] = operands;
  if (!pattern) return undefined;
  const args: Record<string, unknown> = { pattern };
  if (directory && directory !== '.') args.directory = stripToken(directory).replace(/(?<=.)\/+$/, '');
  if (glob) args.glob = glob;
  if (max !== undefined) args.max_results = max;
  return step('grep', args);
}

const GREP_COMMANDS = new Set(['grep', 'egrep', 'rg', 'ag']);
const ENGLISH_MARKERS = new Set(['for', 'in', 'under', 'inside', 'across', 'the', 'all', 'files', 'within', 'through', 'regex']);

/** A step for a query written as a shell command, or undefined. */
export function shellStep(text: string): PlanStep | undefined {
  const words = shellWords(text.trim());
  const command = words[0];
  if (!command || !Object.hasOwn(COMMANDS, command)) return undefined;
  // "find the config file" is English; shell `find` takes a path or an option next.
  const rest = words.slice(1);
  if (command === 'find' && rest[0] && !/^[.\/~-]/.test(rest[0]) && !rest.includes('-name')) return undefined;
  if ((command === 'dir' || command === 'more' || command === 'less' || command === 'tree') && rest.filter((word) => !word.startsWith('-')).length > 1) return undefined;
  // "grep for TODO in the api folder" is English around a grep: the intent rules read it better.
  if (GREP_COMMANDS.has(command) && rest.some((word) => ENGLISH_MARKERS.has(word.toLowerCase()))) return undefined;
  return COMMANDS[command](rest);
}
