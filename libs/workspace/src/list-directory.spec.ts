import { mkdir, realpath, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { listDirectory } from './list-directory';
import { failure } from './testing/failure';
import { makeTempTree, removeTempTree } from './testing/temp-tree';


const paths = (listing: { entries: Array<{ path: string }> }) => listing.entries.map((entry) => entry.path);

describe('listDirectory', () => {
  let root: string;
  let outside: string;

  beforeAll(async () => {
    outside = await realpath(await makeTempTree({ 'x.txt': 'outside' }, 'quarry-outside-'));
    root = await realpath(
      await makeTempTree({
        '.gitignore': 'node_modules/\n*.log\n',
        'README.md': '# readme\n',
        'b.ts': 'b',
        'A.ts': 'a',
        'debug.log': 'ignored',
        'node_modules/dep/index.js': 'ignored',
        'src/index.ts': 'export {};\n',
        'src/.gitignore': 'generated/\n',
        'src/generated/api.ts': 'ignored by the nested rule',
        'src/api/client.ts': 'client',
        'src/api/deep/er/still/file.ts': 'deep',
        'docs/my notes.md': 'notes',
        'docs/日本語.md': 'unicode',
        '.git/HEAD': 'ref: refs/heads/main\n',
        'many/.keep': '',
        ...Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`many/file-${String(index).padStart(2, '0')}.txt`, 'x'])),
      }),
    );
    await mkdir(path.join(root, 'empty-dir'));
    await symlink(outside, path.join(root, 'escape'));
  });

  afterAll(async () => {
    await removeTempTree(root);
    await removeTempTree(outside);
  });

  it('lists the root one level deep: directories first, then names, gitignore and .git honoured', async () => {
    const listing = await listDirectory(root, '');
    expect(paths(listing)).toEqual(['docs', 'many', 'src', '.gitignore', 'A.ts', 'b.ts', 'README.md']);
    expect(listing).toMatchObject({ path: '', truncated: false, totalEntries: 7 });
  });

  it('gives sizes for files and ISO mtimes for all entries', async () => {
    const listing = await listDirectory(root, '.');
    const readme = listing.entries.find((entry) => entry.path === 'README.md');
    expect(readme).toMatchObject({ type: 'file', size: 9 });
    expect(new Date(readme?.mtime ?? '').toISOString()).toBe(readme?.mtime);
    const docs = listing.entries.find((entry) => entry.path === 'docs');
    expect(docs).toMatchObject({ type: 'directory' });
    expect(docs).not.toHaveProperty('size');
  });

  it('lists a subdirectory with root-relative paths and nested ignore rules', async () => {
    const listing = await listDirectory(root, 'src');
    expect(paths(listing)).toEqual(['src/api', 'src/.gitignore', 'src/index.ts']);
    expect(listing.path).toBe('src');
  });

  it('lists recursively in tree order, down to the default depth of 4', async () => {
    const listing = await listDirectory(root, 'src', { recursive: true });
    expect(paths(listing)).toEqual(['src/api', 'src/api/deep', 'src/api/deep/er', 'src/api/deep/er/still', 'src/api/client.ts', 'src/.gitignore', 'src/index.ts']);
  });

  it('honours an explicit depth', async () => {
    const listing = await listDirectory(root, 'src', { recursive: true, maxDepth: 2 });
    expect(paths(listing)).toEqual(['src/api', 'src/api/deep', 'src/api/client.ts', 'src/.gitignore', 'src/index.ts']);
  });

  it('caps the entries and says how many there were', async () => {
    const listing = await listDirectory(root, 'many', { maxEntries: 5 });
    expect(listing.entries).toHaveLength(5);
    expect(listing).toMatchObject({ truncated: true, totalEntries: 31 });
    expect(paths(listing)[0]).toBe('many/.keep');
  });

  it('filters by a glob on names', async () => {
    expect(paths(await listDirectory(root, '', { pattern: '*.ts' }))).toEqual(['A.ts', 'b.ts']);
    expect(paths(await listDirectory(root, 'src', { recursive: true, pattern: '*.ts' }))).toEqual(['src/api/client.ts', 'src/index.ts']);
  });

  it('leaves hidden entries out when hidden is false, unless the pattern names dot files', async () => {
    const all = paths(await listDirectory(root, '.'));
    expect(all).toEqual(expect.arrayContaining(['.gitignore']));
    const visible = paths(await listDirectory(root, '.', { hidden: false }));
    expect(visible).not.toContain('.gitignore');
    expect(visible).toEqual(all.filter((entry) => !entry.startsWith('.')));
    expect(paths(await listDirectory(root, 'many', { hidden: false }))).not.toContain('many/.keep');
    expect(paths(await listDirectory(root, '.', { hidden: false, recursive: true })).filter((entry) => entry.includes('/.'))).toEqual([]);
    expect(paths(await listDirectory(root, '.', { hidden: false, pattern: '.*', recursive: true }))).toEqual(['many/.keep', 'src/.gitignore', '.gitignore']);
  });

  it('lists names with spaces and Unicode', async () => {
    expect(paths(await listDirectory(root, 'docs'))).toEqual(['docs/my notes.md', 'docs/日本語.md']);
  });

  it('lists an ignored directory when asked for it by name', async () => {
    expect(paths(await listDirectory(root, 'node_modules', { recursive: true }))).toEqual(['node_modules/dep', 'node_modules/dep/index.js']);
  });

  it('omits directories holding no listable file, as git would', async () => {
    expect(paths(await listDirectory(root, '')).includes('empty-dir')).toBe(false);
    expect(await listDirectory(root, 'empty-dir')).toMatchObject({ entries: [], totalEntries: 0, truncated: false });
  });

  it('refuses escapes, secrets, files and missing directories with typed errors', async () => {
    expect((await failure(listDirectory(root, 'escape'))).kind).toBe('path_outside_root');
    expect((await failure(listDirectory(root, '../'))).kind).toBe('path_outside_root');
    expect((await failure(listDirectory(root, '.git'))).kind).toBe('file_secret');
    expect((await failure(listDirectory(root, 'README.md'))).kind).toBe('input_invalid');
    const missing = await failure(listDirectory(root, 'scr'));
    expect(missing.kind).toBe('file_not_found');
    expect(missing.suggestion).toBe('Did you mean src?');
  });
});
