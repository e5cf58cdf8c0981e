import { execFileSync } from 'node:child_process';
import { chmod, mkdir, realpath, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { resolveInsideRoot } from './safe-path';
import { failure } from './testing/failure';
import { makeTempTree, removeTempTree } from './testing/temp-tree';

const isRoot = process.getuid?.() === 0;


describe('resolveInsideRoot', () => {
  let root: string;
  let outside: string;

  beforeAll(async () => {
    outside = await realpath(await makeTempTree({ 'secret.txt': 'outside the root', 'dir/inner.txt': 'outside too' }, 'quarry-outside-'));
    root = await realpath(
      await makeTempTree({
        'src/app.ts': 'export const app = 1;\n',
        'src/utils.ts': 'export {};\n',
        'docs/my notes.md': '# notes\n',
        'docs/日本語.md': '# こんにちは\n',
        '.env': 'TOKEN=x\n',
        '.env.example': 'TOKEN=\n',
        'config/.env.local': 'X=1\n',
        '.git/config': '[core]\n',
        'keys/server.pem': 'x',
      }),
    );
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'escape-file'));
    await symlink(path.join(outside, 'dir'), path.join(root, 'escape-dir'));
    await symlink('src/app.ts', path.join(root, 'inside-link.ts'));
    await symlink('src', path.join(root, 'inside-dir'));
    await symlink('.env', path.join(root, 'innocent.txt'));
    await symlink('missing-target', path.join(root, 'dangling'));
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
  });

  afterAll(async () => {
    await removeTempTree(root);
    await removeTempTree(outside);
  });

  it('resolves a file inside the root with its type, size and mtime', async () => {
    const resolved = await resolveInsideRoot(root, 'src/app.ts');
    expect(resolved).toMatchObject({ absolute: path.join(root, 'src/app.ts'), relative: 'src/app.ts', type: 'file', size: 22 });
    expect(resolved.mtimeMs).toBeGreaterThan(0);
  });

  it('resolves directories, the root itself, and normalizes ./ and inner ..', async () => {
    expect(await resolveInsideRoot(root, 'src/')).toMatchObject({ relative: 'src', type: 'directory' });
    expect(await resolveInsideRoot(root, '.')).toMatchObject({ relative: '', type: 'directory', absolute: root });
    expect(await resolveInsideRoot(root, './src/../src/utils.ts')).toMatchObject({ relative: 'src/utils.ts', type: 'file' });
  });

  it('resolves names with spaces and Unicode', async () => {
    expect(await resolveInsideRoot(root, 'docs/my notes.md')).toMatchObject({ type: 'file', relative: 'docs/my notes.md' });
    expect(await resolveInsideRoot(root, 'docs/日本語.md')).toMatchObject({ type: 'file', relative: 'docs/日本語.md' });
  });

  it('follows a symlink that stays inside the root (file and directory), reporting the real path', async () => {
    expect(await resolveInsideRoot(root, 'inside-link.ts')).toMatchObject({ absolute: path.join(root, 'src/app.ts'), relative: 'inside-link.ts', type: 'file' });
    expect(await resolveInsideRoot(root, 'inside-dir/utils.ts')).toMatchObject({ absolute: path.join(root, 'src/utils.ts'), type: 'file' });
  });

  it.each([
    ['a symlink to a file outside', 'escape-file', 'symlink'],
    ['a symlink to a directory outside', 'escape-dir', 'symlink'],
    ['a path through a symlinked directory outside', 'escape-dir/inner.txt', 'symlink'],
    ['a ../ escape', '../outside.txt', 'outside the workspace'],
    ['a deep ../ escape', 'src/../../etc/passwd', 'outside the workspace'],
    ['an absolute path outside', '/etc/passwd', 'absolute path'],
  ])('refuses %s as path_outside_root', async (_label, userPath, message) => {
    const error = await failure(resolveInsideRoot(root, userPath));
    expect(error.kind).toBe('path_outside_root');
    expect(error.message).toContain(message);
  });

  it('refuses an absolute path inside the root too, suggesting its relative form', async () => {
    const error = await failure(resolveInsideRoot(root, path.join(root, 'src/app.ts')));
    expect(error.kind).toBe('path_outside_root');
    expect(error.suggestion).toContain('"src/app.ts"');
  });

  it('refuses a ../ escape without touching the disk, even when the target does not exist', async () => {
    const error = await failure(resolveInsideRoot(root, '../no-such-directory/x'));
    expect(error.kind).toBe('path_outside_root');
  });

  it('refuses a FIFO as file_special, quickly (it is never opened)', async () => {
    const started = performance.now();
    const error = await failure(resolveInsideRoot(root, 'pipe'));
    expect(error.kind).toBe('file_special');
    expect(error.message).toContain('FIFO');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses a device as file_special when one is reachable through the root', async () => {
    const deviceRoot = await realpath(await makeTempTree());
    try {
      await symlink('/dev/null', path.join(deviceRoot, 'null'));
      // /dev/null is outside this root, so the symlink check comes first: refused either way.
      expect((await failure(resolveInsideRoot(deviceRoot, 'null'))).kind).toBe('path_outside_root');
      // With /dev as the root, the device itself is what gets refused.
      const error = await failure(resolveInsideRoot('/dev', 'null'));
      expect(error.kind).toBe('file_special');
      expect(error.message).toContain('device');
    } finally {
      await removeTempTree(deviceRoot);
    }
  });

  it('reports a missing file as file_not_found with a suggestion', async () => {
    const error = await failure(resolveInsideRoot(root, 'src/utils.js'));
    expect(error.kind).toBe('file_not_found');
    expect(error.suggestion).toBe('Did you mean src/utils.ts?');
  });

  it('reports a dangling symlink and a path under a file as file_not_found', async () => {
    expect((await failure(resolveInsideRoot(root, 'dangling'))).kind).toBe('file_not_found');
    expect((await failure(resolveInsideRoot(root, 'src/app.ts/x'))).kind).toBe('file_not_found');
  });

  it.each(['.env', 'config/.env.local', '.git/config', '.git', 'keys/server.pem'])('refuses the secret path %s as file_secret', async (userPath) => {
    const error = await failure(resolveInsideRoot(root, userPath));
    expect(error.kind).toBe('file_secret');
    expect(error.suggestion).toContain('operator');
  });

  it('refuses a secret reached through an innocent-looking symlink', async () => {
    expect((await failure(resolveInsideRoot(root, 'innocent.txt'))).kind).toBe('file_secret');
  });

  it('refuses a secret name whether or not it exists (no probing)', async () => {
    expect((await failure(resolveInsideRoot(root, 'nowhere/.env.production'))).kind).toBe('file_secret');
  });

  it('allows .env.example, and secrets when the operator allows them', async () => {
    expect(await resolveInsideRoot(root, '.env.example')).toMatchObject({ type: 'file' });
    expect(await resolveInsideRoot(root, '.env', { allowSecrets: true })).toMatchObject({ type: 'file', relative: '.env' });
    expect(await resolveInsideRoot(root, 'innocent.txt', { allowSecrets: true })).toMatchObject({ absolute: path.join(root, '.env') });
  });

  it('still refuses an escape when secrets are allowed', async () => {
    expect((await failure(resolveInsideRoot(root, 'escape-file', { allowSecrets: true }))).kind).toBe('path_outside_root');
  });

  it('refuses a NUL in the path as input_invalid', async () => {
    expect((await failure(resolveInsideRoot(root, 'src/app.ts\0.png'))).kind).toBe('input_invalid');
  });

  (isRoot ? it.skip : it)('reports an unreadable directory on the way as file_not_found (permission denied)', async () => {
    const locked = path.join(root, 'locked');
    await mkdir(path.join(locked, 'inner'), { recursive: true });
    await chmod(locked, 0o000);
    try {
      const error = await failure(resolveInsideRoot(root, 'locked/inner'));
      expect(error.kind).toBe('file_not_found');
      expect(error.message).toContain('permission denied');
    } finally {
      await chmod(locked, 0o755);
    }
  });
});
