import type { SearchMatch, SearchResult } from './search-types';

export interface FormatOptions {
  /** Printed above the matches, e.g. `grep "TODO\(\w+\)"`; nothing when absent. */
  title?: string;
}

/**
 * Matches as ripgrep prints them without headings: `path:line:text` for a matching line,
 * `path-line-text` for context, `--` between separate groups; overlapping context of nearby
 * matches in one file is printed once. A last line says what was left out.
 */
export function formatMatches(result: SearchResult, options: FormatOptions = {}): string {
  const out: string[] = [];
  if (options.title !== undefined) out.push(options.title);
  let previous: { path: string; line: number } | undefined;
  for (const block of blocksOf(result.matches)) {
    if (previous !== undefined) out.push('--');
    for (const [line, entry] of block.lines) out.push(`${block.path}${entry.isMatch ? ':' : '-'}${line}${entry.isMatch ? ':' : '-'}${entry.text}`);
    previous = block;
  }
  out.push(summaryLine(result));
  return out.join('\n');
}

interface Block {
  path: string;
  /** Last line number in the block. */
  line: number;
  lines: Map<number, { text: string; isMatch: boolean }>;
}

/** Groups matches (sorted by path, then line) into runs of contiguous lines per file. */
function blocksOf(matches: readonly SearchMatch[]): Block[] {
  const blocks: Block[] = [];
  for (const match of matches) {
    const first = match.line - match.before.length;
    let block = blocks.at(-1);
    if (block === undefined || block.path !== match.path || first > block.line + 1) {
      block = { path: match.path, line: 0, lines: new Map() };
      blocks.push(block);
    }
    const put = (line: number, text: string, isMatch: boolean) => {
      const existing = block.lines.get(line);
      if (existing === undefined || (isMatch && !existing.isMatch)) block.lines.set(line, { text, isMatch });
      block.line = Math.max(block.line, line);
    };
    match.before.forEach((text, index) => put(first + index, text, false));
    put(match.line, match.text, true);
    match.after.forEach((text, index) => put(match.line + 1 + index, text, false));
  }
  // Insertion order can differ from line order when a match's context precedes lines already set.
  for (const block of blocks) block.lines = new Map([...block.lines].sort(([a], [b]) => a - b));
  return blocks;
}

function summaryLine(result: SearchResult): string {
  const files = `${result.filesMatched} ${result.filesMatched === 1 ? 'file' : 'files'}`;
  const shown = result.truncated ? `showing the first ${result.matches.length} of ${result.totalMatches} matching lines` : `${result.totalMatches} matching ${result.totalMatches === 1 ? 'line' : 'lines'}`;
  const searched = `${result.filesSearched} searched`;
  const timedOut = result.timedOut ? '; timed out, so only part of the workspace was searched' : '';
  return `(${shown} in ${files}, ${searched}${timedOut})`;
}
