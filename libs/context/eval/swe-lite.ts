import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { decodeBlobIndex, encodeBlobIndex, indexVariant, type BlobIndex } from '@quarry/code-index';
import { secretPathReason } from '@quarry/workspace';

/** One SWE-bench Lite instance, as `shared/bench/swe-lite/dev.jsonl` has it. */
export interface SweInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  gold_files: string[];
  gold_lines: Record<string, [number, number][]>;
  in_locagent_274: boolean;
}

/** A file of an instance's tree: its path and blob id, and the variant its index is keyed by. */
export interface TreeBlob {
  path: string;
  oid: string;
  variant: string;
  size: number;
}

/** Blobs over this are left out, as a mirror may not hold them (the README's rule). */
const MAX_BLOB_BYTES = 4 * 1024 * 1024;

export function loadInstances(file: string): SweInstance[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SweInstance);
}

export function mirrorOf(mirrors: string, repo: string): string {
  return path.join(mirrors, repo.replace('/', '+'), 'repo');
}

export function hasCommit(gitDir: string, commit: string): boolean {
  if (!fs.existsSync(gitDir)) return false;
  try {
    execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The tree at a commit as `git ls-tree -r -l` lists it: regular files (no symlinks, no
 * submodules), credential files left out as the code index leaves them out, huge blobs skipped.
 */
export function listTree(gitDir: string, commit: string): TreeBlob[] {
  const output = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-l', '-z', commit], { maxBuffer: 1 << 28 }).toString('utf8');
  const blobs: TreeBlob[] = [];
  for (const record of output.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, oid, size] = record.slice(0, tab).split(/\s+/);
    const file = record.slice(tab + 1);
    if (type !== 'blob' || mode === '120000' || size === '-' || Number(size) > MAX_BLOB_BYTES) continue;
    if (secretPathReason(file) !== undefined) continue;
    blobs.push({ path: file, oid, variant: indexVariant(file), size: Number(size) });
  }
  return blobs;
}

/** Blob contents by id, from one `git cat-file --batch`. */
export function readBlobs(gitDir: string, oids: readonly string[]): Map<string, Buffer> {
  const contents = new Map<string, Buffer>();
  if (oids.length === 0) return contents;
  // In batches, so one call's output stays well under the buffer limit.
  for (let start = 0; start < oids.length; start += 2000) {
    const batch = oids.slice(start, start + 2000);
    const output = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { input: `${batch.join('\n')}\n`, maxBuffer: 1 << 30 });
    let offset = 0;
    while (offset < output.length) {
      const newline = output.indexOf(10, offset);
      const header = output.subarray(offset, newline).toString('utf8');
      const [oid, type, size] = header.split(' ');
      offset = newline + 1;
      if (type === 'missing') continue;
      const length = Number(size);
      contents.set(oid, output.subarray(offset, offset + length));
      offset += length + 1;
    }
  }
  return contents;
}

/**
 * The code index rows of one repository kept on disk between runs (`<cache>/<owner>+<name>.blob-index`):
 * indexing a blob parses it and counts its tokens, the slow part; chunk rows are recomputed every
 * run because they are what is being developed. Records: key length, key, data length, data.
 */
export class BlobIndexDiskCache {
  private readonly rows = new Map<string, Buffer>();
  private readonly added: [string, Buffer][] = [];

  constructor(private readonly file: string) {
    if (!fs.existsSync(file)) return;
    const data = fs.readFileSync(file);
    let offset = 0;
    while (offset < data.length) {
      const keyLength = data.readUInt16BE(offset);
      const key = data.subarray(offset + 2, offset + 2 + keyLength).toString('utf8');
      offset += 2 + keyLength;
      const length = data.readUInt32BE(offset);
      this.rows.set(key, data.subarray(offset + 4, offset + 4 + length));
      offset += 4 + length;
    }
  }

  get(key: string): BlobIndex | undefined {
    const row = this.rows.get(key);
    return row === undefined ? undefined : decodeBlobIndex(row);
  }

  set(key: string, index: BlobIndex): void {
    const row = encodeBlobIndex(index);
    this.rows.set(key, row);
    this.added.push([key, row]);
  }

  save(): void {
    if (this.added.length === 0) return;
    const parts: Buffer[] = [];
    for (const [key, row] of this.rows) {
      const keyBytes = Buffer.from(key, 'utf8');
      const head = Buffer.alloc(2 + keyBytes.length + 4);
      head.writeUInt16BE(keyBytes.length, 0);
      keyBytes.copy(head, 2);
      head.writeUInt32BE(row.length, 2 + keyBytes.length);
      parts.push(head, row);
    }
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(`${this.file}.tmp`, Buffer.concat(parts));
    fs.renameSync(`${this.file}.tmp`, this.file);
    this.added.length = 0;
  }
}
