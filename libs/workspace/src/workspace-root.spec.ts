import { mkdir, realpath, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { QuarryError } from '@quarry/contracts';
import { isInside, resolveWorkspaceRoot } from './workspace-root';
import { makeTempTree, removeTempTree } from './testing/temp-tree';

describe('isInside', () => {
  it.each([
    ['/a/b', '/a/b', true],
    ['/a/b', '/a/b/c', true],
    ['/a/b', '/a/b/c/d', true],
    ['/a/b', '/a/bc', false],
    ['/a/b', '/a', false],
    ['/a/b', '/a/b/../c', false],
    ['/a/b/', '/a/b/c', true],
    ['/a/b', '/a/b/..c', true],
    ['/', '/anything', true],
  ])('isInside(%s, %s) is %s', (parent, child, expected) => {
    expect(isInside(parent, child)).toBe(expected);
  });
});

describe('resolveWorkspaceRoot', () => {
  let sandbox: string | undefined;
  let allowed: string;
  let elsewhere: string;

  beforeEach(async () => {
    sandbox = await realpath(await makeTempTree({ 'allowed/repo/a.txt': 'x', 'allowed/file.txt': 'x', 'allowedx/repo/b.txt': 'y', 'elsewhere/c.txt': 'z' }));
    allowed = path.join(sandbox, 'allowed');
    elsewhere = path.join(sandbox, 'elsewhere');
  });
  afterEach(async () => {
    await removeTempTree(sandbox);
    sandbox = undefined;
  });

  const kindOf = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(QuarryError);
    expect((error as QuarryError).permanent).toBe(true);
    return (error as QuarryError).kind;
  };

  it('returns the real path of a directory inside an allowed root', async () => {
    await expect(resolveWorkspaceRoot(path.join(allowed, 'repo'), [allowed])).resolves.toBe(path.join(allowed, 'repo'));
    await expect(resolveWorkspaceRoot(allowed, [allowed])).resolves.toBe(allowed);
    await expect(resolveWorkspaceRoot(`${allowed}/repo/../repo/`, [elsewhere, allowed])).resolves.toBe(path.join(allowed, 'repo'));
  });

  it('refuses a relative path with path_not_absolute and suggests an absolute one', async () => {
    const promise = resolveWorkspaceRoot('repo', [allowed]);
    expect(await kindOf(promise)).toBe('path_not_absolute');
    await expect(promise).rejects.toMatchObject({ suggestion: expect.stringContaining(path.resolve('repo')) });
  });

  it('reports a missing directory inside an allowed root as root_not_found', async () => {
    expect(await kindOf(resolveWorkspaceRoot(path.join(allowed, 'missing'), [allowed]))).toBe('root_not_found');
  });

  it('reports a missing path outside every allowed root as outside, so existence cannot be probed', async () => {
    expect(await kindOf(resolveWorkspaceRoot(path.join(elsewhere, 'missing'), [allowed]))).toBe('path_outside_root');
  });

  it('refuses a file with root_not_directory', async () => {
    expect(await kindOf(resolveWorkspaceRoot(path.join(allowed, 'file.txt'), [allowed]))).toBe('root_not_directory');
  });

  it('refuses a directory outside the allowed roots with path_outside_root, listing them', async () => {
    const promise = resolveWorkspaceRoot(elsewhere, [allowed]);
    expect(await kindOf(promise)).toBe('path_outside_root');
    await expect(promise).rejects.toMatchObject({
      message: expect.stringContaining(allowed),
      suggestion: expect.stringContaining('QUARRY_WORKSPACE_ROOTS'),
    });
  });

  it('does not take /a/bc for a path inside /a/b', async () => {
    expect(await kindOf(resolveWorkspaceRoot(path.join(sandbox as string, 'allowedx', 'repo'), [allowed]))).toBe('path_outside_root');
  });

  it('refuses a symlink inside an allowed root that points outside it', async () => {
    const link = path.join(allowed, 'escape');
    await symlink(elsewhere, link);
    expect(await kindOf(resolveWorkspaceRoot(link, [allowed]))).toBe('path_outside_root');
    await expect(resolveWorkspaceRoot(link, [allowed])).rejects.toMatchObject({ message: expect.stringContaining(elsewhere) });
  });

  it('accepts a symlink that resolves inside an allowed root, and an allowed root that is a symlink', async () => {
    const linkToRepo = path.join(elsewhere, 'to-repo');
    await symlink(path.join(allowed, 'repo'), linkToRepo);
    await expect(resolveWorkspaceRoot(linkToRepo, [allowed])).resolves.toBe(path.join(allowed, 'repo'));

    const linkedRoot = path.join(sandbox as string, 'linked-allowed');
    await symlink(allowed, linkedRoot);
    await expect(resolveWorkspaceRoot(path.join(allowed, 'repo'), [linkedRoot])).resolves.toBe(path.join(allowed, 'repo'));
  });

  it('allows nothing when no roots are configured', async () => {
    const promise = resolveWorkspaceRoot(allowed, []);
    expect(await kindOf(promise)).toBe('path_outside_root');
    await expect(promise).rejects.toMatchObject({ message: expect.stringContaining('no workspace roots are configured') });
  });

  it('skips allowed roots that do not exist', async () => {
    await mkdir(path.join(allowed, 'repo', 'deep'));
    await expect(resolveWorkspaceRoot(path.join(allowed, 'repo', 'deep'), ['/nonexistent/quarry-root', allowed])).resolves.toBe(
      path.join(allowed, 'repo', 'deep'),
    );
  });
});
