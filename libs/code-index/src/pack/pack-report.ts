import type { JobInput, JobProgress, JobResult } from '@quarry/contracts';
import type { PackSink } from './sinks';
import { writePack, type PackFile, type PackOptions } from './write-pack';
import type { TokenEncoding } from '../tokens/token-counter';

type PackInput = Omit<JobInput<'pack'>, 'root' | 'source'>;
type TokenTotals = JobResult<'map'>['repository'];

const LARGEST_FILES = 20;

export type PackTreeResult = Omit<JobResult<'pack'>, 'artifact' | 'durationMs'>;

/**
 * Writes a pack (`writePack`) with progress at most every 250 ms, and shapes the job's result:
 * the same for a directory and for a snapshot.
 */
export async function writePackReporting(
  files: readonly PackFile[],
  sink: PackSink,
  input: PackInput,
  options: {
    encoding: TokenEncoding;
    symbols: PackOptions['symbols'];
    title?: string;
    signal?: AbortSignal;
    onProgress?: (progress: JobProgress) => void;
    /** What the bar counts to (the selected files, when the caller knows them). */
    progressTotal: number;
    secretFiles: number;
  },
): Promise<PackTreeResult> {
  const { encoding, onProgress, progressTotal: total } = options;
  const totals = new TokenTotalsBuilder(encoding);
  let written = 0;
  let lastReport = 0;
  const result = await writePack(files, sink, {
    style: input.style,
    include: input.include,
    ignore: input.ignore,
    compress: input.compress,
    maxTokens: input.maxTokens,
    encoding,
    title: options.title,
    symbols: options.symbols,
    signal: options.signal,
    onFile: (file) => {
      totals.add(file.path, file.language, file.tokens);
      written++;
      const now = performance.now();
      if (now - lastReport > 250) {
        lastReport = now;
        onProgress?.({ stage: 'packing', done: written, total, message: file.path });
      }
    },
  });
  onProgress?.({ stage: 'packed', done: written, total, message: `${result.files} files, ${result.tokens} tokens` });
  return {
    style: result.style,
    files: result.files,
    tokens: result.tokens,
    encoding,
    bytes: result.bytes,
    redactions: result.redactions,
    compressed: result.compressed,
    omitted: result.omitted,
    skipped: { ...result.skipped, secretFiles: options.secretFiles },
    totals: totals.result(),
  };
}

/** Tokens per language, top-level directory and file, as the map and pack results report them. */
export class TokenTotalsBuilder {
  private total = 0;
  private readonly languages = new Map<string, { language: string; files: number; tokens: number }>();
  private readonly directories = new Map<string, { path: string; files: number; tokens: number }>();
  private largest: { path: string; tokens: number }[] = [];

  constructor(private readonly encoding: TokenEncoding) {}

  add(path: string, language: string | undefined, tokens: number): void {
    this.total += tokens;
    const name = language ?? 'Other';
    const languageRow = this.languages.get(name) ?? this.languages.set(name, { language: name, files: 0, tokens: 0 }).get(name)!;
    languageRow.files++;
    languageRow.tokens += tokens;
    const slash = path.indexOf('/');
    const top = slash === -1 ? '.' : path.slice(0, slash);
    const directoryRow = this.directories.get(top) ?? this.directories.set(top, { path: top, files: 0, tokens: 0 }).get(top)!;
    directoryRow.files++;
    directoryRow.tokens += tokens;
    if (this.largest.length < LARGEST_FILES || tokens > this.largest[this.largest.length - 1].tokens) {
      this.largest.push({ path, tokens });
      this.largest.sort((a, b) => b.tokens - a.tokens || (a.path < b.path ? -1 : 1));
      if (this.largest.length > LARGEST_FILES) this.largest.pop();
    }
  }

  result(): TokenTotals {
    const byTokens = <T extends { tokens: number }>(rows: Iterable<T>, key: (row: T) => string) => [...rows].sort((a, b) => b.tokens - a.tokens || (key(a) < key(b) ? -1 : 1));
    return {
      total: this.total,
      encoding: this.encoding,
      byLanguage: byTokens(this.languages.values(), (row) => row.language),
      byDirectory: byTokens(this.directories.values(), (row) => row.path),
      largestFiles: [...this.largest],
    };
  }
}
