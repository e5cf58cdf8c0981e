import { decodeText } from '@quarry/code-index';
import type { Snapshot } from '@quarry/snapshot';

/** A snapshot's files as text (undefined: not in it), as the navigation graph reads the lines it shows. */
export function snapshotText(snapshot: Snapshot): (path: string) => Promise<string | undefined> {
  return async (path) => {
    const content = await snapshot.readFile(path);
    return content === undefined ? undefined : decodeText(content);
  };
}
