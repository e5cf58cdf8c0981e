import type { ScanResult } from '@quarry/contracts';
import { formatBytes, formatCount } from '@quarry/contracts/format';

/** The scan result as a reader wants it on a terminal. */
export function formatScanSummary(result: ScanResult): string {
  const lines: string[] = [];
  const source = result.source;
  // The short commit names exactly what was counted: a branch moves, a commit does not.
  lines.push(source ? `${'git' in source ? `${source.git} @ ${source.ref}` : source.path} ${source.commit.slice(0, 12)}${'dirty' in source && source.dirty ? ' (uncommitted changes: content hash)' : ''}` : `${result.root}`);
  lines.push(`${formatCount(result.files)} files, ${formatBytes(result.bytes)}, ${formatCount(result.lines)} lines in ${(result.durationMs / 1000).toFixed(2)}s`);
  if (result.blobs) {
    lines.push(`${formatCount(result.blobs.processed)} of ${formatCount(result.blobs.total)} blobs read (${formatCount(result.blobs.reused)} known) in ${formatCount(result.shards ?? 0)} shards on ${formatCount(result.workers ?? 0)} worker${result.workers === 1 ? '' : 's'}`);
  }
  if (result.updatedFrom) lines.push(`updated the scan of ${result.updatedFrom.slice(0, 12)}: only the files changed since were looked at`);
  const skipped = result.skipped;
  lines.push(`skipped: ${formatCount(skipped.binary)} binary, ${formatCount(skipped.ignored)} ignored, ${formatCount(skipped.symlinks)} symlinks, ${formatCount(skipped.unreadable)} unreadable`);
  lines.push('');
  lines.push('Languages'.padEnd(22) + 'files'.padStart(10) + 'lines'.padStart(12) + 'bytes'.padStart(12) + '   share');
  for (const language of result.languages.slice(0, 15)) {
    const share = result.bytes > 0 ? ((language.bytes / result.bytes) * 100).toFixed(1) + '%' : '';
    lines.push(
      language.language.padEnd(22) + formatCount(language.files).padStart(10) + formatCount(language.lines).padStart(12) + formatBytes(language.bytes).padStart(12) + share.padStart(8),
    );
  }
  if (result.languages.length > 15) lines.push(`… and ${result.languages.length - 15} more`);
  lines.push('');
  lines.push('Top-level directories');
  for (const directory of result.directories.slice(0, 10)) {
    lines.push(`  ${directory.path.padEnd(30)} ${formatCount(directory.files).padStart(8)} files ${formatBytes(directory.bytes).padStart(10)}`);
  }
  lines.push('');
  lines.push('Largest files');
  for (const file of result.largestFiles.slice(0, 5)) lines.push(`  ${formatBytes(file.bytes).padStart(10)}  ${file.path}`);
  return lines.join('\n');
}
