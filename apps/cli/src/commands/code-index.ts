import fs from 'node:fs';
import path from 'node:path';
import type { JobInput, JobKind, JobResult } from '@quarry/contracts';
import { loadConfig } from '@quarry/config/settings';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { ClientOptions, clientFrom, report } from './jobs';
import { localRoot, repositoryInput, withLocalSnapshot } from './local';

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
  return run('symbols', input, options, print, async (code, tree) => code.findSymbols(await tree(), input));
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
  return run('map', input, options, print, async (code, tree) => code.mapTree(await tree(), input));
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
  const onProgress = (progress: { stage: string; done: number; total?: number; message?: string }) => !options.json && display.update(progress);
  let result: JobResult<'pack'>;
  if ('source' in input && input.source !== undefined) {
    // A git URL: its commit fetched into this process's cache, the files indexed (or reused) in memory.
    const indexer = () => code.sharedBlobIndexer(input.encoding);
    const packed = await withLocalSnapshot(loadConfig(), { source: input.source as { git: string; ref?: string } }, (snapshot) =>
      code.packToFileWith(output, (sink) => code.packSnapshot(snapshot, input, sink, { store: processStore(code), indexer, onProgress, title: path.basename(snapshot.root).replace(/\.git$/, '') })),
    );
    result = { ...packed.result, source: packed.source };
  } else {
    const root = await localRoot(input.root as string);
    result = await code.packToFile(root, input, output, { cache: code.sharedCodeIndexCache(), onProgress, title: path.basename(root) });
  }
  display.end();
  console.log(print({ ...result, artifact: { ...result.artifact, path: output } }));
  return EXIT.ok;
}

type CodeIndexModule = typeof import('@quarry/code-index');
type IndexedTree = import('@quarry/code-index').IndexedTree;

let memoryStore: import('@quarry/code-index').MemoryBlobIndexStore | undefined;
/** This process's per-blob rows (`--local` has no Postgres): blobs shared by commits are indexed once per run. */
function processStore(code: CodeIndexModule) {
  return (memoryStore ??= new code.MemoryBlobIndexStore());
}

async function run<K extends JobKind>(
  kind: K,
  input: JobInput<K>,
  options: CommonOptions,
  print: (result: JobResult<K>) => string,
  local: (code: CodeIndexModule, tree: () => Promise<IndexedTree>) => Promise<JobResult<K>>,
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
  const config = loadConfig();
  const display = new ProgressDisplay(kind);
  const onProgress = (progress: { stage: string; done: number; total?: number; message?: string }) => !options.json && display.update(progress);
  const { root, source } = input as { root?: string; source?: { git: string; ref?: string } };
  let result: JobResult<K>;
  if (source !== undefined) {
    // A git URL: fetched into this process's cache; each blob indexed once per process.
    const done = await withLocalSnapshot(config, { source }, async (snapshot) => local(code, () => code.sharedCodeIndexCache().snapshotTree(snapshot, processStore(code), { onProgress })));
    result = { ...done.result, source: done.source };
  } else {
    const directory = await localRoot(root as string);
    result = await local(code, () => code.sharedCodeIndexCache().tree(directory, { onProgress }));
  }
  display.end();
  console.log(print(result));
  return EXIT.ok;
}
