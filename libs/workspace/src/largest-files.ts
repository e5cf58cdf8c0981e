export interface SizedFile {
  path: string;
  bytes: number;
  language: string;
}

/**
 * Keeps the `limit` largest files seen, largest first; equal sizes by path, so the answer does
 * not depend on the order concurrent reads finish in. Offering a file costs one comparison once
 * the list is full, which is almost every time in a large scan.
 */
export class LargestFiles {
  private readonly files: SizedFile[] = [];
  /** False once a file left a full list: the one that would now rank last was never kept. */
  complete = true;

  constructor(private readonly limit: number) {}

  offer(file: SizedFile): void {
    if (this.limit <= 0) return;
    if (this.files.length === this.limit && !ranksBefore(file, this.files[this.files.length - 1])) return;
    let index = this.files.length;
    while (index > 0 && ranksBefore(file, this.files[index - 1])) index--;
    this.files.splice(index, 0, file);
    if (this.files.length > this.limit) this.files.pop();
  }

  /** Takes a file out (it changed or went); see `complete`. */
  remove(path: string): void {
    const at = this.files.findIndex((file) => file.path === path);
    if (at === -1) return;
    if (this.files.length === this.limit) this.complete = false;
    this.files.splice(at, 1);
  }

  toArray(): SizedFile[] {
    return [...this.files];
  }

  toJSON(): { limit: number; files: SizedFile[]; complete: boolean } {
    return { limit: this.limit, files: this.toArray(), complete: this.complete };
  }

  static fromJSON(json: { limit: number; files: SizedFile[]; complete: boolean }): LargestFiles {
    const largest = new LargestFiles(json.limit);
    largest.files.push(...json.files.map((file) => ({ ...file })));
    largest.complete = json.complete;
    return largest;
  }
}

function ranksBefore(a: SizedFile, b: SizedFile): boolean {
  return a.bytes > b.bytes || (a.bytes === b.bytes && a.path < b.path);
}
