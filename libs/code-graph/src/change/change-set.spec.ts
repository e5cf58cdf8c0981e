import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { changeFromGit, commitOf, workingTreeChange } from './change-set';

/** A real git repository on disk (no network): two commits, then an uncommitted edit. */
let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-change-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { stdio: 'pipe' });
  git('init', '-q');
  fs.writeFileSync(path.join(root, 'a.ts'), 'export function a() {\n  return 1;\n}\n');
  git('add', '-A');
  git('commit', '-qm', 'one');
  fs.writeFileSync(path.join(root, 'a.ts'), 'export function a() {\n  return 2;\n}\n');
  fs.writeFileSync(path.join(root, 'b.ts'), 'export const b = 1;\n');
  git('add', '-A');
  git('commit', '-qm', 'two');
  fs.writeFileSync(path.join(root, 'b.ts'), 'export const b = 3;\n');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('changes from git', () => {
  it('between two commits: each file with its text before and after, and its hunks', async () => {
    const change = await changeFromGit(root, 'HEAD~1', 'HEAD');
    expect(change.files.map((file) => [file.path, file.status])).toEqual([
      ['a.ts', 'modified'],
      ['b.ts', 'added'],
    ]);
    expect(change.files[0]).toMatchObject({ oldText: 'export function a() {\n  return 1;\n}\n', newText: 'export function a() {\n  return 2;\n}\n' });
    expect(change.files[0].hunks[0].lines).toEqual([' export function a() {', '-  return 1;', '+  return 2;', ' }']);
  });

  it('to the working tree: committed and uncommitted edits since a ref, or the uncommitted ones alone', async () => {
    expect((await changeFromGit(root, 'HEAD~1')).files.find((file) => file.path === 'b.ts')?.newText).toBe('export const b = 3;\n');
    const uncommitted = await workingTreeChange(root);
    expect(uncommitted.files.map((file) => [file.path, file.oldText, file.newText])).toEqual([['b.ts', 'export const b = 1;\n', 'export const b = 3;\n']]);
  });

  it('refuses refs that do not exist or are not ref names', async () => {
    await expect(commitOf(root, 'no-such-branch')).rejects.toMatchObject({ kind: 'ref_not_found' });
    await expect(commitOf(root, '--upload-pack=x')).rejects.toMatchObject({ kind: 'ref_not_found' });
    await expect(changeFromGit(root, 'HEAD~5')).rejects.toMatchObject({ kind: 'ref_not_found' });
  });
});
