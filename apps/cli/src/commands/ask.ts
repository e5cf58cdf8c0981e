import path from 'node:path';
import type { JobResult } from '@quarry/contracts';
import { loadConfig } from '@quarry/config';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { formatServices } from './detect';
import { ClientOptions, clientFrom, report } from './jobs';
import { localRoot, withLocalTools } from './local';

type InterpretResult = JobResult<'interpret'>;

export interface AskOptions extends Partial<ClientOptions> {
  root: string;
  planOnly?: boolean;
  /** commander's --no-ai sets ai: false. */
  ai?: boolean;
  cwd?: string;
  activeFile?: string;
  lastFile?: string;
  lastDir?: string;
  remote?: boolean;
}

/** `quarry ask QUESTION`: the plan, then each tool's output; in-process by default, or a job with --server. */
export async function askCommand(query: string, options: AskOptions): Promise<number> {
  const root = path.resolve(options.root);
  const context = Object.fromEntries(
    Object.entries({ cwd: options.cwd, activeFile: options.activeFile, lastFile: options.lastFile, lastDir: options.lastDir }).filter(([, value]) => value !== undefined),
  );
  const input = { root, query, context, execute: !options.planOnly, ai: options.ai === false ? ('off' as const) : ('auto' as const) };
  if (options.remote && options.server) {
    const client = clientFrom(options as ClientOptions);
    const job = await client.submit('interpret', input);
    const display = new ProgressDisplay(`ask ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, options as ClientOptions, job.id, (result) => formatAnswer(result as InterpretResult));
  }

  const config = loadConfig();
  const { interpretQuery, workspaceTools } = await import('@quarry/interpret');
  const { detectStack } = await import('@quarry/detect');
  const real = await localRoot(root);
  const llm = config.llm && options.ai !== false ? new (await import('@quarry/llm')).LlmClient(config.llm) : undefined;
  const result = await withLocalTools(config, (fetcher) => {
    const host = workspaceTools({
      root: real,
      ...config.files,
      detectStack: (directory, signal) => detectStack(directory, { mode: config.detectionMode, llm, signal }),
      fetchUrl: (url, signal) => fetcher.fetch(url, { signal }),
    });
    return interpretQuery({ ...input, root: real, llm, host });
  });
  console.log(options.json ? JSON.stringify(result, null, 2) : formatAnswer(result));
  return result.results.some((entry) => !entry.ok) ? EXIT.failed : EXIT.ok;
}

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
    default:
      return JSON.stringify(output, null, 2);
  }
}
