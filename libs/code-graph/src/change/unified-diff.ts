import { QuarryError } from '@quarry/contracts';

/** One hunk of a unified diff: `@@ -oldStart,oldLines +newStart,newLines @@`, with its lines (`' '`, `-`, `+` first). */
export interface Hunk {
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** The changes of one file in a diff. Paths are root-relative; an added file has no old path, a deleted one no new path. */
export interface FileDiff {
  oldPath?: string;
  newPath?: string;
  hunks: Hunk[];
  binary: boolean;
}

/** At most this much diff text is read (a diff the size of a repository is not a change to analyse). */
export const MAX_DIFF_BYTES = 16 * 1024 * 1024;

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * The files and hunks of a unified diff (`git diff`, `diff -u`): `a/`/`b/` prefixes dropped,
 * `/dev/null` for added and deleted files. Typed `diff_invalid` for text that is not a diff, a
 * hunk whose line counts do not match its lines, or one outside any file.
 */
export function parseUnifiedDiff(text: string): FileDiff[] {
  if (text.length > MAX_DIFF_BYTES) {
    throw new QuarryError('diff_invalid', `The diff is ${text.length} bytes; at most ${MAX_DIFF_BYTES} are read.`, { suggestion: 'Analyse a smaller change, or give two refs instead.' });
  }
  const lines = text.split('\n');
  const files: FileDiff[] = [];
  let current: FileDiff | undefined;
  let pendingOld: string | undefined;
  /** The current file was opened by a `diff --git` line and has no `---`/`+++` yet. */
  let opened = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (line.startsWith('diff --git ')) {
      const match = /^diff --git (?:"?a\/(.+?)"?) (?:"?b\/(.+?)"?)$/.exec(line);
      current = { oldPath: match?.[1], newPath: match?.[2], hunks: [], binary: false };
      files.push(current);
      pendingOld = undefined;
      opened = true;
    } else if (line.startsWith('--- ')) {
      pendingOld = pathOf(line.slice(4));
    } else if (line.startsWith('+++ ') && pendingOld !== undefined) {
      const newPath = pathOf(line.slice(4));
      // `git diff` names the file on its `diff --git` line first; plain `diff -u` starts each file here.
      if (current === undefined || current.hunks.length > 0 || !opened) {
        current = { hunks: [], binary: false };
        files.push(current);
      }
      opened = false;
      current.oldPath = pendingOld === '/dev/null' ? undefined : pendingOld;
      current.newPath = newPath === '/dev/null' ? undefined : newPath;
      pendingOld = undefined;
    } else if (line.startsWith('Binary files ') || line.startsWith('GIT binary patch')) {
      if (current) current.binary = true;
    } else if (line.startsWith('new file mode') && current) {
      current.oldPath = undefined;
    } else if (line.startsWith('deleted file mode') && current) {
      current.newPath = undefined;
    } else if (line.startsWith('rename from ') && current) {
      current.oldPath = line.slice('rename from '.length);
    } else if (line.startsWith('rename to ') && current) {
      current.newPath = line.slice('rename to '.length);
    } else if (line.startsWith('@@')) {
      const match = HUNK.exec(line);
      if (match === null || current === undefined) {
        throw new QuarryError('diff_invalid', `Line ${index + 1} of the diff is a hunk header outside a file, or malformed: "${line.slice(0, 80)}".`, { suggestion: 'Give the output of `git diff` or `diff -u` as it is.' });
      }
      const hunk: Hunk = { header: line, oldStart: Number(match[1]), oldLines: match[2] === undefined ? 1 : Number(match[2]), newStart: Number(match[3]), newLines: match[4] === undefined ? 1 : Number(match[4]), lines: [] };
      let old = 0;
      let added = 0;
      while (old < hunk.oldLines || added < hunk.newLines) {
        index++;
        const body = lines[index];
        if (body === undefined) break;
        if (body.startsWith('\\')) continue; // "\ No newline at end of file"
        const marker = body[0] ?? ' ';
        if (marker === ' ' || body === '') {
          old++;
          added++;
        } else if (marker === '-') old++;
        else if (marker === '+') added++;
        else break;
        hunk.lines.push(body === '' ? ' ' : body);
      }
      if (old !== hunk.oldLines || added !== hunk.newLines) {
        throw new QuarryError('diff_invalid', `The hunk "${line}" of ${current.newPath ?? current.oldPath} has ${old} old and ${added} new lines, not the ${hunk.oldLines} and ${hunk.newLines} its header says.`, {
          suggestion: 'The diff was cut or edited by hand: make it again with `git diff`.',
        });
      }
      while (lines[index + 1]?.startsWith('\\')) index++;
      current.hunks.push(hunk);
    }
  }
  const real = files.filter((file) => file.oldPath !== undefined || file.newPath !== undefined);
  if (real.length === 0 && text.trim() !== '') {
    throw new QuarryError('diff_invalid', 'This text has no file headers (`--- a/…`, `+++ b/…`) of a unified diff.', { suggestion: 'Give the output of `git diff` or `diff -u`.' });
  }
  return real;
}

function pathOf(header: string): string {
  const path = header.split('\t')[0].trim().replace(/^"|"$/g, '');
  if (path === '/dev/null') return path;
  return path.replace(/^[ab]\//, '');
}

/**
 * The text after a file's hunks are applied to `text`, as `git apply` does without fuzz: each
 * hunk's context and removed lines must be at its line, or (like patch's offset search) at one
 * other place nearby. Typed `diff_not_applicable` naming the file and the hunk that does not fit.
 */
export function applyHunks(path: string, text: string, hunks: readonly Hunk[]): string {
  const lines = text.split('\n');
  const output: string[] = [];
  let cursor = 0;
  let offset = 0;
  for (const hunk of hunks) {
    const expected = hunk.lines.filter((line) => line[0] !== '+').map((line) => line.slice(1));
    let start = hunk.oldLines === 0 ? hunk.oldStart + offset : hunk.oldStart - 1 + offset;
    if (!matchesAt(lines, expected, start)) {
      const found = nearestMatch(lines, expected, start, cursor);
      if (found === undefined) {
        throw new QuarryError('diff_not_applicable', `The hunk "${hunk.header}" of ${path} does not apply: its lines are not in the file at line ${hunk.oldStart} or near it.`, {
          suggestion: 'The diff was made against another version of the file: make it against the tree being analysed (or give the refs it was made between).',
        });
      }
      offset += found - start;
      start = found;
    }
    output.push(...lines.slice(cursor, start));
    for (const line of hunk.lines) if (line[0] !== '-') output.push(line.slice(1));
    cursor = start + expected.length;
  }
  output.push(...lines.slice(cursor));
  return output.join('\n');
}

function matchesAt(lines: readonly string[], expected: readonly string[], start: number): boolean {
  if (start < 0 || start + expected.length > lines.length) return false;
  for (let index = 0; index < expected.length; index++) if (lines[start + index].replace(/\r$/, '') !== expected[index].replace(/\r$/, '')) return false;
  return true;
}

/** The closest line at or after `from` where `expected` matches, within 1,000 lines of `start`. */
function nearestMatch(lines: readonly string[], expected: readonly string[], start: number, from: number): number | undefined {
  for (let distance = 1; distance <= 1000; distance++) {
    for (const candidate of [start - distance, start + distance]) if (candidate >= from && matchesAt(lines, expected, candidate)) return candidate;
  }
  return undefined;
}

/** Lines a file's hunks touch: removed ones (old numbering), added ones and the places lines were removed (new numbering). */
export function changedLines(hunks: readonly Hunk[]): { removed: number[]; added: number[]; removedAt: number[] } {
  const removed: number[] = [];
  const added: number[] = [];
  const removedAt: number[] = [];
  for (const hunk of hunks) {
    let old = hunk.oldStart;
    let fresh = hunk.newStart;
    for (const line of hunk.lines) {
      if (line[0] === '-') {
        removed.push(old++);
        removedAt.push(fresh);
      } else if (line[0] === '+') added.push(fresh++);
      else {
        old++;
        fresh++;
      }
    }
  }
  return { removed, added, removedAt };
}
