/**
 * Stack-trace frames in a task's text, in the formats of the runtimes people paste: Python
 * (`File "x.py", line 3, in f`; IPython's `x.py in f(...)` with `--> 3` and `File x.py:3, in f`;
 * pytest's `x.py:3: in f`), JavaScript (`at f (x.js:3:7)`), Java (`at pkg.Cls.m(Cls.java:3)`), Go
 * (`pkg.F(...)` over `\t/x/y.go:3 +0x1d`) and Rust (`at src/x.rs:3:5`, panics `src/x.rs:3:5`).
 */
export interface StackFrame {
  /** The path as written (absolute, site-packages, Windows separators: resolved against the tree later). */
  path: string;
  line?: number;
  /** The function or method the frame is in (`Plot._repr_png_`, `parse_expr`). */
  symbol?: string;
  /** Position in the trace counted from the innermost frame (0 = where it was raised). */
  depth: number;
  /** Which trace of the task (chained exceptions print several), in order of appearance. */
  trace: number;
}

interface RawFrame {
  path: string;
  line?: number;
  symbol?: string;
  /** Offset in the text, to order frames. */
  at: number;
  /** Python, IPython and pytest print the innermost frame last; JavaScript, Java, Go and Rust first. */
  innermostLast: boolean;
}

const PYTHON = /File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?/g;
const IPYTHON_NEW = /File ([^\s,"]+?\.py):(\d+), in ([\w<>.]+)/g;
const IPYTHON_OLD = /^[ \t]*\[?(\S+?\.py)(?:\]\([^)\s]*\))? in ([\w<>.]+)\(/gm;
const IPYTHON_ARROW = /^-*> ?(\d+)\s/m;
const PYTEST = /^[ \t]*([\w./\\~-]+\.py):(\d+):(?: in ([\w<>.]+))?/gm;
const JAVASCRIPT = /\bat (?:(?:async )?([\w$.<>[\] ]+?) \()?((?:file:\/\/)?(?:[A-Za-z]:)?[^\s():]+\.(?:[cm]?[jt]sx?|vue|svelte)):(\d+)(?::\d+)?\)?/g;
const JAVA = /\bat ((?:[\w$]+\.)+)([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)/g;
const GO = /^[ \t]*([\w$./*()-]+)\(.*\)\n[ \t]+((?:[A-Za-z]:)?[^\s:]+\.go):(\d+)/gm;
const RUST = /(?:\bat |panicked at '[^']*', |panicked at )((?:[A-Za-z]:)?[^\s:'"]+\.rs):(\d+)(?::\d+)?/g;
const RUST_SYMBOL = /^\s*\d+: ((?:[\w<>]+::)+[\w<>]+)(?:::h[0-9a-f]{16})?\s*$/gm;

export function findStackFrames(text: string): StackFrame[] {
  const raw: RawFrame[] = [];
  for (const match of text.matchAll(PYTHON)) raw.push({ path: match[1], line: Number(match[2]), symbol: match[3], at: match.index, innermostLast: true });
  for (const match of text.matchAll(IPYTHON_NEW)) raw.push({ path: match[1], line: Number(match[2]), symbol: match[3], at: match.index, innermostLast: true });
  for (const match of text.matchAll(IPYTHON_OLD)) {
    // The arrowed line below the frame's header is the line the frame was at.
    const following = text.slice(match.index + match[0].length, match.index + match[0].length + 2000);
    const arrow = IPYTHON_ARROW.exec(following.slice(0, nextFrameOffset(following)));
    raw.push({ path: match[1], line: arrow ? Number(arrow[1]) : undefined, symbol: match[2], at: match.index, innermostLast: true });
  }
  for (const match of text.matchAll(PYTEST)) raw.push({ path: match[1], line: Number(match[2]), symbol: match[3], at: match.index, innermostLast: true });
  for (const match of text.matchAll(JAVASCRIPT)) raw.push({ path: match[2].replace(/^file:\/\//, ''), line: Number(match[3]), symbol: match[1]?.trim(), at: match.index, innermostLast: false });
  for (const match of text.matchAll(JAVA)) {
    const packagePath = match[1].split('.').slice(0, -2).join('/');
    raw.push({ path: packagePath ? `${packagePath}/${match[3]}` : match[3], line: Number(match[4]), symbol: `${match[1].split('.').slice(-2, -1)[0]}.${match[2]}`, at: match.index, innermostLast: false });
  }
  for (const match of text.matchAll(GO)) raw.push({ path: match[2], line: Number(match[3]), symbol: goSymbol(match[1]), at: match.index, innermostLast: false });
  const rustSymbols = [...text.matchAll(RUST_SYMBOL)];
  for (const match of text.matchAll(RUST)) {
    // A backtrace prints `N: crate::module::function` on the line above `at src/x.rs:L:C`.
    const above = rustSymbols.filter((symbol) => symbol.index < match.index && match.index - symbol.index < 400).pop();
    raw.push({ path: match[1], line: Number(match[2]), symbol: above?.[1].split('::').slice(-1)[0], at: match.index, innermostLast: false });
  }
  return orderByDepth(deduplicate(raw));
}

/** One frame per place: the formats overlap (a pytest line also reads as a path with a line). */
function deduplicate(frames: RawFrame[]): RawFrame[] {
  const seen = new Map<string, RawFrame>();
  for (const frame of frames.sort((a, b) => a.at - b.at)) {
    const key = `${frame.path}\0${frame.line ?? ''}\0${frame.at}`;
    const nearby = [...seen.values()].find((other) => other.path === frame.path && other.line === frame.line && Math.abs(other.at - frame.at) < 8);
    if (nearby !== undefined) {
      nearby.symbol ??= frame.symbol;
      continue;
    }
    seen.set(key, frame);
  }
  return [...seen.values()];
}

/**
 * Depth from the innermost frame, per trace: frames more than a few lines apart start a new
 * trace (chained exceptions print one each), and each trace is counted in its own direction.
 */
function orderByDepth(frames: RawFrame[]): StackFrame[] {
  const traces: RawFrame[][] = [];
  let current: RawFrame[] = [];
  for (const frame of frames) {
    const previous = current[current.length - 1];
    if (previous !== undefined && (frame.at - previous.at > 1500 || frame.innermostLast !== previous.innermostLast)) {
      traces.push(current);
      current = [];
    }
    current.push(frame);
  }
  if (current.length > 0) traces.push(current);
  const result: StackFrame[] = [];
  traces.forEach((trace, number) => {
    trace.forEach((frame, position) => {
      const depth = frame.innermostLast ? trace.length - 1 - position : position;
      result.push({ path: frame.path, ...(frame.line === undefined ? {} : { line: frame.line }), ...(frame.symbol === undefined ? {} : { symbol: frame.symbol }), depth, trace: number });
    });
  });
  return result;
}

function nextFrameOffset(text: string): number {
  const next = /^\S+\.py(?:\]\([^)\s]*\))? in [\w<>.]+\(/m.exec(text);
  return next ? next.index : text.length;
}

/** `main.(*Server).Start` → `Server.Start`; `github.com/x/y/pkg.Run` → `Run`. */
function goSymbol(raw: string): string {
  const last = raw.slice(raw.lastIndexOf('/') + 1);
  const parts = last.split('.').slice(1).map((part) => part.replace(/^\(\*?|\)$/g, ''));
  return parts.join('.') || last;
}
