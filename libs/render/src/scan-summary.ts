import type { ScanResult } from '@quarry/contracts';
import { humanBytes, number } from './numbers';

/** The scan result as a reader wants it on a terminal. */
export function formatScanSummary(result: ScanResult): string {
  const lines: string[] = [];
  const source = result.source;
  // The short commit names exactly what was counted: a branch moves, a commit does not.
  lines.push(source ? `${'git' in source ? `${source.git} @ ${source.ref}` : source.path} ${source.commit.slice(0, 12)}${'dirty' in source && source.dirty ? ' (uncommitted changes: content hash)' : ''}` : `${result.root}`);
  lines.push(`${number(result.files)} files, ${humanBytes(result.bytes)}, ${number(result.lines)} lines in ${(result.durationMs / 1000).toFixed(2)}s`);
  if (result.blobs) {
    lines.push(`${number(result.blobs.processed)} of ${number(result.blobs.total)} blobs read (${number(result.blobs.reused)} known) in ${number(result.shards ?? 0)} shards on ${number(result.workers ?? 0)} worker${result.workers === 1 ? '' : 's'}`);
  }
  if (result.updatedFrom) lines.push(`updated the scan of ${result.updatedFrom.slice(0, 12)}: only the files changed since were looked at`);
  const skipped = result.skipped;
  lines.push(`skipped: ${number(skipped.binary)} binary, ${number(skipped.ignored)} ignored, ${number(skipped.symlinks)} symlinks, ${number(skipped.unreadable)} unreadable`);
  lines.push('');
  lines.push('Languages'.padEnd(22) + 'files'.padStart(10) + 'lines'.padStart(12) + 'bytes'.padStart(12) + '   share');
  for (const language of result.languages.slice(0, 15)) {
    const share = result.bytes > 0 ? ((language.bytes / result.bytes) * 100).toFixed(1) + '%' : '';
    lines.push(
      language.language.padEnd(22) + number(language.files).padStart(10) + number(language.lines).padStart(12) + humanBytes(language.bytes).padStart(12) + share.padStart(8),
    );
  }
  if (result.languages.length > 15) lines.push(`… and ${result.languages.length - 15} more`);
  lines.push('');
  lines.push('Top-level directories');
  for (const directory of result.directories.slice(0, 10)) {
    lines.push(`  ${directory.path.padEnd(30)} ${number(directory.files).padStart(8)} files ${humanBytes(directory.bytes).padStart(10)}`);
  }
  lines.push('');
  lines.push('Largest files');
  for (const file of result.largestFiles.slice(0, 5)) lines.push(`  ${humanBytes(file.bytes).padStart(10)}  ${file.path}`);
  return lines.join('\n');
}
