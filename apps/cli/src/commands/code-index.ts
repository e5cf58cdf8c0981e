import fs from 'node:fs';
import path from 'node:path';
import type { JobInput, JobResult } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { repositoryInput, runLocally } from './local';

/*
 * `quarry symbols`, `quarry map` and `quarry pack`: as jobs on a gateway (the worker's code index
 * is reused across requests), or in this process with --local (no Redis or Postgres).
 */

interface CommonOptions extends ClientOptions {
  local?: boolean;
  /** A git URL's branch, tag or commit (default: the remote's HEAD). */
  ref?: string;
}

export interface SymbolsOptions extends CommonOptions {
  name?: string;
  path?: string;
  limit?: number;
}

export interface MapOptions extends CommonOptions {
  tokens: number;
  focus?: string[];
  tokensEncoding?: 'o200k_base' | 'cl100k_base';
}

export interface PackOptions extends CommonOptions {
  style?: string;
  include?: string[];
  ignore?: string[];
  compress?: boolean;
  maxTokens?: number;
  tokensEncoding?: 'o200k_base' | 'cl100k_base';
  output?: string;
}

/** `quarry symbols PATH|URL [--ref R] [--name N] [--path GLOB]`: definitions, `[{path, name, kind, line, …}]` with --json. */
export async function symbolsCommand(target: string, options: SymbolsOptions): Promise<number> {
  const input: JobInput<'symbols'> = {
    ...repositoryInput(target, options.ref),
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.path === undefined ? {} : { path: options.path }),
    limit: options.limit ?? 100_000,
  };
  const { formatSymbols } = await import('@quarry/render');
  const print = (result: JobResult<'symbols'>) => (options.json ? JSON.stringify(result.definitions, null, 2) : formatSymbols(result));
  return run('symbols', input, options, print);
}

/** `quarry map PATH|URL [--ref R] --tokens N [--focus FILE|SYMBOL…]`: the ranked map on stdout. */
export async function mapCommand(target: string, options: MapOptions): Promise<number> {
  const input: JobInput<'map'> = {
    ...repositoryInput(target, options.ref),
    tokens: options.tokens,
    ...(options.focus?.length ? { focus: options.focus } : {}),
    encoding: options.tokensEncoding ?? 'o200k_base',
  };
  const { formatMap } = await import('@quarry/render');
  const print = (result: JobResult<'map'>) => {
    if (options.json) return JSON.stringify(result, null, 2);
    process.stderr.write(`${formatMap({ ...result, text: '' }).trim()}\n`);
    return result.text;
  };
  return run('map', input, options, print);
}

/**
 * `quarry pack PATH [-o FILE]`: the document to FILE (default `quarry-pack.<ext>` here), a
 * summary on stderr (`--json`: the result, with `files` and `tokens`, on stdout). Against a
 * server the job writes the artifact and this downloads it.
 */
export async function packCommand(target: string, options: PackOptions): Promise<number> {
  const style = options.style ?? 'xml';
  const input: JobInput<'pack'> = {
    ...repositoryInput(target, options.ref),
    style,
    ...(options.include?.length ? { include: options.include } : {}),
    ...(options.ignore?.length ? { ignore: options.ignore } : {}),
    compress: options.compress ?? false,
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    encoding: options.tokensEncoding ?? 'o200k_base',
  };
  const code = await import('@quarry/code-index');
  code.validateCodeIndexInput('pack', input);
  const output = path.resolve(options.output ?? `quarry-pack.${code.packArtifactName('x', style).split('.').pop()}`);
  const { formatPack } = await import('@quarry/render');
  const print = (result: JobResult<'pack'>) => (options.json ? JSON.stringify({ ...result, output }, null, 2) : formatPack(result, output));

  if (!options.local) {
    const client = clientFrom(options);
    const job = await client.submit('pack', input);
    const display = new ProgressDisplay(`pack ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    if (outcome.status === 'succeeded') await client.download(job.id, fs.createWriteStream(output));
    return report(outcome, { ...options, json: false }, job.id, (result) => print(result as JobResult<'pack'>));
  }
  const display = new ProgressDisplay('pack');
  const result = await runLocally('pack', input, { packFile: output, onProgress: (progress) => !options.json && display.update(progress) });
  display.end();
  console.log(print({ ...result, artifact: { ...result.artifact, path: output } }));
  return EXIT.ok;
}

async function run<K extends 'symbols' | 'map'>(kind: K, input: JobInput<K>, options: CommonOptions, print: (result: JobResult<K>) => string): Promise<number> {
  const code = await import('@quarry/code-index');
  code.validateCodeIndexInput(kind, input as Record<string, unknown>);
  if (!options.local) {
    const client = clientFrom(options);
    const job = await client.submit(kind, input);
    const display = new ProgressDisplay(`${kind} ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, { ...options, json: false }, job.id, (result) => print(result as JobResult<K>));
  }
  const display = new ProgressDisplay(kind);
  const result = await runLocally(kind, input, { onProgress: (progress) => !options.json && display.update(progress) });
  display.end();
  console.log(print(result));
  return EXIT.ok;
}
