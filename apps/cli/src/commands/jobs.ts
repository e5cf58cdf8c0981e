import { QuarryErrorBody, ScanResult } from '@quarry/contracts';
import { JobOutcome, QuarryClient } from '../quarry-client';
import { EXIT, printError } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { formatScanSummary } from '@quarry/render';
import { QuarryError } from '@quarry/contracts';
import { repositoryInput, runLocally } from './local';


export interface ClientOptions {
  server: string;
  key?: string;
  json?: boolean;
}

export function clientFrom(options: ClientOptions): QuarryClient {
  return new QuarryClient(options.server.replace(/\/+$/, ''), options.key);
}

/** `quarry scan PATH|URL [--ref REF]`: submit, watch with a progress display, print the result. */
export async function scanCommand(target: string, options: ClientOptions & { wait: boolean; local?: boolean; ref?: string; codeIndex?: boolean }): Promise<number> {
  const input = repositoryInput(target, options.ref);
  if (options.local) return scanLocally(input, options);
  const client = clientFrom(options);
  const job = await client.submit('scan', { ...input, ...(options.codeIndex === false ? { codeIndex: false } : {}) });
  if (!options.wait) {
    print(options, job, `queued scan ${job.id}`);
    return EXIT.ok;
  }
  const display = new ProgressDisplay(`scan ${job.id.slice(0, 8)}`);
  if (!options.json) display.status(`queued as job ${job.id}`);
  const outcome = await client.watch(job.id, {
    onProgress: (progress) => !options.json && display.update(progress),
    onStatus: (status, attempts, error) =>
      !options.json && status === 'queued' && error && display.status(`attempt ${attempts ?? '?'} failed (${error.kind}: ${error.message}); retrying`),
  });
  display.end();
  // A scan's JSON also carries the result's fields at the top (source, files, lines, languages…), as --local prints them.
  return report(outcome, options, job.id, (result) => formatScanSummary(result as ScanResult), true);
}

/**
 * `quarry scan PATH PATH...`: one batch request for all the paths (a refused path gets its typed
 * error, the others run), then waits for every job and prints each summary.
 */
export async function scanManyCommand(targets: string[], options: ClientOptions & { wait: boolean; local?: boolean; ref?: string; codeIndex?: boolean }): Promise<number> {
  const inputs = targets.map((target) => repositoryInput(target, options.ref));
  if (options.local) {
    let code: number = EXIT.ok;
    for (const input of inputs) code = Math.max(code, await scanLocally(input, options));
    return code;
  }
  const client = clientFrom(options);
  const roots = inputs.map((input) => ('root' in input ? input.root : input.source.git));
  const answer = await client.submitMany(inputs.map((input) => ({ kind: 'scan', input: { ...input, ...(options.codeIndex === false ? { codeIndex: false } : {}) } })));
  const outcomes: Array<{ root: string; id?: string; outcome?: JobOutcome; error?: QuarryErrorBody }> = answer.items.map((item) =>
    item.ok ? { root: roots[item.index], id: item.job.id } : { root: roots[item.index], error: item.error },
  );
  if (!options.json) {
    for (const entry of outcomes) {
      if (entry.error) console.error(`${entry.root}: refused`);
      else console.error(`${entry.root}: queued as job ${entry.id}`);
    }
  }
  if (options.wait) {
    await Promise.all(outcomes.map(async (entry) => entry.id && (entry.outcome = await client.watch(entry.id))));
  }
  if (options.json) {
    console.log(JSON.stringify(outcomes.map(({ root, id, outcome, error }) => ({ root, id, ...(error ? { status: 'refused', error } : outcome ?? { status: 'queued' }) })), null, 2));
  } else {
    for (const entry of outcomes) {
      console.log(`\n== ${entry.root}${entry.id ? ` (job ${entry.id})` : ''}`);
      if (entry.error) printError(entry.error);
      else if (!entry.outcome) console.log(`queued scan ${entry.id}`);
      else if (entry.outcome.status === 'succeeded') console.log(formatScanSummary(entry.outcome.result as ScanResult));
      else if (entry.outcome.status === 'failed') printError(entry.outcome.error);
      else console.log(`job ${entry.id} was cancelled`);
    }
  }
  const failed = outcomes.some((entry) => entry.error || (entry.outcome && entry.outcome.status !== 'succeeded'));
  return failed ? EXIT.failed : EXIT.ok;
}

/** In-process scan (no server needed), for quick looks and for comparing with a job's result: the workers' use case, on this process's threads, facts kept in memory. */
async function scanLocally(input: ReturnType<typeof repositoryInput>, options: ClientOptions & { codeIndex?: boolean }): Promise<number> {
  const display = new ProgressDisplay('scan');
  try {
    const scanned = await runLocally('scan', { ...input, ...(options.codeIndex === false ? { codeIndex: false } : {}) }, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    console.log(options.json ? JSON.stringify(scanned, null, 2) : formatScanSummary(scanned));
    return EXIT.ok;
  } catch (error) {
    display.end();
    // With --json the error is JSON on stdout too, so a script reads one format either way.
    if (options.json && error instanceof QuarryError) console.log(JSON.stringify({ status: 'failed', error: error.toBody() }, null, 2));
    throw error;
  }
}

export function report(outcome: JobOutcome, options: ClientOptions, id: string, format: (result: unknown) => string, flatten = false): number {
  if (options.json) {
    const fields = flatten && outcome.status === 'succeeded' && outcome.result && typeof outcome.result === 'object' ? outcome.result : {};
    console.log(JSON.stringify({ ...fields, id, ...outcome }, null, 2));
  } else if (outcome.status === 'succeeded') {
    console.log(format(outcome.result));
  } else if (outcome.status === 'failed') {
    printError(outcome.error);
  } else {
    console.error(`job ${id} was cancelled`);
  }
  return outcome.status === 'succeeded' ? EXIT.ok : EXIT.failed;
}

export async function jobsCommand(options: ClientOptions & { kind?: string; status?: string; limit?: string; cursor?: string }): Promise<number> {
  const page = await clientFrom(options).list({ kind: options.kind, status: options.status, limit: options.limit, cursor: options.cursor });
  if (options.json) {
    console.log(JSON.stringify(page, null, 2));
    return EXIT.ok;
  }
  for (const job of page.items) {
    const progress = job.progress ? `${job.progress.stage} ${job.progress.done}${job.progress.total ? '/' + job.progress.total : ''}` : '';
    console.log([job.id, job.kind.padEnd(9), job.status.padEnd(9), job.createdAt, progress].join('  '));
  }
  if (page.items.length === 0) console.log('no jobs');
  if (page.nextCursor) console.log(`more: quarry jobs --cursor ${page.nextCursor}`);
  return EXIT.ok;
}

export async function jobCommand(id: string, options: ClientOptions): Promise<number> {
  const job = await clientFrom(options).get(id);
  console.log(JSON.stringify(job, null, 2));
  return job.status === 'failed' ? EXIT.failed : EXIT.ok;
}

export async function cancelCommand(id: string, options: ClientOptions): Promise<number> {
  const job = await clientFrom(options).cancel(id);
  print(options, job, `job ${job.id} is ${job.status}`);
  return EXIT.ok;
}

export async function retryCommand(id: string, options: ClientOptions): Promise<number> {
  const job = await clientFrom(options).retry(id);
  print(options, job, `job ${job.id} is ${job.status} again`);
  return EXIT.ok;
}

function print(options: ClientOptions, value: unknown, line: string): void {
  console.log(options.json ? JSON.stringify(value, null, 2) : line);
}

