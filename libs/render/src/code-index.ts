import type { JobResult } from '@quarry/contracts';
import { formatBytes, formatCount } from '@quarry/contracts/format';

type TokenTotals = JobResult<'map'>['repository'];

/** Definitions, one per line: `path:line  kind  signature` (with uses for a lookup). */
export function formatSymbols(result: JobResult<'symbols'>): string {
  const lines = result.definitions.map((definition) => {
    const uses = definition.references === undefined ? '' : `  (${formatCount(definition.references)} use${definition.references === 1 ? '' : 's'})`;
    return `${definition.path}:${definition.line}  ${definition.kind}  ${definition.signature || definition.name}${uses}`;
  });
  if (lines.length === 0) lines.push('no definitions');
  if (result.truncated) lines.push(`… ${formatCount(result.total - result.definitions.length)} more (of ${formatCount(result.total)}); raise the limit or narrow the path`);
  return lines.join('\n');
}

/** The map's text, then one line on what it covers. */
export function formatMap(result: JobResult<'map'>): string {
  const focus = [...result.focus.paths, ...result.focus.symbols];
  return [
    result.text,
    '',
    `${formatCount(result.tokens)} tokens (${result.encoding}): ${formatCount(result.files.length)} of ${formatCount(result.totalFiles)} files, ` +
      `${formatCount(result.files.reduce((sum, file) => sum + file.definitions, 0))} of ${formatCount(result.totalDefinitions)} definitions` +
      `${focus.length ? `, focused on ${focus.join(', ')}` : ''}; the repository is ${formatCount(result.repository.total)} tokens`,
  ].join('\n');
}

/** What was packed, where it is, and where the tokens are. */
export function formatPack(result: JobResult<'pack'>, where?: string): string {
  const lines = [
    `packed ${formatCount(result.files)} files, ${formatCount(result.tokens)} tokens (${result.encoding}), ${formatBytes(result.bytes)} as ${result.style}` +
      ` in ${(result.durationMs / 1000).toFixed(2)}s → ${where ?? result.artifact.path ?? result.artifact.name}`,
  ];
  const notes = [
    result.redactions ? `${formatCount(result.redactions)} secret${result.redactions === 1 ? '' : 's'} redacted` : '',
    result.compressed ? `${formatCount(result.compressed)} files compressed` : '',
    result.omitted ? `${formatCount(result.omitted)} files omitted (over the token budget)` : '',
    result.skipped.binary ? `${formatCount(result.skipped.binary)} binary skipped` : '',
    result.skipped.filtered ? `${formatCount(result.skipped.filtered)} filtered out` : '',
    result.skipped.secretFiles ? `${formatCount(result.skipped.secretFiles)} credential files left out` : '',
  ].filter(Boolean);
  if (notes.length) lines.push(notes.join(', '));
  lines.push('', formatTokenTotals(result.totals));
  return lines.join('\n');
}

/** Tokens per language, top-level directory and largest file. */
export function formatTokenTotals(totals: TokenTotals, rows = 10): string {
  const share = (tokens: number) => (totals.total > 0 ? `${((tokens / totals.total) * 100).toFixed(1)}%` : '');
  const lines = ['Tokens by language'.padEnd(30) + 'files'.padStart(8) + 'tokens'.padStart(14) + '   share'];
  for (const row of totals.byLanguage.slice(0, rows)) lines.push(`  ${row.language.padEnd(28)}${formatCount(row.files).padStart(8)}${formatCount(row.tokens).padStart(14)}${share(row.tokens).padStart(8)}`);
  lines.push('', 'Tokens by directory');
  for (const row of totals.byDirectory.slice(0, rows)) lines.push(`  ${row.path.padEnd(28)}${formatCount(row.files).padStart(8)}${formatCount(row.tokens).padStart(14)}${share(row.tokens).padStart(8)}`);
  lines.push('', 'Largest files (tokens)');
  for (const row of totals.largestFiles.slice(0, 5)) lines.push(`  ${formatCount(row.tokens).padStart(10)}  ${row.path}`);
  return lines.join('\n');
}
