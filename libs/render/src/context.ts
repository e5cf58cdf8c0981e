import type { JobResult } from '@quarry/contracts';
import { formatCount } from '@quarry/contracts/format';

/**
 * A context answer as an agent or a terminal reads it: the ranked files with what put them
 * there, then the spans' code (what the budget took), then what was left out.
 */
export function formatContextSummary(result: JobResult<'context'>, files = 10): string {
  const lines = [`files (best first, of ${formatCount(result.stats.files)}):`];
  for (const file of result.files.slice(0, files)) {
    const why = file.why.filter((entry) => entry.signal !== 'roles' && entry.signal !== 'prior').slice(0, 3);
    lines.push(`  ${(file.score < 0.1 ? file.score.toFixed(4) : file.score.toFixed(2)).padStart(6)}  ${file.path}  ${why.map((entry) => entry.notes[0] ?? entry.signal).join('; ')}`);
  }
  const shown = result.spans.filter((span) => span.inContext !== 'omitted').length;
  lines.push(`spans in the context: ${shown} of ${result.spans.length}, ${formatCount(result.tokens)} of ${formatCount(result.budget)} tokens (${result.encoding})${result.commit ? ` at ${result.commit.slice(0, 12)}` : ''}`);
  const { embeddings, rerank } = result.layers ?? {};
  if (embeddings) lines.push(`embeddings: ${embeddings.status === 'used' ? `fused over ${embeddings.files} files (${formatCount(embeddings.chunks)} chunks, ${formatCount(embeddings.embedded)} embedded now)` : 'fell back to the lexical ranking'}, ${embeddings.durationMs} ms`);
  if (rerank) lines.push(`rerank: ${rerank.status === 'used' ? `the chat model ordered the top ${rerank.spans} spans` : 'fell back'}, ${rerank.durationMs} ms`);
  for (const warning of result.warnings) lines.push(`warning: ${warning}`);
  return lines.join('\n');
}
