import type { JobResult } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { repositoryInput, runLocally } from './local';
import { formatAnswer } from '@quarry/render';

type InterpretResult = JobResult<'interpret'>;

export interface AskOptions extends Partial<ClientOptions> {
  root: string;
  /** A git URL instead of root. */
  repo?: string;
  ref?: string;
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
  const repository = repositoryInput(options.repo ?? options.root, options.ref);
  const context = Object.fromEntries(
    Object.entries({ cwd: options.cwd, activeFile: options.activeFile, lastFile: options.lastFile, lastDir: options.lastDir }).filter(([, value]) => value !== undefined),
  );
  const input = { ...repository, query, context, execute: !options.planOnly, ai: options.ai === false ? ('off' as const) : ('auto' as const) };
  if (options.remote && options.server) {
    const client = clientFrom(options as ClientOptions);
    const job = await client.submit('interpret', input);
    const display = new ProgressDisplay(`ask ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, options as ClientOptions, job.id, (result) => formatAnswer(result as InterpretResult));
  }

  const result = await runLocally('interpret', input);
  console.log(options.json ? JSON.stringify(result, null, 2) : formatAnswer(result));
  return result.results.some((entry) => !entry.ok) ? EXIT.failed : EXIT.ok;
}

