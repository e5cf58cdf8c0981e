import { walkFiles } from '@quarry/workspace';

/**
 * What the planner and the normalizer know about the workspace: which root-relative paths exist
 * and what they are. Built once per job; everything here is synchronous so rule planning stays
 * well under a millisecond.
 */
export interface WorkspaceView {
  kind(relativePath: string): 'file' | 'directory' | undefined;
  /** Every file, root-relative, POSIX separators. */
  files(): readonly string[];
  /** Top-level entries, directories with a trailing slash, sorted. */
  topLevel(): string[];
}

/** A view over a fixed list of root-relative file paths (directories are implied by them). */
export class FileListView implements WorkspaceView {
  private readonly fileSet: Set<string>;
  private readonly directorySet = new Set<string>(['.']);
  private readonly sortedFiles: string[];

  constructor(files: Iterable<string>) {
    this.sortedFiles = [...new Set(files)].sort();
    this.fileSet = new Set(this.sortedFiles);
    for (const file of this.sortedFiles) {
      for (let slash = file.indexOf('/'); slash > 0; slash = file.indexOf('/', slash + 1)) this.directorySet.add(file.slice(0, slash));
    }
  }

  kind(relativePath: string): 'file' | 'directory' | undefined {
    if (this.fileSet.has(relativePath)) return 'file';
    if (this.directorySet.has(relativePath)) return 'directory';
    return undefined;
  }

  files(): readonly string[] {
    return this.sortedFiles;
  }

  directories(): string[] {
    return [...this.directorySet].filter((dir) => dir !== '.');
  }

  topLevel(): string[] {
    const top = new Set<string>();
    for (const file of this.sortedFiles) {
      const slash = file.indexOf('/');
      top.add(slash < 0 ? file : `${file.slice(0, slash)}/`);
    }
    return [...top].sort();
  }
}

/** The view of a workspace on disk, as the walker sees it (gitignore honoured, symlinks not followed). */
export async function workspaceViewOf(root: string, signal?: AbortSignal): Promise<FileListView> {
  const { files } = await walkFiles(root, { signal });
  return new FileListView(files);
}

const derived = new WeakMap<WorkspaceView, { directories: string[]; directoryNames: Set<string> }>();

/** Directories of a view and their lower-cased names, derived once per view (views live for one job). */
function derivedOf(view: WorkspaceView): { directories: string[]; directoryNames: Set<string> } {
  let entry = derived.get(view);
  if (!entry) {
    const directories = (view instanceof FileListView ? view : new FileListView(view.files())).directories();
    const directoryNames = new Set(directories.map((directory) => directory.slice(directory.lastIndexOf('/') + 1).toLowerCase()));
    derived.set(view, (entry = { directories, directoryNames }));
  }
  return entry;
}

/** Every directory of a view, root-relative. */
export function directoriesOf(view: WorkspaceView): readonly string[] {
  return derivedOf(view).directories;
}

/** Whether some directory anywhere in the view has this name, in any case ("api" for src/api). */
export function hasDirectoryNamed(view: WorkspaceView, name: string): boolean {
  return derivedOf(view).directoryNames.has(name.toLowerCase());
}

const fileNames = new WeakMap<WorkspaceView, { names: Set<string>; stems: Set<string> }>();

function fileNamesOf(view: WorkspaceView): { names: Set<string>; stems: Set<string> } {
  let entry = fileNames.get(view);
  if (!entry) {
    const names = new Set(view.files().map((file) => file.slice(file.lastIndexOf('/') + 1).toLowerCase()));
    const stems = new Set([...names].map((name) => (name.indexOf('.', 1) > 0 ? name.slice(0, name.indexOf('.', 1)) : name)));
    fileNames.set(view, (entry = { names, stems }));
  }
  return entry;
}

/** Whether some file anywhere in the view has this name, in any case (".editorconfig", "Cargo.lock"). */
export function hasFileNamed(view: WorkspaceView, name: string): boolean {
  return fileNamesOf(view).names.has(name.toLowerCase());
}

/** Whether some file's name up to its first dot is this word ("logger" for src/utils/logger.ts). */
export function hasFileStem(view: WorkspaceView, word: string): boolean {
  return fileNamesOf(view).stems.has(word.toLowerCase());
}
