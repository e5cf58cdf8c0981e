import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ContextResultBody, JobInput } from '@quarry/contracts';
import { QuarryError } from '@quarry/contracts';
import { formatContextSummary } from '@quarry/render';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { clientFrom, report, type ClientOptions } from './jobs';
import { repositoryInput, runLocally } from './local';

/*
 * `quarry context PATH|URL "task" | --task-file F [--tokens N] [--focus P…] [--limit N] [--json]`:
 * the files and definition-sized spans a task touches, ranked, and their code within a token
 * budget — as a job on a gateway (the workers' code index and corpora are reused across
 * requests), or in this process with --local. Progress goes to stderr, the context to stdout.
 */

export interface ContextOptions extends Partial<ClientOptions> {
  taskFile?: string;
  tokens?: number;
  focus?: string[];
  limit?: number;
  ref?: string;
  local?: boolean;
}

export async function contextCommand(target: string, taskArgument: string | undefined, options: ContextOptions): Promise<number> {
  const task = await taskText(taskArgument, options.taskFile);
  // Bad input is refused before any indexing or submission: an empty or huge task, a bad budget, a focus outside the root.
  const { validateContextRequest } = await import('@quarry/context');
  validateContextRequest({ task, tokens: options.tokens, focus: options.focus, limit: options.limit });
  const input = {
    ...repositoryInput(target, options.ref),
    task,
    ...(options.tokens === undefined ? {} : { tokens: options.tokens }),
    ...(options.focus?.length ? { focus: options.focus } : {}),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  } as JobInput<'context'>;
  const print = (result: ContextResultBody) => {
    if (options.json) return JSON.stringify(result, null, 2);
    process.stderr.write(`${formatContextSummary(result)}\n\n`);
    return result.context;
  };
  if (!options.local) {
    const client = clientFrom(options as ClientOptions);
    const job = await client.submit('context', input);
    const display = new ProgressDisplay(`context ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, { ...(options as ClientOptions), json: false }, job.id, (result) => print(result as ContextResultBody));
  }
  const display = new ProgressDisplay('context');
  const result = await runLocally('context', input, { onProgress: (progress) => !options.json && display.update(progress) });
  display.end();
  const text = print(result);
  if (options.json) console.log(text);
  else process.stdout.write(text);
  return EXIT.ok;
}

/** The task from the argument or the file (`-` for stdin); both or neither is a mistake with a typed error. */
async function taskText(argument: string | undefined, file: string | undefined): Promise<string> {
  if (argument !== undefined && file !== undefined) {
    throw new QuarryError('input_invalid', 'Give the task either as an argument or with --task-file, not both.', { suggestion: 'quarry context . --task-file issue.md' });
  }
  if (file === undefined) return argument ?? '';
  if (file === '-') return readStdin();
  try {
    return await readFile(path.resolve(file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new QuarryError(code === 'ENOENT' ? 'file_not_found' : 'input_invalid', `Cannot read the task file ${file}: ${code ?? String(error)}.`, {
      suggestion: 'Give the path of a text file with the issue, the question or the stack trace (or - for stdin).',
    });
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
