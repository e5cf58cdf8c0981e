import type { CallGraphResult, DefinitionResult, ImpactResult, ImportsResult, NavigationSymbol, OutlineResult, Reference, ReferencesResult } from '@quarry/contracts';
import { formatCount } from '@quarry/contracts/format';

const at = (symbol: Pick<NavigationSymbol, 'path' | 'line'>) => `${symbol.path}:${symbol.line}`;
const named = (symbol: Pick<NavigationSymbol, 'name' | 'container'>) => (symbol.container === undefined ? symbol.name : `${symbol.container}.${symbol.name}`);

/** `Server.start (method) at src/server.ts:3`. */
export function describeSymbol(symbol: NavigationSymbol): string {
  return `${named(symbol)} (${symbol.kind}) at ${at(symbol)}`;
}

/** The other definitions a name matched, as one line (none when it matched one). */
export function formatAlternatives(result: { alternatives: NavigationSymbol[] }): string[] {
  if (result.alternatives.length === 0) return [];
  return [`(the name also matches ${result.alternatives.slice(0, 5).map((symbol) => `${named(symbol)} at ${at(symbol)}`).join(', ')}${result.alternatives.length > 5 ? ', …' : ''}: give Class.name or path:line to choose)`];
}

/** A definition's uses: a header with the counts, then the uses grouped by file. */
export function formatReferences(result: ReferencesResult): string {
  // Guessed uses are marked one by one; the count says how many of the total are.
  const listed = result.references.some((reference) => reference.resolution === 'member' && !reference.declaration);
  const guesses = listed && result.guessed > 0 ? ` (${formatCount(result.guessed)} guessed)` : '';
  const lines = [`${describeSymbol(result.symbol)}: ${formatCount(result.total)} use${result.total === 1 ? '' : 's'} in ${formatCount(result.files)} file${result.files === 1 ? '' : 's'}${guesses}`, ...formatAlternatives(result)];
  lines.push(formatReferencesByFile(result.references));
  if (result.truncated) lines.push(`… ${formatCount(result.total - result.references.length)} more; raise the limit to see them`);
  return lines.filter(Boolean).join('\n');
}

/**
 * Uses grouped by file, as ripgrep's heading output: the path once, then `line:column  text`
 * with the definition each use sits in. A reader (or a model) sees the files at a glance, and
 * no path is written twice.
 */
export function formatReferencesByFile(references: readonly Reference[]): string {
  const lines: string[] = [];
  let file: string | undefined;
  for (const reference of references) {
    if (reference.path !== file) {
      file = reference.path;
      lines.push(file);
    }
    const notes = [reference.declaration ? 'declaration' : '', reference.ambiguous ? 'ambiguous' : '', reference.resolution === 'member' ? 'guessed' : ''].filter(Boolean);
    const where = reference.enclosing === undefined ? '' : `  [in ${named(reference.enclosing)}]`;
    lines.push(`  ${reference.line}:${reference.column}  ${reference.text.trim()}${where}${notes.length ? `  (${notes.join(', ')})` : ''}`);
  }
  return lines.join('\n');
}

export function formatDefinition(result: DefinitionResult): string {
  const lines = result.definitions.map((symbol) => `${at(symbol)}  ${symbol.kind}  ${symbol.signature || named(symbol)}`);
  if (result.ambiguous) lines.push('(ambiguous: several definitions are as likely; the first is the best guess)');
  return lines.join('\n');
}

/** One line per entry, indented by distance. */
export function formatCallGraph(result: CallGraphResult): string {
  const lines = [`${result.direction} of ${named(result.symbol)} at ${at(result.symbol)} (depth ${result.depth}): ${formatCount(result.entries.length)}`, ...formatAlternatives(result)];
  for (const entry of result.entries) {
    const sites = entry.sites.length === 1 ? `line ${entry.sites[0].line}` : `${entry.sites.length} sites`;
    lines.push(`${'  '.repeat(entry.distance - 1)}${at(entry)}  ${entry.kind} ${named(entry)}  (${sites}${entry.ambiguous ? ', ambiguous' : ''})`);
  }
  if (result.entries.length === 0) lines.push(result.direction === 'callers' ? 'no callers in the tree' : 'calls nothing defined in the tree');
  if (result.truncated) lines.push('… cut at the limit; raise the limit or lower the depth');
  return lines.join('\n');
}

export function formatImports(result: ImportsResult): string {
  const lines = [`${result.path} ${result.direction === 'imports' ? 'imports' : 'is imported by'} ${formatCount(result.files.length)} file${result.files.length === 1 ? '' : 's'}`];
  for (const edge of result.files) lines.push(`  ${result.direction === 'imports' ? `${edge.path}  (line ${edge.line}: ${edge.module})` : `${edge.path}:${edge.line}  (${edge.module})`}`);
  if (result.external.length > 0) lines.push(`  outside the tree: ${result.external.map((edge) => edge.module).join(', ')}`);
  return lines.join('\n');
}

export function formatOutline(result: OutlineResult): string {
  const lines = result.definitions.map((definition) => `${String(definition.line).padStart(5)}│ ${'  '.repeat(definition.depth)}${definition.signature || `${definition.kind} ${definition.name}`}  (${definition.startLine}-${definition.endLine})`);
  return [`${result.path}${result.language ? ` (${result.language})` : ''}: ${formatCount(result.definitions.length)} definitions`, ...lines].join('\n');
}

export function formatImpact(result: ImpactResult): string {
  const lines = [`${formatCount(result.changedFiles.length)} file${result.changedFiles.length === 1 ? '' : 's'} changed, ${formatCount(result.changed.length)} definition${result.changed.length === 1 ? '' : 's'}:`];
  for (const symbol of result.changed) lines.push(`  ${symbol.change.padEnd(8)} ${at(symbol)}  ${symbol.kind} ${named(symbol)}`);
  lines.push(`dependents (depth ${result.depth}): ${formatCount(result.dependents.length)}`);
  for (const symbol of result.dependents.slice(0, 40)) lines.push(`  ${'  '.repeat(symbol.distance - 1)}${at(symbol)}  ${symbol.kind} ${named(symbol)}  (distance ${symbol.distance}, fan-in ${symbol.fanIn})`);
  if (result.dependents.length > 40) lines.push(`  … ${formatCount(result.dependents.length - 40)} more (the JSON result lists them)`);
  lines.push(`files: ${result.files.map((file) => file.path).slice(0, 20).join(', ')}${result.files.length > 20 ? ', …' : ''}`);
  lines.push(`tests to run: ${formatCount(result.tests.length)}`);
  for (const test of result.tests) {
    const functions = test.functions.length === 0 ? '' : `: ${test.functions.slice(0, 6).map((fn) => fn.name).join(', ')}${test.functions.length > 6 ? ', …' : ''}`;
    lines.push(`  ${test.path}  (${test.reason}${test.reason === 'name' ? '' : `, distance ${test.distance}`})${functions}`);
  }
  if (result.truncated) lines.push('… the walk was cut at its bounds; lower the depth for a complete answer');
  return lines.join('\n');
}
