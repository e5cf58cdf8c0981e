import fs from 'node:fs';
import path from 'node:path';
import { QuarryError, type NavigationInput, type NavigationQuery, type NavigationResult } from '@quarry/contracts';
import { EXIT } from '../cli-output';
import { ProgressDisplay } from '../progress-display';
import { repositoryInput } from './local';

/*
 * Code navigation (`quarry refs`, `def`, `callers`, `callees`, `imports`, `outline`, `impact`):
 * one query of a repository's code graph — on a gateway (`POST /v1/navigation`: the graph of a
 * commit is built once there and kept for the next queries), or in this process with --local.
 * Both run the same read (@quarry/jobs' `navigate`).
 */

export interface NavigationOptions {
  json?: boolean;
  local?: boolean;
  server?: string;
  key?: string;
  ref?: string;
  limit?: number;
  depth?: number;
  /** `imports`: the files importing this one instead. */
  reverse?: boolean;
  /** `refs`: false (`--no-guessed`) leaves out the uses guessed from a file's evidence. */
  guessed?: boolean;
}

export interface ImpactOptions extends NavigationOptions {
  diff?: string;
  since?: string;
  workingTree?: boolean;
}

type Render = typeof import('@quarry/render');
const FORMATS: { [Q in NavigationQuery]: (render: Render) => (result: NavigationResult<Q>) => string } = {
  references: (render) => render.formatReferences,
  definition: (render) => render.formatDefinition,
  callers: (render) => render.formatCallGraph,
  callees: (render) => render.formatCallGraph,
  imports: (render) => render.formatImports,
  importedBy: (render) => render.formatImports,
  outline: (render) => render.formatOutline,
  impact: (render) => render.formatImpact,
};

async function runQuery<Q extends NavigationQuery>(query: Q, target: string, fields: Omit<NavigationInput, 'query' | 'root' | 'source'>, options: NavigationOptions): Promise<number> {
  const input = { ...repositoryInput(target, options.ref), query, ...fields } as NavigationInput & { query: Q };
  let result: NavigationResult<Q>;
  if (options.local) {
    const [{ navigationInputSchema, parseOrThrow }, { InProcessPorts, navigationReads }, { loadConfig }] = await Promise.all([
      import('@quarry/contracts'),
      import('@quarry/jobs/in-process'),
      import('@quarry/config/settings'),
    ]);
    const checked = parseOrThrow(navigationInputSchema, input, 'input') as NavigationInput & { query: Q };
    const reads = await navigationReads();
    // Bad input fails before the tree is indexed.
    reads.checkRequest(checked);
    const ports = new InProcessPorts(loadConfig());
    const display = new ProgressDisplay('index');
    try {
      const run = { id: 'navigation', signal: new AbortController().signal, progress: (progress: Parameters<typeof display.update>[0]) => !options.json && display.update(progress) };
      result = await reads.navigate(checked, await ports.navigation(), run);
    } finally {
      display.end();
      await ports.close();
    }
  } else {
    const { QuarryClient } = await import('../quarry-client');
    result = await new QuarryClient((options.server ?? 'http://127.0.0.1:3000').replace(/\/+$/, ''), options.key).navigate(input);
  }
  if (options.json) console.log(JSON.stringify(result, null, 2));
  else console.log(FORMATS[query](await import('@quarry/render'))(result));
  return EXIT.ok;
}

/** `quarry refs DIR NAME|PATH:LINE`: every use, `{symbol, references: [{path, line, column, text, enclosing, …}], …}` with --json. */
export function refsCommand(target: string, symbol: string, options: NavigationOptions): Promise<number> {
  return runQuery('references', target, { symbol, limit: options.limit, ...(options.guessed === false ? { guessed: false } : {}) }, options);
}

export function definitionCommand(target: string, symbol: string, options: NavigationOptions): Promise<number> {
  return runQuery('definition', target, { symbol }, options);
}

export function callersCommand(target: string, symbol: string, options: NavigationOptions, direction: 'callers' | 'callees' = 'callers'): Promise<number> {
  return runQuery(direction, target, { symbol, depth: options.depth, limit: options.limit }, options);
}

export function importsCommand(target: string, file: string, options: NavigationOptions): Promise<number> {
  return runQuery(options.reverse ? 'importedBy' : 'imports', target, { path: file }, options);
}

export function outlineCommand(target: string, file: string, options: NavigationOptions): Promise<number> {
  return runQuery('outline', target, { path: file }, options);
}

/**
 * `quarry impact DIR --diff FILE | --since REF | --working-tree`: the changed definitions, what
 * depends on them and the tests to run. A diff is applied to the directory as it is (the tree
 * before the change); `--since` and `--working-tree` compare the directory with a commit.
 */
export async function impactCommand(target: string, options: ImpactOptions): Promise<number> {
  let diff: string | undefined;
  if (options.diff !== undefined) {
    try {
      diff = options.diff === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(path.resolve(options.diff), 'utf8');
    } catch {
      throw new QuarryError('file_not_found', `Cannot read the diff "${options.diff}".`, { suggestion: 'Give a file made with `git diff > change.patch`, or - for standard input.' });
    }
  }
  return runQuery('impact', target, { diff, since: options.since, workingTree: options.workingTree, depth: options.depth, limit: options.limit }, options);
}
