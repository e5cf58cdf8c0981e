import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ObjectPresence } from './object-presence';

describe('ObjectPresence', () => {
  let dir: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }, encoding: 'utf8' }).trim();
  const blob = (text: string) => execFileSync('git', ['-C', dir, 'hash-object', '-w', '--stdin'], { input: text, encoding: 'utf8' }).trim();
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-presence-'));
    git('init', '-q', '--bare');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers from the packs, then from new packs as they arrive, and after a repack', () => {
    const first = [blob('one\n'), blob('two\n')];
    git('repack', '-q', '-a', '-d');
    const presence = new ObjectPresence(dir);
    const absent = 'f'.repeat(40);
    expect(presence.missing([...first, absent])).toEqual([absent]);

    // A second pack (what a shard's fetch adds): seen at the next look-up.
    const second = blob('three\n');
    git('repack', '-q', '-d');
    expect(presence.missing([...first, second, absent])).toEqual([absent]);

    // Everything repacked into one (the old packs removed): still right.
    git('repack', '-q', '-a', '-d');
    expect(presence.missing([...first, second])).toEqual([]);
  });

  it('finds loose objects too, and does not look for them when there are none', () => {
    const presence = new ObjectPresence(dir);
    const loose = blob('loose\n');
    expect(presence.missing([loose])).toEqual([]);
    git('repack', '-q', '-a', '-d');
    git('prune-packed');
    expect(presence.missing([loose, 'e'.repeat(40)])).toEqual(['e'.repeat(40)]);
  });

  it('is empty for a directory that is not a repository', () => {
    const presence = new ObjectPresence(path.join(dir, 'nothing-here'));
    expect(presence.missing(['a'.repeat(40)])).toEqual(['a'.repeat(40)]);
  });
});
