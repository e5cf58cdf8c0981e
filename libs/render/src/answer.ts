import type { JobResult } from '@quarry/contracts';
import { formatServices } from './services';

type InterpretResult = JobResult<'interpret'>;

/** An interpret result: the plan, what was dropped, then each tool's output. */
export function formatAnswer(result: InterpretResult): string {
  const { plan } = result;
  const lines = [`plan (${result.source}): ${plan.rationale}`];
  if (plan.notes) lines.push(`note: ${plan.notes}`);
  for (const dropped of result.dropped) lines.push(`dropped ${dropped.tool}: ${dropped.reason}`);
  if (plan.clarification) {
    lines.push('', plan.clarification);
    return lines.join('\n');
  }
  if (!plan.needs_tools) {
    lines.push('', 'No tool needed to answer this.');
    return lines.join('\n');
  }
  for (const [index, step] of plan.tools.entries()) {
    lines.push('', `── ${step.name} ${describeArgs(step.args)}  [${step.confidence.toFixed(2)}]`);
    const outcome = result.results[index];
    if (!outcome) continue;
    if (!outcome.ok) {
      lines.push(`error [${outcome.error?.kind}]: ${outcome.error?.message}${outcome.error?.suggestion ? `\n  ${outcome.error.suggestion}` : ''}`);
      continue;
    }
    lines.push(formatOutput(step.name, outcome.output));
  }
  return lines.join('\n');
}

function describeArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
    .join(' ');
}

/** A readable rendering per tool; anything unexpected as JSON. */
function formatOutput(tool: string, output: unknown): string {
  const value = output as Record<string, any>;
  switch (tool) {
    case 'read_file':
      return String(value.text ?? '').replace(/\n$/, '');
    case 'list_files':
      return [...(value.entries ?? []).map((entry: { path: string; type: string }) => `${entry.path}${entry.type === 'directory' ? '/' : ''}`), ...(value.truncated ? [`… ${value.totalEntries - value.entries.length} more`] : [])].join('\n');
    case 'find_files':
      return [...(value.matches ?? []), ...(value.truncated ? [`… ${value.total - value.matches.length} more`] : [])].join('\n') || 'no files match';
    case 'search':
    case 'grep':
      return [
        ...(value.matches ?? []).map((match: { path: string; line: number; text: string }) => `${match.path}:${match.line}: ${match.text}`),
        `(${value.totalMatches} matching line${value.totalMatches === 1 ? '' : 's'}${value.truncated ? ', first ones shown' : ''})`,
      ].join('\n');
    case 'detect_stack':
      return Array.isArray(output) ? formatServices(output as JobResult<'detect'>) : JSON.stringify(output, null, 2);
    case 'fetch_url':
      return `${value.finalUrl ?? ''}\n${value.text ?? ''}`.trim();
    case 'find_relevant_code':
      if (!Array.isArray(value.files)) return JSON.stringify(output, null, 2);
      return [
        ...value.files.map((file: { path: string; signals: string[] }, index: number) => `${index + 1}. ${file.path}  (${file.signals.join(', ')})`),
        ...(value.warnings ?? []).map((warning: string) => `note: ${warning}`),
        '',
        String(value.context ?? '').replace(/\n+$/, ''),
      ].join('\n');
    default:
      return JSON.stringify(output, null, 2);
  }
}
