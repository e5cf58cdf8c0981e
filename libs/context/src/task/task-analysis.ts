import { emitIdentifierTerms } from '@quarry/code-index';
import { findStackFrames, type StackFrame } from './stack-frames';

/**
 * What a task's text says about where to look, read without a model: the title, the stack
 * frames, paths and dotted names written in it, identifiers (and where they appear: code
 * blocks and backticks weigh more than prose), option names, error lines, the terms for BM25,
 * and whether it asks about tests or documentation.
 */
export interface TaskAnalysis {
  title: string;
  frames: StackFrame[];
  /** Paths as written outside frames (`sympy/printing/latex.py`, `./util.py`, `latex.py`). */
  paths: string[];
  /** Dotted names (`sympy.printing.latex`, `Session.resolve_redirects`, `flask.Config.from_file`). */
  dotted: DottedMention[];
  identifiers: Map<string, IdentifierMention>;
  /** Command-line options (`--collect-only`), lower-cased. */
  options: string[];
  /** BM25 query: term → weight (title and code count more, repeats saturate). */
  queryTerms: Map<string, number>;
  /** The task without the code lines stack traces echo: where quoted error messages are looked for. */
  messageText: string;
  /** The same without other programs' output (listings and reports): a message matched only there says little. */
  ownText: string;
  intent: TaskIntent;
}

export interface IdentifierMention {
  name: string;
  /** How much the mention says: title > code > prose; repeats add with diminishing returns. */
  weight: number;
  inTitle: boolean;
  inCode: boolean;
  /** Written in code, as a call, after a dot, or shaped like a name (`snake_case`, `camelCase`, a capitalised word inside a sentence). */
  codeShaped: boolean;
  /** Called with no receiver (`convert_to(x)`): a function rather than a method. */
  calledBare: boolean;
  /** Written after a dot (`x.simplify`, `Session.resolve_redirects`): an attribute or a method. */
  afterDot: boolean;
  /** Written somewhere other than a stack trace's lines. */
  outsideTraceback: boolean;
  /** Defined by the task's own code (`M1 = …`, `def inner():`, `import numpy as np`): the user's name, not the repository's. */
  ownName: boolean;
  count: number;
}

export interface DottedMention {
  parts: string[];
  inCode: boolean;
  inTitle: boolean;
}

/** What the task asks for beyond behaviour: tests (write, fix, add a test) or documentation. */
export interface TaskIntent {
  tests: boolean;
  docs: boolean;
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;
const PATH = /(?:[A-Za-z]:)?[\w.~\-\\/]*[\w-]+\.(?:py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|java|kt|scala|go|rs|c|h|cc|cpp|hpp|cs|rb|php|swift|rst|md|txt|toml|cfg|ini|yaml|yml|json)\b/g;
const DOTTED = /(?<![\w.])[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+(?![\w])/g;
const OPTION = /(?<![\w-])--[A-Za-z][A-Za-z0-9-]{2,}/g;
const FENCE = /^[ \t]*(```|~~~)/;
const TESTS_WANTED = /\b(add|write|missing|new|extend|update|improve|fix(?:ing)?)\s+(?:a\s+|the\s+|some\s+|more\s+)?(?:unit\s+|regression\s+)?tests?\b|\btest\s+(?:coverage|suite is|case is wrong)|\bflaky\s+tests?\b/i;
const DOCS_WANTED = /\b(documentation|docs?\b|readme|docstrings?|typo)/i;
const DOCS_ASKED = /\b(update|fix|improve|add\s+to|document\s+in)\s+(?:the\s+)?(?:docs|documentation|readme)\b/i;

/**
 * The weight of one identifier occurrence by where it is: the title says what the task is about;
 * code and backticks hold names; prose words are names only by chance; the lines of a stack trace
 * (frames and the code they echo) are already counted by the frames themselves.
 */
const WEIGHT = { title: 3, titleWord: 1, code: 1, prose: 0.35, traceback: 0.3 };
/** A query term of the title gets this much on top of its saturated count; a term only in a trace's lines counts this much a use. */
const TITLE_TERM = 2;
const TRACEBACK_TERM = 1;
/**
 * A term only in another program's output (a `pip list`, a test session's report, a linter's
 * messages) counts this much a use: such listings name every package and message there is, and
 * read as the topic they are not.
 */
const OUTPUT_TERM = 0.2;

export function analyzeTask(text: string): TaskAnalysis {
  // HTML comments are the issue template's instructions, invisible once rendered: never the task's words.
  const lines = text
    .replace(/\r\n?/g, '\n')
    .replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, ''))
    .split('\n');
  const title = (lines.find((line) => line.trim() !== '') ?? '').trim();
  const codeLines = codeLineMask(lines);
  const tracebackLines = tracebackLineMask(lines);
  const outputLines = outputLineMask(lines, codeLines);
  const frames = findStackFrames(lines.join('\n'));

  const identifiers = new Map<string, IdentifierMention>();
  const queryTerms = new Map<string, number>();
  const dotted: DottedMention[] = [];
  const paths = new Set<string>();
  const options = new Set<string>();
  const titleTerms = new Set<string>();
  // Another program's output counts once per name and term however often it prints them.
  const fromOutput = new Map<string, number>();
  const outputTerms = new Set<string>();
  let titleSeen = false;
  lines.forEach((line, index) => {
    const isTitle = !titleSeen && line.trim() !== '';
    if (isTitle) titleSeen = true;
    const inOutput = outputLines[index];
    // A linter's `path:line:col: C0103 …` reads like a frame; in a report it is output.
    const inTraceback = tracebackLines[index] && !inOutput;
    for (const { text: segment, code } of splitBackticks(line, codeLines[index])) {
      for (const match of segment.matchAll(PATH)) paths.add(match[0]);
      for (const match of segment.matchAll(OPTION)) options.add(match[0].toLowerCase());
      for (const match of segment.replace(PATH, ' ').matchAll(DOTTED)) dotted.push({ parts: match[0].split('.'), inCode: code, inTitle: isTitle });
      // A path's words are the explicit signal's: as query words they would count it twice.
      for (const match of segment.replace(PATH, ' ').matchAll(IDENTIFIER)) {
        const name = match[0];
        const before = segment[match.index - 1];
        const calledBare = segment[match.index + name.length] === '(' && before !== '.';
        const afterDot = before === '.';
        const codeShaped = calledBare || afterDot || code || /_|[a-z][A-Z]|[A-Z]{2,}[a-z]|[0-9]/.test(name) || (/^[A-Z][a-z]/.test(name) && !sentenceStart(segment, match.index));
        let weight = inTraceback || inOutput ? WEIGHT.traceback : isTitle ? (codeShaped ? WEIGHT.title : WEIGHT.titleWord) : codeShaped ? WEIGHT.code : WEIGHT.prose;
        if (inOutput) {
          weight = fromOutput.has(name) ? 0 : weight;
          fromOutput.set(name, 1);
        }
        addIdentifier(identifiers, name, weight, { inTitle: isTitle, inCode: code, codeShaped, calledBare, afterDot, inTraceback });
        emitIdentifierTerms(name, (term) => {
          if (isTitle) titleTerms.add(term);
          if (inOutput && outputTerms.has(term)) return;
          if (inOutput) outputTerms.add(term);
          queryTerms.set(term, (queryTerms.get(term) ?? 0) + (inOutput ? OUTPUT_TERM : inTraceback ? TRACEBACK_TERM : 1));
        });
      }
    }
  });
  const own = ownNames(lines, codeLines, tracebackLines);
  for (const mention of identifiers.values()) {
    mention.weight = saturate(mention.weight);
    mention.ownName = own.has(mention.name);
  }
  for (const [term, weight] of queryTerms) queryTerms.set(term, saturate(weight) + (titleTerms.has(term) ? TITLE_TERM : 0));
  return {
    title,
    frames,
    paths: [...paths],
    dotted,
    identifiers,
    options: [...options],
    queryTerms,
    messageText: lines.filter((line, index) => !tracebackLines[index] || !ECHOED_CODE.test(line)).join('\n'),
    ownText: lines.filter((line, index) => (!tracebackLines[index] || !ECHOED_CODE.test(line)) && !outputLines[index]).join('\n'),
    intent: { tests: TESTS_WANTED.test(text), docs: DOCS_WANTED.test(title) || DOCS_ASKED.test(text) },
  };
}

interface Occurrence {
  inTitle: boolean;
  inCode: boolean;
  codeShaped: boolean;
  calledBare: boolean;
  afterDot: boolean;
  inTraceback: boolean;
}

function addIdentifier(identifiers: Map<string, IdentifierMention>, name: string, weight: number, at: Occurrence): void {
  const mention = identifiers.get(name);
  if (mention === undefined) {
    identifiers.set(name, { name, weight, inTitle: at.inTitle, inCode: at.inCode, codeShaped: at.codeShaped, calledBare: at.calledBare, afterDot: at.afterDot, outsideTraceback: !at.inTraceback, ownName: false, count: 1 });
    return;
  }
  mention.weight += weight;
  mention.inTitle ||= at.inTitle;
  mention.inCode ||= at.inCode;
  mention.codeShaped ||= at.codeShaped;
  mention.calledBare ||= at.calledBare;
  mention.afterDot ||= at.afterDot;
  mention.outsideTraceback ||= !at.inTraceback;
  mention.count++;
}

/** Names a line of code binds: assignments, definitions, loop variables, import aliases (Python, JavaScript, Go, Rust). */
const BINDINGS: readonly RegExp[] = [
  /^\s*(?:(?:const|let|var|val|mut)\s+)?([A-Za-z_$][\w$]*(?:\s*,\s*[A-Za-z_$][\w$]*)*)\s*(?::\s*[\w[\]., |<>]+)?\s*(?::=|=(?!=))/,
  /^\s*(?:async\s+)?(?:def|class|function|func|fn)\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:async\s+)?for\s+\(?\s*(?:const|let|var)?\s*([A-Za-z_$][\w$]*(?:\s*,\s*[A-Za-z_$][\w$]*)*)\s+(?:in|of)\b/,
  /\bimport\s+[\w.]+\s+as\s+([A-Za-z_]\w*)/,
  /\bwith\s+.+\s+as\s+([A-Za-z_]\w*)\s*:/,
];

/**
 * The names the task's own code binds (`M1 = Matrix.zeros(0, 0)`, `def inner():`, `import sympy
 * as sy`): a user's variables and helpers, which the repository defines only by coincidence.
 * Interpreter prompts (`>>> x = …`) count; a traceback's echoed lines do not (they are the
 * repository's own code).
 */
function ownNames(lines: readonly string[], codeLines: readonly boolean[], tracebackLines: readonly boolean[]): Set<string> {
  const names = new Set<string>();
  lines.forEach((line, index) => {
    if (!codeLines[index] || tracebackLines[index]) return;
    const code = line.replace(/^\s*(?:>>>|\.\.\.|In \[\d+\]:)\s?/, '');
    for (const binding of BINDINGS) {
      const match = binding.exec(code);
      if (match) for (const name of match[1].split(',')) names.add(name.trim());
    }
  });
  return names;
}

/** A capitalised word opening a sentence is English; one inside a sentence is usually a class name (`Derivative`). */
function sentenceStart(segment: string, index: number): boolean {
  const before = segment.slice(0, index).trimEnd();
  return before === '' || /[.!?:;#>*-]$/.test(before);
}

/** Repeats add less and less: 1 → 1, 3 → 1.8, 10 → 2.6. */
function saturate(weight: number): number {
  return weight <= 1 ? weight : 1 + Math.log(weight);
}

const FRAME_LINE = /File "[^"]+", line \d+|^\s*\S+\.py:\d+(?::| in )|^\s*\[?\S+\.py(?:\]\([^)\s]*\))? in [\w<>.]+\(|^\s*File \S+\.py:\d+, in |^\s*at \S+[ (]|^Traceback \(most recent call last\)/;
/** The source lines a traceback prints under a frame: IPython numbers them (`--> 343     return x`). */
const ECHOED_CODE = /^\s*(-*>\s*)?\d+\s{1,}\S|^\s{2,}\S/;

/**
 * Which lines belong to a stack trace: the frame lines, and the source lines printed under them
 * (IPython's numbered lines, Python's indented line after each `File "…"`), up to the next line
 * that is neither — the exception's own line, with its message, is not part of it.
 */
function tracebackLineMask(lines: readonly string[]): boolean[] {
  const mask = new Array<boolean>(lines.length).fill(false);
  let inFrame = false;
  lines.forEach((line, index) => {
    if (FRAME_LINE.test(line)) {
      mask[index] = true;
      inFrame = true;
      return;
    }
    if (inFrame && line.trim() !== '' && ECHOED_CODE.test(line)) {
      mask[index] = true;
      return;
    }
    if (line.trim() !== '') inFrame = false;
  });
  return mask;
}

/** Lines another program printed: package listings, test-session reports, linter messages, banners. */
const OUTPUT_LINE: readonly RegExp[] = [
  // pip list (`aiohttp   3.6.2   /path`), pip freeze (`attrs==19.3.0`), their header rules
  /^\s*[A-Za-z0-9][\w.\-[\]]*\s+v?\d+(?:\.[\w+]+)+(?:\s+\S+)?\s*$/,
  /^\s*[A-Za-z0-9][\w.\-[\]]*(?:==|\s@\s)\S+\s*$/,
  /^\s*Package\s+Version\b/,
  // rules and banners (`=== test session starts ===`, `-----`, `*****`)
  /[=_*~-]{5,}/,
  // a linter's messages (`src/a.py:12:0: C0103: …`, `************* Module a`)
  /^\s*\S+:\d+:\d+: [A-Z]\d{4}\b/,
  // a test session (`platform linux -- Python 3.7`, `collected 3 items`, `test_a.py F [100%]`, `FAILED test_a.py::t - …`)
  /^\s*(?:platform|rootdir|cachedir|plugins|configfile|testpaths|collecting|collected)\b/,
  /^\s*\S+\.py(?:::\S+)?\s+(?:[.FEsxX]+|PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/,
  /^\s*(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+\S+\.py/,
  /^\s*nox\s*>/,
];

/**
 * Which lines are another program's output: code lines that look like output, and whole code
 * blocks where most lines do (the rest of a `pip list` is package names; the frames and
 * assertion lines of a test session's report are part of the report).
 */
function outputLineMask(lines: readonly string[], codeLines: readonly boolean[]): boolean[] {
  const mask = lines.map((line, index) => codeLines[index] && OUTPUT_LINE.some((pattern) => pattern.test(line)));
  let start = 0;
  while (start < lines.length) {
    if (!codeLines[start] || FENCE.test(lines[start])) {
      start++;
      continue;
    }
    let end = start;
    while (end < lines.length && codeLines[end] && !FENCE.test(lines[end])) end++;
    const content = [];
    for (let index = start; index < end; index++) if (lines[index].trim() !== '') content.push(index);
    const output = content.filter((index) => mask[index]).length;
    if (content.length >= 4 && output >= 0.5 * content.length) for (const index of content) mask[index] = true;
    start = end;
  }
  return mask;
}

/**
 * Which lines are code: inside fenced blocks, indented blocks after a blank line, interpreter
 * prompts (`>>>`, `In [3]:`), and tracebacks.
 */
function codeLineMask(lines: readonly string[]): boolean[] {
  const mask = new Array<boolean>(lines.length).fill(false);
  let fenced = false;
  let indentedBlock = false;
  lines.forEach((line, index) => {
    if (FENCE.test(line)) {
      fenced = !fenced;
      mask[index] = true;
      return;
    }
    if (fenced) {
      mask[index] = true;
      return;
    }
    const previousBlank = index === 0 || lines[index - 1].trim() === '';
    if (/^( {4}|\t)\S/.test(line) && (previousBlank || indentedBlock)) indentedBlock = true;
    else if (line.trim() !== '') indentedBlock = false;
    mask[index] = indentedBlock || /^\s*(>>>|\.\.\.|In \[\d+\]:|Out\[\d+\]:|\$ |Traceback|File "|E   )/.test(line);
  });
  return mask;
}

/** A line cut into code (inside backticks, or the whole line when it is code) and prose. */
function splitBackticks(line: string, codeLine: boolean): { text: string; code: boolean }[] {
  if (codeLine) return [{ text: line, code: true }];
  const segments: { text: string; code: boolean }[] = [];
  const parts = line.split('`');
  // An odd number of backticks leaves the last one unmatched: the text after it is prose.
  parts.forEach((part, index) => {
    const code = index % 2 === 1 && index < parts.length - (parts.length % 2 === 0 ? 1 : 0);
    if (part !== '') segments.push({ text: part, code });
  });
  return segments;
}
