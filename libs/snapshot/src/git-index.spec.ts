import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { attributesMayConvert, parseIndexFile, type IndexedFile } from './git-index';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });

/** What `git ls-files --stage --debug` says of the index's regular files at stage 0: the oracle. */
function gitsOwnListing(dir: string): Map<string, IndexedFile> {
  const files = new Map<string, IndexedFile>();
  const text = git(dir, 'ls-files', '--stage', '--debug', '-z').toString('utf8');
  for (const match of text.matchAll(/(\d{6}) ([0-9a-f]+) (\d)\t([^\0]*)\0\s+ctime: \d+:\d+\n\s+mtime: (\d+):(\d+)\n[^]*?size: (\d+)/g)) {
    const [, mode, blob, stage, name, seconds, nanoseconds, size] = match;
    if (stage === '0' && (mode === '100644' || mode === '100755')) files.set(name, { blob, bytes: Number(size), mtimeMs: Number(seconds) * 1000 + Math.floor(Number(nanoseconds) / 1e6) });
  }
  return files;
}

describe('parseIndexFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-git-index-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const index = () => readFileSync(path.join(dir, '.git', 'index'));

  /** A checkout with what makes entries differ: long and odd names, links, a submodule, a conflict, an intent-to-add. */
  function populate(): void {
    writeFileSync(path.join(dir, 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(dir, 'run me.sh'), '#!/bin/sh\necho\n');
    chmodSync(path.join(dir, 'run me.sh'), 0o755);
    writeFileSync(path.join(dir, 'tab\there.txt'), 'x');
    writeFileSync(path.join(dir, 'naïve-ünïcode.md'), '# hi\n');
    mkdirSync(path.join(dir, 'deep', 'er', 'still'), { recursive: true });
    // Shared prefixes of every length exercise version 4's path compression.
    for (let index = 0; index < 30; index++) writeFileSync(path.join(dir, 'deep', 'er', index % 2 ? 'still' : '', `file-${index}.c`), `int f${index};\n`);
    writeFileSync(path.join(dir, 'deep', `${'long-name-'.repeat(24)}.txt`), 'long\n');
    symlinkSync('a.ts', path.join(dir, 'link'));
    git(dir, 'add', '-A');
    git(dir, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(git(dir, 'rev-parse', '--show-object-format').toString().trim() === 'sha256' ? 64 : 40)},vendor/sub`);
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: 'ours\n' }).toString().trim();
    execFileSync('git', ['update-index', '--index-info'], { cwd: dir, input: `100644 ${blob} 1\tboth.ts\n100644 ${blob} 2\tboth.ts\n` });
  }

  it.each([2, 3, 4])("reads each regular file's blob, size and mtime as git's own listing gives them (index version %i)", (version) => {
    git(dir, 'init', '-q');
    populate();
    if (version === 3) {
      // An intent-to-add entry carries extended flags, which only version 3 and later write.
      writeFileSync(path.join(dir, 'later.ts'), 'later\n');
      git(dir, 'add', '-N', 'later.ts');
    }
    git(dir, 'update-index', '--index-version', String(version));
    expect(index().readUInt32BE(4)).toBe(version);
    const files = parseIndexFile(index());
    expect(files).toEqual(gitsOwnListing(dir));
    // Links, the submodule and the conflict are left out; the rest are there.
    expect(files?.has('link')).toBe(false);
    expect(files?.has('vendor/sub')).toBe(false);
    expect(files?.has('both.ts')).toBe(false);
    expect(files?.get('a.ts')).toMatchObject({ blob: git(dir, 'hash-object', 'a.ts').toString().trim(), bytes: 20 });
    expect(files?.size).toBe(35 + (version === 3 ? 1 : 0));
  });

  it('reads a SHA-256 repository with 32-byte ids', () => {
    git(dir, 'init', '-q', '--object-format=sha256');
    populate();
    const files = parseIndexFile(index(), 32);
    expect(files).toEqual(gitsOwnListing(dir));
    expect(files?.get('a.ts')?.blob).toHaveLength(64);
  });

  it('refuses a split index (its entries are in a second file), and bytes that are not an index', () => {
    git(dir, 'init', '-q');
    populate();
    git(dir, 'update-index', '--split-index');
    expect(parseIndexFile(index())).toBeUndefined();
    expect(parseIndexFile(Buffer.from('not an index at all'))).toBeUndefined();
    git(dir, 'update-index', '--no-split-index');
    const whole = index();
    expect(parseIndexFile(whole)).toEqual(gitsOwnListing(dir));
    // Cut short: entries run past the end.
    expect(parseIndexFile(whole.subarray(0, 200))).toBeUndefined();
  });
});

describe('attributesMayConvert', () => {
  it.each([
    ['* text=auto', true],
    ['*.bin filter=lfs diff=lfs merge=lfs -text', true],
    ['*.sh eol=lf', true],
    ['*.c ident', true],
    ['*.txt working-tree-encoding=UTF-16', true],
    ['*.bat crlf', true],
    ['*.c   diff=cpp\n*.dts diff=dts', false],
    ['*.png binary\n*.jpg -text', false],
    ['# * text=auto\n\n*.md !eol', false],
    ['', false],
  ])('%j → %s', (text, converts) => expect(attributesMayConvert(text)).toBe(converts));
});
