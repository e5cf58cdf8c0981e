import fs from 'node:fs';
import path from 'node:path';
import type { JobInput, JobKind, JobResult } from '@quarry/contracts';
import { loadConfig } from '@quarry/config';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { localRoot } from './local';

/*
 * `quarry symbols`, `quarry map` and `quarry pack`: as jobs on a gateway (the worker's code index
 * is reused across requests), or in this process with --local (no Redis or Postgres).
 */

interface CommonOptions extends ClientOptions {
  local?: boolean;
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

/** `quarry symbols PATH [--name N] [--path GLOB]`: definitions, `[{path, name, kind, line, …}]` with --json. */
export async function symbolsCommand(target: string, options: SymbolsOptions): Promise<number> {
  const input: JobInput<'symbols'> = {
    root: path.resolve(target),
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.path === undefined ? {} : { path: options.path }),
    limit: options.limit ?? 100_000,
  };
  const { formatSymbols } = await import('@quarry/render');
  const print = (result: JobResult<'symbols'>) => (options.json ? JSON.stringify(result.definitions, null, 2) : formatSymbols(result));
  return run('symbols', input, options, print, async (code, root, onProgress) => code.findSymbols(await code.sharedCodeIndexCache().tree(root, { onProgress }), input));
}

/** `quarry map PATH --tokens N [--focus FILE|SYMBOL…]`: the ranked map on stdout. */
export async function mapCommand(target: string, options: MapOptions): Promise<number> {
  const input: JobInput<'map'> = {
    root: path.resolve(target),
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
  return run('map', input, options, print, async (code, root, onProgress) => code.mapTree(await code.sharedCodeIndexCache().tree(root, { onProgress }), input));
}

/**
 * `quarry pack PATH [-o FILE]`: the document to FILE (default `quarry-pack.<ext>` here), a
 * summary on stderr (`--json`: the result, with `files` and `tokens`, on stdout). Against a
 * server the job writes the artifact and this downloads it.
 */
export async function packCommand(target: string, options: PackOptions): Promise<number> {
  const style = options.style ?? 'xml';
  const input: JobInput<'pack'> = {
    root: path.resolve(target),
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
  const root = await localRoot(input.root);
  const display = new ProgressDisplay('pack');
  const result = await code.packToFile(root, input, output, {
    cache: code.sharedCodeIndexCache(),
    onProgress: (progress) => !options.json && display.update(progress),
    title: path.basename(root),
  });
  display.end();
  console.log(print({ ...result, artifact: { ...result.artifact, path: output } }));
  return EXIT.ok;
}

type CodeIndexModule = typeof import('@quarry/code-index');

async function run<K extends JobKind>(
  kind: K,
  input: JobInput<K>,
  options: CommonOptions,
  print: (result: JobResult<K>) => string,
  local: (code: CodeIndexModule, root: string, onProgress: (progress: { stage: string; done: number; total?: number; message?: string }) => void) => Promise<JobResult<K>>,
): Promise<number> {
  const code = await import('@quarry/code-index');
  code.validateCodeIndexInput(kind as 'symbols' | 'map' | 'pack', input as Record<string, unknown>);
  if (!options.local) {
    const client = clientFrom(options);
    const job = await client.submit(kind, input);
    const display = new ProgressDisplay(`${kind} ${job.id.slice(0, 8)}`);
    const outcome = await client.watch(job.id, { onProgress: (progress) => !options.json && display.update(progress) });
    display.end();
    return report(outcome, { ...options, json: false }, job.id, (result) => print(result as JobResult<K>));
  }
  loadConfig();
  const root = await localRoot((input as { root: string }).root);
  const display = new ProgressDisplay(kind);
  const result = await local(code, root, (progress) => !options.json && display.update(progress));
  display.end();
  console.log(print(result));
  return EXIT.ok;
}
