import { BlobIndexer, indexBlob } from '@quarry/code-index';
import { createNavigationIndex, type NavigationIndex } from '../navigation-index';

let indexer: Promise<BlobIndexer> | undefined;

/** The navigation index of an in-memory tree (path → text), as a scan would index it. */
export async function fixtureTree(files: Readonly<Record<string, string>>): Promise<NavigationIndex> {
  const blobIndexer = await (indexer ??= BlobIndexer.create());
  const inputs = Object.entries(files).map(([path, text]) => ({ path, index: indexBlob(blobIndexer, path, Buffer.from(text)) }));
  return createNavigationIndex(inputs, async (path) => files[path]);
}

/** The index of one text with the fixture's indexer (what a diff's new text is indexed with). */
export async function indexText(path: string, text: string) {
  return indexBlob(await (indexer ??= BlobIndexer.create()), path, Buffer.from(text));
}

/** `path:line` of each use, sorted: what the reference fixtures compare. */
export function pairs(references: readonly { path: string; line: number }[]): string[] {
  return [...new Set(references.map((reference) => `${reference.path}:${reference.line}`))].sort();
}
