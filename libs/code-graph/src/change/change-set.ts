import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { QuarryError } from '@quarry/contracts';
import type { SourceReader } from '../navigation-index';
import { applyHunks, parseUnifiedDiff, type FileDiff, type Hunk } from './unified-diff';

const run = promisify(execFile);

/** One file a change touches, with its text before and after (absent: the file did not exist then). */
export interface FileChange {
  /** The path after the change (before it, for a deleted file). */
  path: string;
  oldPath?: string;
  status: 'modified' | 'added' | 'deleted' | 'renamed';
  oldText?: string;
  newText?: string;
  hunks: Hunk[];
}

/** A change to analyse: which files, and what they were and became. */
export interface ChangeSet {
  files: FileChange[];
}

function statusOf(diff: FileDiff): FileChange['status'] {
  if (diff.oldPath === undefined) return 'added';
  if (diff.newPath === undefined) return 'deleted';
  return diff.oldPath !== diff.newPath ? 'renamed' : 'modified';
}

/**
 * A unified diff as a change to the tree `read` reads (the tree before it): each file's text is
 * read and the hunks applied; a hunk that does not fit is a typed `diff_not_applicable` naming it,
 * a file the diff changes that the tree lacks is `diff_not_applicable` too.
 */
export async function changeFromDiff(diffText: string, read: SourceReader): Promise<ChangeSet> {
  const files: FileChange[] = [];
  for (const diff of parseUnifiedDiff(diffText)) {
    if (diff.binary) continue;
    const status = statusOf(diff);
    const oldText = diff.oldPath === undefined ? undefined : await read(diff.oldPath);
    if (diff.oldPath !== undefined && oldText === undefined) {
      throw new QuarryError('diff_not_applicable', `The diff changes ${diff.oldPath}, which this tree does not have.`, { suggestion: 'Make the diff against the tree being analysed, with paths relative to its root.' });
    }
    const newText = diff.newPath === undefined ? undefined : applyHunks(diff.newPath, oldText ?? '', diff.hunks);
    files.push({ path: (diff.newPath ?? diff.oldPath)!, ...(diff.oldPath === undefined ? {} : { oldPath: diff.oldPath }), status, ...(oldText === undefined ? {} : { oldText }), ...(newText === undefined ? {} : { newText }), hunks: diff.hunks });
  }
  return { files };
}

const SAFE_REF = /^(?!-)[\w./@{}~^:-]{1,256}$/;

async function git(root: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', root, ...args], { maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', HOME: process.env.HOME ?? '/' } });
  return stdout;
}

/** A ref of the checkout at `root` as a commit id, or a typed `ref_not_found`. */
export async function commitOf(root: string, ref: string): Promise<string> {
  if (!SAFE_REF.test(ref)) throw new QuarryError('ref_not_found', `"${ref.slice(0, 80)}" is not a ref name.`, { suggestion: 'Give a branch, a tag or a commit id, e.g. HEAD~1 or main.' });
  try {
    return (await git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
  } catch {
    throw new QuarryError('ref_not_found', `No commit "${ref}" in the repository at ${root}.`, { suggestion: 'Check the name with `git log --oneline` (and that the directory is a git checkout).' });
  }
}

/**
 * The change between two commits of the checkout at `root`, or from one commit to the working
 * tree as it is on disk (`to` undefined: committed and uncommitted edits; untracked files are not
 * part of it, as `git diff` leaves them out).
 */
export async function changeFromGit(root: string, from: string, to?: string): Promise<ChangeSet> {
  const base = await commitOf(root, from);
  const head = to === undefined ? undefined : await commitOf(root, to);
  const diffText = await git(root, ['diff', '--no-color', '--no-ext-diff', '--no-renames', '-U3', base, ...(head === undefined ? [] : [head]), '--']);
  const files: FileChange[] = [];
  for (const diff of parseUnifiedDiff(diffText)) {
    if (diff.binary) continue;
    const oldText = diff.oldPath === undefined ? undefined : await git(root, ['show', `${base}:${diff.oldPath}`]).catch(() => undefined);
    const newText =
      diff.newPath === undefined ? undefined : head === undefined ? await readFile(path.join(root, diff.newPath), 'utf8').catch(() => undefined) : await git(root, ['show', `${head}:${diff.newPath}`]).catch(() => undefined);
    files.push({
      path: (diff.newPath ?? diff.oldPath)!,
      ...(diff.oldPath === undefined ? {} : { oldPath: diff.oldPath }),
      status: statusOf(diff),
      ...(oldText === undefined ? {} : { oldText }),
      ...(newText === undefined ? {} : { newText }),
      hunks: diff.hunks,
    });
  }
  return { files };
}

/** The working tree's uncommitted edits (against HEAD). */
export function workingTreeChange(root: string): Promise<ChangeSet> {
  return changeFromGit(root, 'HEAD');
}
