import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { attributesMayConvert, parseIndexListing } from './git-index';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });

describe('parseIndexListing', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-git-index-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads each regular file's blob, size and mtime from git's own listing, and leaves out links and submodules", () => {
    git(dir, 'init', '-q');
    writeFileSync(path.join(dir, 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(dir, 'run me.sh'), '#!/bin/sh\necho\n');
    chmodSync(path.join(dir, 'run me.sh'), 0o755);
    writeFileSync(path.join(dir, 'tab\there.txt'), 'x');
    symlinkSync('a.ts', path.join(dir, 'link'));
    git(dir, 'add', '-A');
    // A submodule entry (mode 160000) needs no checkout of its own.
    git(dir, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/sub`);
    const files = parseIndexListing(git(dir, 'ls-files', '--stage', '--debug', '-z'));
    expect([...(files?.keys() ?? [])].sort()).toEqual(['a.ts', 'run me.sh', 'tab\there.txt']);
    const a = files?.get('a.ts');
    expect(a?.blob).toBe(git(dir, 'hash-object', 'a.ts').toString().trim());
    expect(a?.bytes).toBe(20);
    // git records the mtime to the nanosecond; whole milliseconds are what Node's stat compares.
    const seconds = Number(/mtime: (\d+):(\d+)/.exec(git(dir, 'ls-files', '--debug', 'a.ts').toString())?.[1]);
    expect(Math.floor((a?.mtimeMs ?? 0) / 1000)).toBe(seconds);
  });

  it('leaves out conflicted entries, and refuses text that is not the listing', () => {
    git(dir, 'init', '-q');
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: 'ours\n' }).toString().trim();
    execFileSync('git', ['update-index', '--index-info'], { cwd: dir, input: `100644 ${blob} 1\tboth.ts\n100644 ${blob} 2\tboth.ts\n` });
    expect(parseIndexListing(git(dir, 'ls-files', '--stage', '--debug', '-z'))?.size).toBe(0);
    expect(parseIndexListing(Buffer.from('not a listing'))).toBeUndefined();
    expect(parseIndexListing(Buffer.from(`100644 ${blob} 0\ta.ts\0`))).toBeUndefined(); // no stat lines
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
