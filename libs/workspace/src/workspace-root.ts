import { realpathSync, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { QuarryError } from '@quarry/contracts/errors';

const ROOTS_SUGGESTION =
  'Choose a directory inside one of the allowed roots, or ask the operator to add its parent to QUARRY_WORKSPACE_ROOTS.';

/**
 * True when `child` is `parent` or lies beneath it. Both must be absolute; no file system access.
 * Compares whole path segments, so `/a/bc` is not inside `/a/b`.
 */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(path.resolve(parent), path.resolve(child));
  if (relative === '') return true;
  // `..foo` is a legal name inside the parent; only a `..` segment climbs out of it.
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/**
 * Validates a scan root a user submitted and returns its real path (symlinks resolved), which is
 * what every later file access should use.
 *
 * The check runs on real paths on both sides, so neither a symlink inside an allowed root that
 * points elsewhere nor an allowed root that is itself a symlink can fool it.
 */
export async function resolveWorkspaceRoot(root: string, allowedRoots: readonly string[]): Promise<string> {
  if (!path.isAbsolute(root)) {
    throw new QuarryError('path_not_absolute', `Workspace root "${root}" is not an absolute path.`, {
      suggestion: `Give an absolute path, e.g. "${path.resolve(root)}".`,
    });
  }
  const requested = path.resolve(root);
  const allowed = await realAllowedRoots(allowedRoots);

  let real: string;
  try {
    // Synchronous: a few metadata look-ups per job, where the promise API's thread-pool trip cost
    // more CPU than the look-ups (this runs for every job of a burst).
    real = realpathSync.native(requested);
  } catch (error) {
    // A missing path outside every allowed root reports as outside, not as missing: otherwise the
    // two answers would let a caller probe which paths exist anywhere on the server.
    if (!allowed.some((allowedRoot) => isInside(allowedRoot.given, requested) || isInside(allowedRoot.real, requested))) {
      throw outsideRoots(root, allowedRoots);
    }
    throw new QuarryError('root_not_found', `Workspace root "${root}" ${describeAccessError(error)}.`, {
      suggestion: 'Check the path for typos; it must exist on the machine that runs the Quarry workers.',
      cause: error,
    });
  }

  if (!allowed.some((allowedRoot) => isInside(allowedRoot.real, real))) {
    throw outsideRoots(root, allowedRoots, real === requested ? undefined : real);
  }

  const stats = statSync(real);
  if (!stats.isDirectory()) {
    throw new QuarryError('root_not_directory', `Workspace root "${root}" is not a directory.`, {
      suggestion: 'Pass the directory that contains the file, e.g. "' + path.dirname(requested) + '".',
    });
  }
  return real;
}

interface AllowedRoot {
  given: string;
  real: string;
}

/** How long the real paths of the allowed roots are reused (they are configuration; a job burst asks 1,000 times a second). */
const ALLOWED_ROOTS_TTL_MS = 1_000;
let allowedCache: { key: string; at: number; roots: Promise<AllowedRoot[]> } | undefined;

/** Allowed roots that do not exist (yet) cannot contain anything and are left out. */
function realAllowedRoots(allowedRoots: readonly string[]): Promise<AllowedRoot[]> {
  const key = allowedRoots.join('\0');
  const now = Date.now();
  if (allowedCache && allowedCache.key === key && now - allowedCache.at < ALLOWED_ROOTS_TTL_MS) return allowedCache.roots;
  const roots = resolveAllowedRoots(allowedRoots);
  allowedCache = { key, at: now, roots };
  return roots;
}

async function resolveAllowedRoots(allowedRoots: readonly string[]): Promise<AllowedRoot[]> {
  const resolved = await Promise.all(
    allowedRoots
      .filter((allowedRoot) => path.isAbsolute(allowedRoot))
      .map(async (allowedRoot) => {
        const given = path.resolve(allowedRoot);
        try {
          return { given, real: await realpath(given) };
        } catch {
          return undefined;
        }
      }),
  );
  return resolved.filter((allowedRoot): allowedRoot is AllowedRoot => allowedRoot !== undefined);
}

function outsideRoots(root: string, allowedRoots: readonly string[], realPath?: string): QuarryError {
  const where = realPath === undefined ? '' : ` (it resolves to "${realPath}")`;
  const allowedList = allowedRoots.length === 0 ? 'no workspace roots are configured' : `allowed roots: ${allowedRoots.join(', ')}`;
  return new QuarryError('path_outside_root', `Workspace root "${root}"${where} is outside the allowed roots; ${allowedList}.`, {
    suggestion: ROOTS_SUGGESTION,
  });
}

function describeAccessError(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EACCES':
    case 'EPERM':
      return 'cannot be accessed (permission denied)';
    case 'ELOOP':
      return 'is a symlink loop';
    default:
      return 'does not exist';
  }
}
