import { READ_FILE_MAX_LINES } from '@quarry/contracts';
import { failure } from '../../workspace/src/testing/failure';
import { makeTempTree, removeTempTree } from '../../workspace/src/testing/temp-tree';
import { WorkspaceOperations } from './workspace-operations';

describe('WorkspaceOperations', () => {
  let root: string;
  const long = Array.from({ length: READ_FILE_MAX_LINES + 500 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';
  beforeAll(async () => {
    root = await makeTempTree({
      'empty.txt': '',
      'long.txt': long,
      'crlf.txt': 'one\r\ntwo\r\n',
      'no-newline.txt': 'a\nb',
      'big.txt': 'a\n'.repeat(READ_FILE_MAX_LINES + 1_000),
      '.env': 'API_KEY=sk-abcdefghijklmnopqrstuvwxyz012345\n',
    });
  });
  afterAll(() => removeTempTree(root));

  const operations = (options: { maxFileBytes?: number; allowSecrets?: boolean } = {}) => new WorkspaceOperations({ resolveRoot: async (given) => given, ...options });
  const read = (input: { path: string; startLine?: number; endLine?: number }, options?: { maxFileBytes?: number; allowSecrets?: boolean }) =>
    operations(options).run('read_file', { root, ...input }, new AbortController().signal);

  it('reads an empty file as no lines', async () => {
    expect(await read({ path: 'empty.txt' })).toMatchObject({ startLine: 0, endLine: 0, totalLines: 0, lines: [], truncated: false });
  });

  it('cuts a long file at the line cap and says more follow', async () => {
    const first = await read({ path: 'long.txt' });
    expect(first).toMatchObject({ startLine: 1, endLine: READ_FILE_MAX_LINES, totalLines: READ_FILE_MAX_LINES + 500, truncated: true });
    expect(first.lines.at(-1)).toEqual({ number: READ_FILE_MAX_LINES, text: `line ${READ_FILE_MAX_LINES}` });
    const rest = await read({ path: 'long.txt', startLine: READ_FILE_MAX_LINES + 1 });
    expect(rest).toMatchObject({ startLine: READ_FILE_MAX_LINES + 1, endLine: READ_FILE_MAX_LINES + 500, truncated: false });
  });

  it('returns exactly the range asked for, clamped at the end of the file', async () => {
    expect(await read({ path: 'long.txt', startLine: 10, endLine: 12 })).toMatchObject({
      startLine: 10,
      endLine: 12,
      truncated: false,
      lines: [{ number: 10, text: 'line 10' }, { number: 11, text: 'line 11' }, { number: 12, text: 'line 12' }],
    });
    expect(await read({ path: 'no-newline.txt', startLine: 2, endLine: 99 })).toMatchObject({ startLine: 2, endLine: 2, lines: [{ number: 2, text: 'b' }], truncated: false });
    expect((await read({ path: 'crlf.txt' })).lines).toEqual([{ number: 1, text: 'one' }, { number: 2, text: 'two' }]);
  });

  it('refuses a backwards range and a start past the end', async () => {
    expect((await failure(read({ path: 'long.txt', startLine: 5, endLine: 4 }))).kind).toBe('range_invalid');
    expect((await failure(read({ path: 'no-newline.txt', startLine: 3 }))).kind).toBe('range_invalid');
  });

  it('reads the first lines of a file over the size cap instead of refusing it', async () => {
    // 6,000 bytes over a 5,000-byte cap; its first 2,000 lines are 4,000 bytes.
    const result = await read({ path: 'big.txt' }, { maxFileBytes: 5_000 });
    expect(result).toMatchObject({ startLine: 1, endLine: READ_FILE_MAX_LINES, truncated: true });
    expect((await failure(read({ path: 'big.txt' }, { maxFileBytes: 1_000 }))).kind).toBe('file_too_large');
  });

  it('keeps secrets out: refused by name unless allowed, and redacted when read', async () => {
    expect((await failure(read({ path: '.env' }))).kind).toBe('file_secret');
    const allowed = await read({ path: '.env' }, { allowSecrets: true });
    expect(allowed.redactions).toBe(1);
    expect(allowed.lines[0].text).not.toContain('abcdefghijklmnop');
  });

  it('takes an absolute path inside the repository as relative to it, and refuses one outside', async () => {
    expect(await read({ path: `${root}/no-newline.txt` })).toMatchObject({ path: 'no-newline.txt', lines: [{ number: 1, text: 'a' }, { number: 2, text: 'b' }] });
    const listing = await operations().run('list_directory', { root, path: root, recursive: false }, new AbortController().signal);
    expect(listing.entries.map((entry) => entry.path)).toContain('long.txt');
    expect((await failure(read({ path: '/etc/hostname' }))).kind).toBe('path_outside_root');
  });

  it('checks the repository through the injected policy before touching it', async () => {
    const refusing = new WorkspaceOperations({
      resolveRoot: async () => {
        throw new (await import('@quarry/contracts')).QuarryError('path_outside_root', 'no');
      },
    });
    expect((await failure(refusing.run('list_directory', { root, path: '.', recursive: false }, new AbortController().signal))).kind).toBe('path_outside_root');
  });
});
