import fs from 'node:fs';
import type { JobResult } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import type { ClientOptions } from './jobs';
import { repositoryInput, runLocally } from './local';

type MentionsResult = JobResult<'mentions'>;

export interface MentionOptions extends Partial<ClientOptions> {
  root: string;
  /** A git URL instead of root. */
  repo?: string;
  ref?: string;
  parseOnly?: boolean;
  budget?: number;
  remote?: boolean;
}

/**
 * `quarry mention PROMPT`: the augmented prompt on stdout (ready to pipe into an agent), the
 * account of what loaded and what failed on stderr. In this process by default (URLs through the
 * same SSRF guards, in-process), or as a job with --server (URLs as child fetch jobs).
 * A prompt of `-` is read from stdin.
 */
export async function mentionCommand(promptArgument: string, options: MentionOptions): Promise<number> {
  const prompt = promptArgument === '-' ? fs.readFileSync(0, 'utf8') : promptArgument;
  const { parseMentions, summarizeMentions } = await import('@quarry/mentions');
  if (options.parseOnly) {
    const parsed = parseMentions(prompt);
    console.log(options.json ? JSON.stringify(parsed, null, 2) : formatParse(parsed));
    return parsed.errors.length ? EXIT.failed : EXIT.ok;
  }
  const repository = repositoryInput(options.repo ?? options.root, options.ref);
  const print = (result: MentionsResult) => {
    if (options.json) return JSON.stringify(result, null, 2);
    process.stderr.write(`${summarizeMentions(result)}\n`);
    return result.augmentedPrompt;
  };
  if (options.remote && options.server) {
    // The job client (socket.io) and the progress display load only for --server.
    const [{ clientFrom, report }, { ProgressDisplay }] = await Promise.all([import('./jobs'), import('../progress-display')]);
    const client = clientFrom(options as ClientOptions);
    const job = await client.submit('mentions', { ...repository, prompt, ...(options.budget ? { budget: { maxBytes: options.budget } } : {}) });
    const display = new ProgressDisplay(`mentions ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, options as ClientOptions, job.id, (result) => print(result as MentionsResult));
  }

  const result = await runLocally('mentions', { ...repository, prompt, ...(options.budget ? { budget: { maxBytes: options.budget } } : {}) });
  console.log(print(result));
  return EXIT.ok;
}

function formatParse(parsed: ReturnType<typeof import('@quarry/mentions').parseMentions>): string {
  const rows = [
    ...parsed.mentions.map((mention) => ({ span: mention.span, line: `${mention.span[0]}-${mention.span[1]}  ${mention.kind.padEnd(6)}  ${mention.raw}` })),
    ...parsed.errors.map((error) => ({
      span: error.span,
      line: `${error.span[0]}-${error.span[1]}  error   ${error.raw}  [${error.kind}] ${sentence(error.message)}${error.suggestion ? ` ${error.suggestion}` : ''}`,
    })),
  ].sort((a, b) => a.span[0] - b.span[0]);
  return rows.length ? rows.map((row) => row.line).join('\n') : 'no mentions';
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
