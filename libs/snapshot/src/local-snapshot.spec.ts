import { execFileSync } from 'node:child_process';
import fs, { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QuarryError } from '@quarry/contracts';
import { referenceScan, directorySource } from '../../workspace/src/testing/reference-scan';
import { blobId, LocalSnapshot, parseStatus } from './local-snapshot';

const environment = { home: os.tmpdir() };
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }, encoding: 'utf8' }).trim();

describe('LocalSnapshot', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-local-snapshot-')));
    writeFileSync(path.join(dir, 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(dir, 'b.md'), '# b\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is HEAD for a clean checkout', async () => {
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'x');
    const source = await new LocalSnapshot(dir, environment).identify();
    expect(source).toEqual({ path: dir, ref: null, commit: git(dir, 'rev-parse', 'HEAD') });
  });

  it('is a content hash for a dirty checkout, that follows the content', async () => {
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'x');
    writeFileSync(path.join(dir, 'a.ts'), 'export const a = 2;\n');
    const first = await new LocalSnapshot(dir, environment).identify();
    expect(first).toMatchObject({ path: dir, ref: null, dirty: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(first.commit).not.toBe(git(dir, 'rev-parse', 'HEAD'));
    expect((await new LocalSnapshot(dir, environment).identify()).commit).toBe(first.commit);
    writeFileSync(path.join(dir, 'new.txt'), 'untracked\n');
    expect((await new LocalSnapshot(dir, environment).identify()).commit).not.toBe(first.commit);
  });

  it('is a content hash of every file outside git, the same for the same files anywhere', async () => {
    const first = await new LocalSnapshot(dir, environment).identify();
    expect(first).toMatchObject({ dirty: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const twin = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-local-twin-')));
    try {
      writeFileSync(path.join(twin, 'a.ts'), 'export const a = 1;\n');
      writeFileSync(path.join(twin, 'b.md'), '# b\n');
      expect((await new LocalSnapshot(twin, environment).identify()).commit).toBe(first.commit);
    } finally {
      rmSync(twin, { recursive: true, force: true });
    }
  });

  it('outside git, hashes what the work listed and read: the same identity, without reading the files again', async () => {
    const fresh = await new LocalSnapshot(dir, environment).identify();
    const worked = new LocalSnapshot(dir, environment);
    worked.prepareIdentity();
    const { files } = await worked.walk();
    for (const file of files) expect((await worked.readBlob(file))?.blob).toMatch(/^[0-9a-f]{40}$/);
    // Changed after the work read it: the identity is the tree the work saw, so it is not read again.
    writeFileSync(path.join(dir, 'a.ts'), 'export const a = 3;\n');
    expect((await worked.identify()).commit).toBe(fresh.commit);
    expect((await new LocalSnapshot(dir, environment).identify()).commit).not.toBe(fresh.commit);
  });

  it('scans as the directory scan does, reads files and gives git blob ids', async () => {
    const snapshot = new LocalSnapshot(dir, environment);
    const { durationMs: _a, ...viaSnapshot } = await referenceScan(snapshot);
    const { durationMs: _b, ...direct } = await referenceScan(directorySource(dir));
    expect(viaSnapshot).toEqual(direct);
    expect((await snapshot.readFile('a.ts'))?.toString()).toBe('export const a = 1;\n');
    expect(await snapshot.readFile('a.ts', { maxBytes: 3 })).toBeUndefined();
    expect(await snapshot.readFile('missing')).toBeUndefined();
    git(dir, 'init', '-q');
    expect((await snapshot.entry('a.ts'))?.blob).toBe(git(dir, 'hash-object', 'a.ts'));
    expect(blobId(Buffer.alloc(0))).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });

  it('reads HEAD and every kind of change from one git status (modified, renamed, untracked, spaces)', () => {
    git(dir, 'init', '-q');
    writeFileSync(path.join(dir, 'old name.ts'), 'x\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'one');
    const head = git(dir, 'rev-parse', 'HEAD');
    writeFileSync(path.join(dir, 'a.ts'), 'changed\n');
    git(dir, 'mv', 'old name.ts', 'new name.ts');
    writeFileSync(path.join(dir, 'fresh file.md'), 'new\n');
    const status = execFileSync('git', ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'], { cwd: dir, encoding: 'utf8' });
    const parsed = parseStatus(status);
    expect(parsed?.head).toBe(head);
    expect([...(parsed?.changed ?? [])].sort()).toEqual(['a.ts', 'fresh file.md', 'new name.ts']);
    expect(parseStatus('# branch.oid (initial)\0# branch.head main\0')).toBeUndefined();
  });

  it('does not take a directory holding a bare .git folder for a checkout', async () => {
    execFileSync('mkdir', ['-p', path.join(dir, '.git', 'info')]);
    const snapshot = new LocalSnapshot(dir, environment);
    const source = await snapshot.identify();
    expect(source).toMatchObject({ path: dir, ref: null, dirty: true });
  });

  it('reads a directory once for the walk and the detection beside it, and keeps nothing after both had it', async () => {
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src', 'c.ts'), 'export const c = 3;\n');
    const reads = jest.spyOn(fs, 'readdir');
    try {
      const snapshot = new LocalSnapshot(dir, environment);
      // As the scan runs them: the walk and detection's reads of the same directories at once.
      const [listing, root, src] = await Promise.all([snapshot.walk(), snapshot.readDirectory('.'), snapshot.readDirectory('src')]);
      expect(listing.files.sort()).toEqual(['a.ts', 'b.md', 'src/c.ts']);
      expect(root?.map((entry) => entry.name).sort()).toEqual(['a.ts', 'b.md', 'src']);
      expect(src?.map((entry) => entry.name)).toEqual(['c.ts']);
      expect(reads.mock.calls.map(([directory]) => String(directory)).sort()).toEqual([dir, path.join(dir, 'src')]);
      // Both consumers had it: a later read sees the directory as it is now.
      writeFileSync(path.join(dir, 'src', 'd.ts'), '\n');
      expect((await snapshot.readDirectory('src'))?.map((entry) => entry.name).sort()).toEqual(['c.ts', 'd.ts']);
      expect(await snapshot.readDirectory('missing')).toBeUndefined();
    } finally {
      reads.mockRestore();
    }
  });

  it('refuses a path that leaves the root', async () => {
    const snapshot = new LocalSnapshot(dir, environment);
    const error = await snapshot.entry('../x').then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuarryError);
    expect((error as QuarryError).kind).toBe('path_outside_root');
    expect(await snapshot.readFile('../../etc/passwd')).toBeUndefined();
  });
});
