import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/** Files to create, by POSIX path relative to the tree's root. */
export type TreeSpec = Record<string, string | Buffer>;

/** A fresh directory under os.tmpdir() holding `files`; remove it with removeTempTree. */
export async function makeTempTree(files: TreeSpec = {}, prefix = 'quarry-workspace-'): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), prefix));
  await addFiles(root, files);
  return root;
}

export async function addFiles(root: string, files: TreeSpec): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, relative);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }
}

export async function removeTempTree(root: string | undefined): Promise<void> {
  if (root) await rm(root, { recursive: true, force: true });
}
