/**
 * The directory tree of a set of paths, and the order files are packed in: depth first, each
 * directory's entries by name (directories and files together, as `git ls-files` lists them per
 * level), so the tree and the files section read in the same order.
 */
interface DirectoryNode {
  directories: Map<string, DirectoryNode>;
  files: Set<string>;
}

export interface DirectoryTree {
  /** Paths in tree order. */
  paths: string[];
  /** `name/` for directories, two spaces per level, one line each. */
  lines(): Generator<string>;
}

export function buildDirectoryTree(paths: Iterable<string>): DirectoryTree {
  const root: DirectoryNode = { directories: new Map(), files: new Set() };
  for (const path of paths) {
    const parts = path.split('/');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let child = node.directories.get(part);
      if (child === undefined) node.directories.set(part, (child = { directories: new Map(), files: new Set() }));
      node = child;
    }
    node.files.add(parts[parts.length - 1]);
  }
  const ordered: string[] = [];
  visit(root, '', (path) => ordered.push(path));
  return {
    paths: ordered,
    // Line by line, so a tree of 100k files is never one string.
    lines: () => walkLines(root, 0),
  };
}

function entriesOf(node: DirectoryNode): [string, DirectoryNode | undefined][] {
  const entries: [string, DirectoryNode | undefined][] = [...node.directories].map(([name, child]) => [name, child] as [string, DirectoryNode]);
  for (const name of node.files) entries.push([name, undefined]);
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function visit(node: DirectoryNode, prefix: string, onFile: (path: string) => void): void {
  for (const [name, child] of entriesOf(node)) {
    if (child === undefined) onFile(prefix + name);
    else visit(child, `${prefix}${name}/`, onFile);
  }
}

function* walkLines(node: DirectoryNode, depth: number): Generator<string> {
  const indent = '  '.repeat(depth);
  for (const [name, child] of entriesOf(node)) {
    if (child === undefined) {
      yield `${indent}${name}\n`;
    } else {
      yield `${indent}${name}/\n`;
      yield* walkLines(child, depth + 1);
    }
  }
}
