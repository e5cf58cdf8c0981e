import type { GraphFileInput } from '../graph/code-graph';
import { createNavigationIndex, type NavigationIndex, type SourceReader } from '../navigation-index';
import type { ModuleConfig } from '../resolve/module-config';
import type { ChangeSet } from './change-set';

/**
 * The tree after a change, for a change given as a diff against the tree as it is: its files with
 * the changed ones indexed again from their new text (`indexText`, the tree's indexer) and the
 * deleted ones gone; the other files' indexes are reused as they are.
 */
export async function indexAfterChange(
  files: readonly GraphFileInput[],
  read: SourceReader,
  change: ChangeSet,
  indexText: (path: string, text: string) => GraphFileInput['index'],
  config?: ModuleConfig,
): Promise<NavigationIndex> {
  const replaced = new Map<string, string | undefined>();
  for (const file of change.files) {
    if (file.oldPath !== undefined && file.oldPath !== file.path) replaced.set(file.oldPath, undefined);
    replaced.set(file.path, file.newText);
  }
  const after: GraphFileInput[] = files.filter((file) => !replaced.has(file.path));
  for (const [path, text] of replaced) if (text !== undefined) after.push({ path, index: indexText(path, text) });
  const readAfter: SourceReader = async (path) => (replaced.has(path) ? replaced.get(path) : read(path));
  return createNavigationIndex(after, readAfter, config === undefined ? {} : { config });
}
