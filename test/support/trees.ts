import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Writes `files` (relative path → content) under a fresh temp directory and returns it. */
export function makeTree(files: Record<string, string | Buffer>, prefix = 'quarry-tree-'): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return root;
}

export interface GeneratedTree {
  root: string;
  files: number;
  lines: number;
  bytes: number;
}

/**
 * A tree of `count` small text files in nested directories (TypeScript, Python, Markdown), built
 * once per machine and reused: integration, e2e and bench runs all scan the same shape.
 */
export function generatedTree(count: number): GeneratedTree {
  const root = path.join(os.tmpdir(), `quarry-test-tree-${count}`);
  const marker = path.join(root, '.complete.json');
  if (fs.existsSync(marker)) return JSON.parse(fs.readFileSync(marker, 'utf8')) as GeneratedTree;
  fs.rmSync(root, { recursive: true, force: true });
  const extensions = ['ts', 'py', 'md', 'go'];
  let lines = 0;
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, `pkg${i % 20}`, `mod${Math.floor(i / 20) % 25}`, `part${Math.floor(i / 500)}`);
    if (i % 20 === 0 || !fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true });
    const lineCount = 1 + (i % 7);
    const content = Array.from({ length: lineCount }, (_, n) => `line ${n} of file ${i}`).join('\n') + '\n';
    fs.writeFileSync(path.join(dir, `file${i}.${extensions[i % extensions.length]}`), content);
    lines += lineCount;
    bytes += Buffer.byteLength(content);
  }
  const tree: GeneratedTree = { root, files: count, lines, bytes };
  // The marker is a dot-file the scan would count; keep it out through git's exclude mechanism.
  fs.mkdirSync(path.join(root, '.git', 'info'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git', 'info', 'exclude'), '.complete.json\n');
  fs.writeFileSync(marker, JSON.stringify(tree));
  return tree;
}
