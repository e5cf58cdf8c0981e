import { createHash } from 'node:crypto';
import { lstatSync, readdir as readdirCallback, readFileSync, statSync, type Stats } from 'node:fs';
import os from 'node:os';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { QuarryError } from '@quarry/contracts/errors';
import { measureFiles, walkFiles, type ExpectedStat, type FileMeasure, type MeasureFilesOptions, type WalkEntry, type WalkOptions, type WalkResult } from '@quarry/workspace';
import { attributesMayConvert, parseIndexFile, type IndexedFile } from './git-index';
import { runGit, type GitEnvironment } from './git-process';
import type { ResolvedSource, Snapshot, SnapshotEntry } from './snapshot';

/**
 * A directory on this worker (already checked inside QUARRY_WORKSPACE_ROOTS), read as it is now:
 * the walker's listing (the ignore rules), the adaptive reader's measures. Blob ids are computed
 * only when asked for (`entry`), so a scan costs what it did before snapshots existed.
 *
 * Its identity (`identify`): HEAD when the directory is a clean git checkout (`git status` runs
 * beside the scan, in its own process, from `prepareIdentity`); otherwise a content hash of the
 * tree — HEAD plus the changed files for a dirty checkout, every file for a directory outside git.
 * The hash is taken after the work, from what the work already read: the listing of its walk and
 * the blob ids of the files it read (`readBlob`), so a scan reads each file once, not twice.
 */
export class LocalSnapshot implements Snapshot {
  readonly kind = 'directory';
  private identity: Promise<ResolvedSource> | undefined;
  private git: Promise<{ head: string; changed: string[] } | undefined> | undefined;
  /** The files of the last whole walk, and the blob ids of files read through `readBlob`: the identity's inputs. */
  private listing: readonly string[] | undefined;
  private readonly blobs = new Map<string, string>();
  /**
   * Directory reads shared by the walk and the stack detection that runs beside it (both list the
   * same directories): the first to ask reads, the second takes the answer and drops it, so a
   * directory is read once and nothing is kept after both had it.
   */
  private readonly directoryReads = new Map<string, Promise<readonly WalkEntry[]>>();

  constructor(
    readonly root: string,
    private readonly environment: GitEnvironment,
  ) {}

  /** Available once `identify()` resolved. */
  get source(): ResolvedSource {
    if (!this.resolved) throw new Error('LocalSnapshot.source read before identify()');
    return this.resolved;
  }
  private resolved: ResolvedSource | undefined;

  /** Starts what can run beside the work (asking git for HEAD and the changes); `identify` finishes it. */
  prepareIdentity(signal?: AbortSignal): void {
    this.git ??= this.gitState(signal);
    this.git.catch(() => undefined); // awaited by identify()
  }

  /**
   * Starts reading git's index beside the walk, for `listedBlobs` (a scan's; other jobs on a
   * directory never pay for it): a kernel checkout's index is 8 MB to read and parse.
   */
  prepareListedBlobs(signal?: AbortSignal): void {
    this.indexed ??= this.readIndex(signal);
    this.prepareIdentity(signal); // listedBlobs takes `git status`'s verdict too
  }

  identify(signal?: AbortSignal): Promise<ResolvedSource> {
    this.identity ??= this.computeIdentity(signal).then((source) => (this.resolved = source));
    return this.identity;
  }

  async walk(options: WalkOptions = {}): Promise<WalkResult> {
    const result = await walkFiles(this.root, options.tree ? options : { ...options, listDirectory: (relative) => this.listDirectory(relative) });
    if (!options.tree) this.listing = result.files;
    return result;
  }

  async readBlob(relative: string): Promise<{ blob: string; content: Buffer } | undefined> {
    const content = await this.readFile(relative);
    if (!content) return undefined;
    const blob = blobId(content);
    this.blobs.set(relative, blob);
    return { blob, content };
  }

  /**
   * The blob of each listed file as git's index holds it (read beside the walk), for the tracked
   * regular files that `git status` (also beside the walk) found unchanged: git's own judgement
   * from the stat the index recorded. A file that is read is checked again on its open descriptor
   * (`listedStat`: a write during the scan is seen); one whose blob's facts are known is not read,
   * and counts as status saw it. Others (changed, untracked, racily clean, a directory outside
   * git, a checkout whose attributes convert content) are undefined: learnt by reading.
   */
  readonly listedBlobs = async (paths: readonly string[]): Promise<Array<string | undefined>> => {
    this.prepareListedBlobs();
    const [index, status] = await Promise.all([this.indexed, this.git?.catch(() => undefined)]);
    // An untracked .gitattributes applies too (the tracked ones were read with the index).
    const untrackedAttributes = index && paths.filter((relative) => isAttributesFile(relative) && !index.has(relative));
    const converts = untrackedAttributes?.some((relative) => attributesMayConvert(readText(path.join(this.root, relative))));
    if (index && status && !converts) {
      for (const relative of status.changed) index.delete(relative);
      this.index = index;
    }
    return paths.map((relative) => this.index?.get(relative)?.blob);
  };
  private indexed: Promise<Map<string, IndexedFile> | undefined> | undefined;
  private index: Map<string, IndexedFile> | undefined;

  /**
   * The size and mtime the index recorded for a file whose blob it vouches for: a shard that reads
   * the file expects them of it (`ExpectedStat`) and hashes it instead when they moved.
   */
  listedStat(relative: string): ExpectedStat | undefined {
    return this.index?.get(relative);
  }

  learnBlobs(entries: Iterable<readonly [path: string, blob: string]>): void {
    for (const [relative, blob] of entries) this.blobs.set(relative, blob);
  }

  measure(files: readonly string[], onMeasured: (relative: string, measure: FileMeasure) => void, options: MeasureFilesOptions = {}): Promise<void> {
    return measureFiles(this.root, files, onMeasured, options);
  }

  async readDirectory(relative: string): Promise<readonly WalkEntry[] | undefined> {
    try {
      return await this.listDirectory(relative === '.' ? '' : relative.replace(/^\.\//, ''));
    } catch {
      return undefined;
    }
  }

  /** A directory's entries: read now, or taken from the read another consumer started (see directoryReads). */
  private listDirectory(relative: string): Promise<readonly WalkEntry[]> {
    const shared = this.directoryReads.get(relative);
    if (shared) {
      this.directoryReads.delete(relative);
      return shared;
    }
    const read = new Promise<readonly WalkEntry[]>((resolve, reject) => {
      readdirCallback(this.absolute(relative), { withFileTypes: true }, (error, entries) => (error ? reject(error) : resolve(entries)));
    });
    read.catch(() => undefined); // its consumers handle the failure
    this.directoryReads.set(relative, read);
    return read;
  }

  async entry(relative: string): Promise<SnapshotEntry | undefined> {
    const absolute = this.absolute(relative);
    const stats = await lstat(absolute).catch(() => undefined);
    if (!stats || !(stats.isFile() || stats.isSymbolicLink())) return undefined;
    const content = stats.isSymbolicLink() ? Buffer.from(await readlink(absolute)) : await readFile(absolute);
    return { path: toPosix(path.relative(this.root, absolute)), mode: stats.isSymbolicLink() ? '120000' : stats.mode & 0o111 ? '100755' : '100644', blob: blobId(content) };
  }

  /**
   * Synchronous on purpose: detection reads a thousand small manifests, and one blocking read costs
   * microseconds where the promise API makes four thread-pool trips (measured 3x slower).
   */
  async readFile(relative: string, options: { maxBytes?: number } = {}): Promise<Buffer | undefined> {
    try {
      const absolute = this.absolute(relative);
      if (options.maxBytes !== undefined && statSync(absolute).size > options.maxBytes) return undefined;
      return readFileSync(absolute);
    } catch {
      return undefined;
    }
  }

  async prefetch(): Promise<void> {
    // The files are on this disk already.
  }

  async readRange(relative: string, start: number, end: number): Promise<Buffer | undefined> {
    return (await this.readFile(relative))?.subarray(start, end);
  }

  async workingTree(): Promise<string> {
    return this.root;
  }

  close(): void {
    this.directoryReads.clear();
  }

  /** Inside the root by construction: no absolute paths, no `..` segments. */
  private absolute(relative: string): string {
    const clean = relative === '.' || relative === '' ? '' : relative.replace(/^\.\//, '');
    if (path.isAbsolute(clean) || clean.split('/').includes('..') || clean.includes('\0')) {
      throw new QuarryError('path_outside_root', `"${relative}" is not a path inside the repository.`, { suggestion: 'Give a path relative to the repository root.' });
    }
    return clean === '' ? this.root : path.join(this.root, clean);
  }

  private async computeIdentity(signal?: AbortSignal): Promise<ResolvedSource> {
    this.prepareIdentity(signal);
    const git = await this.git;
    if (git && git.changed.length === 0) return { path: this.root, ref: null, commit: git.head };
    const hash = createHash('sha1');
    let files: readonly string[];
    if (git) {
      hash.update(`head ${git.head}\n`);
      files = git.changed;
    } else {
      files = this.listing ?? (await this.walk({ signal })).files;
    }
    for (const relative of [...files].sort()) {
      signal?.throwIfAborted();
      let blob = this.blobs.get(relative);
      if (blob === undefined) {
        const content = await readFile(path.join(this.root, relative)).catch(() => undefined);
        blob = content ? blobId(content) : 'deleted';
      }
      hash.update(`${relative}\0${blob}\n`);
    }
    return { path: this.root, ref: null, commit: hash.digest('hex'), dirty: true };
  }

  /** HEAD and the changed or untracked files, when the root is a checkout's top; else undefined. */
  private async gitState(signal?: AbortSignal): Promise<{ head: string; changed: string[] } | undefined> {
    // One `git status` gives both HEAD and the changes.
    if (!isCheckoutTop(this.root)) return undefined;
    const options = { cwd: this.root, timeoutMs: 60_000, signal };
    try {
      const status = (await runGit(this.environment, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--ignore-submodules=all'], options)).toString('utf8');
      return parseStatus(status);
    } catch (error) {
      if (signal?.aborted) throw error;
      return undefined;
    }
  }

  /**
   * The index's regular files at stage 0, or undefined when this is no checkout's top or when a
   * setting or an attribute may convert content between the working tree and the index (then the
   * bytes a scan reads are not those blobs'). Entries written in the same millisecond as the
   * index or after it are left out: their stat cannot vouch for their content (git's "racily
   * clean" rule). Git's settings are read as the user's git would (the repository's config, the
   * user's and the system's), though Quarry's own git commands ignore the last two.
   */
  private async readIndex(signal?: AbortSignal): Promise<Map<string, IndexedFile> | undefined> {
    if (!isCheckoutTop(this.root)) return undefined;
    const options = { cwd: this.root, timeoutMs: 60_000, signal };
    try {
      const [repositorySettings, gitPaths] = await Promise.all([
        runGit(this.environment, ['config', '--get-regexp', '^core\\.(autocrlf|attributesfile)$'], options).then((out) => out.toString('utf8'), () => ''),
        runGit(this.environment, ['rev-parse', '--show-object-format', '--git-path', 'index', '--git-path', 'info/attributes'], options).then((out) => out.toString('utf8').trim().split('\n')),
      ]);
      const [objectFormat, indexPath, infoAttributesPath] = gitPaths;
      const [indexFile, infoAttributes] = [indexPath, infoAttributesPath].map((gitPath) => path.resolve(this.root, gitPath));
      // The index's mtime before its content: an index rewritten in between is judged by its
      // predecessor's time, so more of its entries count as racy, never fewer.
      const indexWritten = probe(indexFile)?.mtimeMs;
      const index = parseIndexFile(await readFile(indexFile), objectFormat === 'sha256' ? 32 : 20);
      if (!index || indexWritten === undefined) return undefined;
      const settings = [repositorySettings, ...userGitConfigFiles().map(readText)].join('\n');
      if (/autocrlf\s*=?\s*(true|input)\b/i.test(settings)) return undefined;
      const attributeFiles = [
        ...[...index.keys()].filter(isAttributesFile).map((relative) => path.join(this.root, relative)),
        infoAttributes,
        ...[...settings.matchAll(/attributesfile\s*=?\s*(\S+)/gi)].map((match) => match[1].replace(/^~(?=\/)/, os.homedir())),
        userGitFile('attributes'),
        '/etc/gitattributes',
      ];
      if (attributeFiles.some((file) => attributesMayConvert(readText(file)))) return undefined;
      const racyFrom = Math.floor(indexWritten);
      for (const [relative, file] of index) if (file.mtimeMs >= racyFrom) index.delete(relative);
      return index;
    } catch (error) {
      if (signal?.aborted) throw error;
      return undefined;
    }
  }
}

/**
 * `git status --porcelain=v2 -z --branch`: `# branch.oid <sha>` (or `(initial)`: no HEAD yet), then
 * `1 XY … <path>`, `2 XY … <path>` followed by the rename's source, `u XY … <path>`, `? <path>`.
 */
export function parseStatus(status: string): { head: string; changed: string[] } | undefined {
  let head: string | undefined;
  const changed: string[] = [];
  const records = status.split('\0');
  for (let index = 0; index < records.length; index++) {
    const record = records[index];
    if (record.startsWith('# branch.oid ')) head = record.slice('# branch.oid '.length);
    else if (record.startsWith('1 ')) changed.push(afterFields(record, 8));
    else if (record.startsWith('2 ')) {
      changed.push(afterFields(record, 9));
      index++; // the rename's source follows
    } else if (record.startsWith('u ')) changed.push(afterFields(record, 10));
    else if (record.startsWith('? ')) changed.push(record.slice(2));
  }
  if (!head || !/^[0-9a-f]{40,64}$/.test(head)) return undefined;
  return { head, changed };
}

/** The rest of a record after `count` space-separated fields (a path may hold spaces). */
function afterFields(record: string, count: number): string {
  let at = 0;
  for (let field = 0; field < count; field++) at = record.indexOf(' ', at) + 1;
  return record.slice(at);
}

/**
 * Whether `root` is a checkout's top: it has a .git entry (a directory with HEAD, or a worktree's
 * gitdir file). Anything else is answered without starting git, whose process start is most of a
 * small scan's cost. Probed synchronously and without exceptions: two metadata look-ups, mostly misses.
 */
export function isCheckoutTop(root: string): boolean {
  const dotGit = probe(path.join(root, '.git'));
  if (!dotGit) return false;
  return !dotGit.isDirectory() || !!probe(path.join(root, '.git', 'HEAD'));
}

export function isAttributesFile(relative: string): boolean {
  return relative === '.gitattributes' || relative.endsWith('/.gitattributes');
}

/** The git config files a user's own git reads besides the repository's: global and system. */
export function userGitConfigFiles(): string[] {
  return [path.join(os.homedir(), '.gitconfig'), userGitFile('config'), '/etc/gitconfig'];
}

/** A file of the user's git settings directory: `$XDG_CONFIG_HOME/git/<name>`, else `~/.config/git/<name>`. */
export function userGitFile(name: string): string {
  return path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'git', name);
}

/** A small text file's contents, or '' when it cannot be read. */
export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** What is at `file` (not following a symlink), or undefined: a miss costs no exception. */
function probe(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR, EACCES
  }
}

/** git's blob id: sha1 of `blob <size>\0` and the content. */
export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}
