import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, packageVersion as version } from '@quarry/config/settings';
import { QuarryError } from '@quarry/contracts';
import { EXIT, printError } from './cli-output';
import { ClientError } from './client-error';

// Commands load their modules on use: `quarry scan` should not pay for Prisma or Nest, and
// `quarry search` pays for neither, nor for the socket.io client (the gateway and worker entry
// points load reflect-metadata themselves).
const jobs = () => import('./commands/jobs');
const keyCommands = () => import('./commands/keys');

const positive = (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return parsed;
};

const collect = (value: string, previous: string[] = []) => [...previous, value];
/** Any number: budgets are judged by the code index, which says what is wrong (`budget_invalid`). */
const numeric = (value: string) => {
  const parsed = Number(value);
  if (value.trim() === '' || Number.isNaN(parsed)) throw new InvalidArgumentError('expected a number');
  return parsed;
};
const ENCODINGS = ['o200k_base', 'cl100k_base'];

const wholeNumber = (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return parsed;
};

/** Runs the CLI; resolves with the exit code, or undefined for long-running servers. */
export async function main(argv: string[]): Promise<number | undefined> {
  let code: number | undefined = EXIT.ok;
  const program = new Command('quarry')
    .description('Repository context for AI coding agents: scan repositories as jobs and watch them live.')
    .version(version())
    .exitOverride()
    .showHelpAfterError('(run `quarry --help` for usage)')
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  const server = (command: Command) =>
    command
      .option('--server <url>', 'gateway URL', process.env.QUARRY_URL ?? 'http://127.0.0.1:3000')
      .option('--key <key>', 'API key (default: $QUARRY_API_KEY)', process.env.QUARRY_API_KEY)
      .option('--json', 'print JSON');

  program
    .command('up')
    .description('start Postgres/Redis if needed, apply migrations, run the gateway and workers')
    .option('--workers <n>', 'worker processes to start', positive, 1)
    .option('--concurrency <n>', 'jobs per worker process', positive)
    .action(async (options: { workers: number; concurrency?: number }) => {
      const { up } = await import('./commands/up');
      await up(options);
    });
  program
    .command('gateway')
    .description('run the HTTP/socket.io gateway (applies migrations first)')
    .action(async () => {
      const config = loadConfig();
      await migrate(config.databaseUrl, true);
      const { startGateway } = await import('../../gateway/src/main');
      const gateway = await startGateway(config);
      console.log(`quarry gateway listening on ${gateway.url}`);
      code = undefined;
    });
  program
    .command('worker')
    .description('run a worker process; start as many as you like, on any machine')
    .option('--concurrency <n>', 'jobs this process runs at once', positive)
    .option('--queues <list>', 'comma-separated job kinds to serve (default: all)')
    .action(async (options: { concurrency?: number; queues?: string }) => {
      if (options.concurrency) process.env.QUARRY_WORKER_CONCURRENCY = String(options.concurrency);
      if (options.queues) process.env.QUARRY_WORKER_QUEUES = options.queues;
      const { startWorker } = await import('../../worker/src/main');
      await startWorker(loadConfig());
      code = undefined;
    });
  program
    .command('migrate')
    .description('create the database if needed and apply migrations')
    .action(async () => {
      await migrate(loadConfig().databaseUrl, false);
    });
  server(program.command('scan <paths-or-urls...>'))
    .description('scan a repository (a directory, or a git URL) as a job, with live progress (several: one batch request, one job each)')
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .option('--no-wait', 'print the job id(s) and return at once')
    .option('--local', 'scan in this process, without a server')
    .option('--no-code-index', 'count lines and bytes only: no token counts or symbols (faster on a tree never indexed)')
    .action(async (targets: string[], options) => {
      const commands = await jobs();
      code = targets.length === 1 ? await commands.scanCommand(targets[0], options) : await commands.scanManyCommand(targets, options);
    });
  server(program.command('symbols <path-or-url>'))
    .description('definitions from a tree-sitter parse: one name ranked (--name), or all in the files --path selects')
    .option('--name <symbol>', 'Name, Class.method or Ns::fn: its definitions, best first')
    .option('--path <glob>', 'only files matching this glob (e.g. "src/**/*.ts")')
    .option('--limit <n>', 'the most definitions printed', positive)
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .option('--local', 'run in this process, without a server')
    .action(async (target: string, options) => {
      const { symbolsCommand } = await import('./commands/code-index');
      code = await symbolsCommand(target, options);
    });
  server(program.command('map <path-or-url>'))
    .description('the repo map: the most important files and signatures (PageRank over references), within a token budget')
    .option('--tokens <n>', 'the budget in tokens', numeric, 2048)
    .option('--focus <file|symbol>', 'rank toward this file or symbol (repeatable)', collect)
    .addOption(new Option('--tokens-encoding <encoding>', 'tokenizer').choices(ENCODINGS).default('o200k_base'))
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .option('--local', 'run in this process, without a server')
    .action(async (target: string, options) => {
      const { mapCommand } = await import('./commands/code-index');
      code = await mapCommand(target, options);
    });
  server(program.command('pack <path-or-url>'))
    .description('pack a repository into one LLM-ready document (tree, then every text file with its token count), secrets redacted')
    .option('-o, --output <file>', 'where to write the document (default quarry-pack.xml|md|txt here)')
    .option('--style <style>', 'xml, markdown or plain', 'xml')
    .option('--include <glob>', 'only files matching (repeatable)', collect)
    .option('--ignore <glob>', 'leave out files matching (repeatable)', collect)
    .option('--compress', 'keep signatures, drop function bodies')
    .option('--max-tokens <n>', 'stop adding files at this many tokens', numeric)
    .addOption(new Option('--tokens-encoding <encoding>', 'tokenizer for the counts').choices(ENCODINGS).default('o200k_base'))
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .option('--local', 'run in this process, without a server')
    .action(async (target: string, options) => {
      const { packCommand } = await import('./commands/code-index');
      code = await packCommand(target, options);
    });
  const navigation = () => import('./commands/navigation');
  const navigationCommand = (name: string, argument: string, description: string) =>
    server(program.command(`${name} <path-or-url> ${argument}`))
      .description(description)
      .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
      .option('--local', 'run in this process, without a server');
  navigationCommand('refs', '<symbol>', 'every use of a definition (Name, Class.method or path:line), with file, line, column, enclosing definition and the line')
    .option('--limit <n>', 'the most uses printed', positive)
    .option('--no-guessed', "leave out the uses guessed from a file's evidence (a member reached through a value of unknown type)")
    .action(async (target: string, symbol: string, options) => {
      code = await (await navigation()).refsCommand(target, symbol, options);
    });
  navigationCommand('def', '<symbol>', 'where a name (or the use at path:line) is defined, best first')
    .action(async (target: string, symbol: string, options) => {
      code = await (await navigation()).definitionCommand(target, symbol, options);
    });
  for (const direction of ['callers', 'callees'] as const) {
    navigationCommand(direction, '<symbol>', direction === 'callers' ? 'the definitions that call (or use) a definition, N hops out' : 'the definitions a definition calls, N hops out')
      .option('--depth <n>', 'hops (1-10)', numeric, 1)
      .option('--limit <n>', 'the most entries', positive)
      .action(async (target: string, symbol: string, options) => {
        code = await (await navigation()).callersCommand(target, symbol, options, direction);
      });
  }
  navigationCommand('imports', '<file>', 'the files a file imports (--reverse: the files importing it)')
    .option('--reverse', 'the files that import it')
    .action(async (target: string, file: string, options) => {
      code = await (await navigation()).importsCommand(target, file, options);
    });
  navigationCommand('outline', '<file>', "a file's definitions with ranges and signatures")
    .action(async (target: string, file: string, options) => {
      code = await (await navigation()).outlineCommand(target, file, options);
    });
  server(program.command('impact <path-or-url>'))
    .description('what a change touches: changed definitions, their dependents by distance and fan-in, and the tests to run')
    .option('--diff <file>', 'a unified diff to apply to the tree as it is (- for standard input)')
    .option('--since <ref>', 'the change from a commit to the working tree')
    .option('--working-tree', 'the uncommitted edits (against HEAD)')
    .option('--depth <n>', 'hops of dependents (1-10)', numeric, 2)
    .option('--limit <n>', 'the most dependents and files listed', positive)
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .option('--local', 'run in this process, without a server')
    .action(async (target: string, options) => {
      code = await (await navigation()).impactCommand(target, options);
    });
  server(program.command('context <path-or-url> [task]'))
    .description('the files and code spans a task touches (an issue, a question, a stack trace), ranked, with their code within a token budget')
    .option('--task-file <file>', 'read the task from this file (- for stdin)')
    .option('--tokens <n>', 'budget of the assembled context in tokens (o200k_base)', numeric, 8000)
    .option('--focus <path>', 'a file you are working on: ranked up (repeatable)', collect)
    .option('--limit <n>', 'files and spans listed', numeric)
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .option('--local', 'run in this process, without a server')
    .action(async (target: string, task: string | undefined, options) => {
      const { contextCommand } = await import('./commands/context');
      code = await contextCommand(target, task, options);
    });
  program
    .command('fetch <url>')
    .description('fetch a URL as readable text, through the SSRF guards (in this process, or --server for a job)')
    .option('--server <url>', 'run it as a job on this gateway (shared cache and per-domain limits)')
    .option('--key <key>', 'API key (default: $QUARRY_API_KEY)', process.env.QUARRY_API_KEY)
    .option('--force', 'ignore the cache')
    .option('--json', 'print JSON')
    .action(async (url: string, options: { server?: string; key?: string; force?: boolean; json?: boolean }) => {
      const { fetchCommand } = await import('./commands/fetch');
      code = await fetchCommand(url, { ...options, remote: options.server !== undefined });
    });
  program
    .command('detect <path-or-url>')
    .description('detect the tech stack of every service in a repository (in this process, or --server for a job)')
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .addOption(new Option('--mode <mode>', 'full: deterministic then LLM; static: no LLM; llm-only: LLM only').choices(['full', 'static', 'llm-only']))
    .option('--server <url>', 'run it as a job on this gateway (LLM answers cached in Postgres)')
    .option('--key <key>', 'API key (default: $QUARRY_API_KEY)', process.env.QUARRY_API_KEY)
    .option('--json', 'print JSON')
    .action(async (target: string, options: { mode?: 'full' | 'static' | 'llm-only'; ref?: string; server?: string; key?: string; json?: boolean }) => {
      const { detectCommand } = await import('./commands/detect');
      code = await detectCommand(target, { ...options, remote: options.server !== undefined });
    });
  program
    .command('mention <prompt>')
    .description('expand @file#L1-9, @dir/, @search:"x", @grep:"re", @url:…, @symbol:Name, @codebase, @context:"task" in a prompt (use - to read it from stdin)')
    .option('--root <dir>', 'workspace the paths are relative to', '.')
    .option('--repo <url>', 'a git URL instead of --root (its files, at --ref)')
    .option('--ref <ref>', 'branch, tag or commit of --repo (default: the remote HEAD)')
    .option('--parse-only', 'print the typed parse and load nothing')
    .option('--budget <bytes>', 'size cap of the augmented prompt (default 200000)', positive)
    .option('--server <url>', 'run it as a job on this gateway (URLs as child fetch jobs)')
    .option('--key <key>', 'API key (default: $QUARRY_API_KEY)', process.env.QUARRY_API_KEY)
    .option('--json', 'print JSON')
    .action(async (prompt: string, options: { root: string; repo?: string; ref?: string; parseOnly?: boolean; budget?: number; server?: string; key?: string; json?: boolean }) => {
      const { mentionCommand } = await import('./commands/mention');
      code = await mentionCommand(prompt, { ...options, remote: options.server !== undefined });
    });
  program
    .command('search <path-or-url> <pattern>')
    .description('search a repository (a directory, or a git URL) for a fixed string (or an RE2 regex with --regex); counts equal `rg -c` on the same files; an indexed commit answers from its trigram index')
    .option('--ref <ref>', 'branch, tag or commit of a git URL (default: the remote HEAD)')
    .option('--regex', 'PATTERN is an RE2 regular expression (default: a fixed string, as rg -F)')
    .option('-i, --ignore-case', 'fold case, as rg -i')
    .option('-S, --smart-case', 'fold case unless PATTERN has an upper-case letter, as rg -S')
    .option('--path <glob>', 'only files matching this glob (*.c at any depth; drivers/**/*.c on the path)')
    .option('--directory <dir>', 'search only this directory (relative to PATH)')
    .option('--hidden', 'search hidden files and directories too, as rg --hidden')
    .option('--max-results <n>', 'matching lines shown, 0 for counts only (all are counted; default 200, 50 with --json)', wholeNumber)
    .option('--context <n>', 'lines of context around each hit (with --json)', wholeNumber)
    .option('--counts', 'print path:count for every matching file, as rg -c')
    .option('--max-tokens <n>', 'with --json: the answer\'s cap in o200k tokens (default 8000, at most 24000); the hits are cut to it', (value) => Number(value))
    .option('--cursor <cursor>', 'with --json: the nextCursor of the previous answer, for the hits that follow')
    .option('--local', 'search in this process (the default)')
    .option('--server <url>', 'search on this gateway (POST /v1/search) instead of in this process')
    .option('--key <key>', 'API key for --server (default: $QUARRY_API_KEY)', process.env.QUARRY_API_KEY)
    .option('--json', 'print JSON: {total, files, indexed, hits, …}')
    .action(async (target: string, pattern: string, options) => {
      const { searchCommand } = await import('./commands/search');
      code = await searchCommand(target, pattern, options);
    });
  program
    .command('ask <question>')
    .description('answer a question about a workspace: a tool plan (AI first, rules as the fallback), then the tools run')
    .option('--root <dir>', 'the workspace', '.')
    .option('--repo <url>', 'a git URL instead of --root (its files, at --ref)')
    .option('--ref <ref>', 'branch, tag or commit of --repo (default: the remote HEAD)')
    .option('--plan-only', 'print the plan and run nothing')
    .option('--no-ai', 'plan with the rules only, even when an LLM is configured')
    .option('--cwd <dir>', 'editor context: the current directory ("here", "this folder")')
    .option('--active-file <file>', 'editor context: the open file ("this file")')
    .option('--last-file <file>', 'editor context: the previous file ("the file above")')
    .option('--last-dir <dir>', 'editor context: the previous directory ("that folder")')
    .option('--server <url>', 'run it as a job on this gateway')
    .option('--key <key>', 'API key (default: $QUARRY_API_KEY)', process.env.QUARRY_API_KEY)
    .option('--json', 'print JSON')
    .action(async (question: string, options) => {
      const { askCommand } = await import('./commands/ask');
      code = await askCommand(question, { ...options, remote: options.server !== undefined });
    });
  program
    .command('mcp')
    .description('an MCP server on stdio for AI agents: tools run in this process, or on a gateway with --server')
    .option('--root <dir>', 'the repository tools use when a call names none (default: the current directory)')
    .option('--server <url>', 'run the tools on this gateway (its /mcp endpoint) instead of in this process')
    .option('--key <key>', 'API key for --server (default: $QUARRY_API_KEY)', process.env.QUARRY_API_KEY)
    .option('--toolsets <sets>', 'the toolsets listed: files,search,navigation,context,jobs,web, all, or default (files,search,context)')
    .action(async (options: { root?: string; server?: string; key?: string; toolsets?: string }) => {
      const { mcpCommand } = await import('./commands/mcp');
      code = await mcpCommand({ ...options, version: version() });
    });
  server(program.command('jobs'))
    .description('list jobs, newest first')
    .option('--kind <kind>')
    .option('--status <status>')
    .option('--limit <n>')
    .option('--cursor <cursor>')
    .action(async (options) => {
      code = await (await jobs()).jobsCommand(options);
    });
  server(program.command('job <id>'))
    .description('show one job')
    .action(async (id: string, options) => {
      code = await (await jobs()).jobCommand(id, options);
    });
  server(program.command('cancel <id>'))
    .description('cancel a queued or running job')
    .action(async (id: string, options) => {
      code = await (await jobs()).cancelCommand(id, options);
    });
  server(program.command('retry <id>'))
    .description('run a failed or cancelled job again')
    .action(async (id: string, options) => {
      code = await (await jobs()).retryCommand(id, options);
    });
  const keys = program.command('keys').description('manage API keys (talks to Postgres directly)');
  keys
    .command('create <name>')
    .description('create a key and print it once')
    .action(async (name: string) => {
      code = await (await keyCommands()).createKey(name);
    });
  keys
    .command('list')
    .option('--json')
    .action(async (options: { json?: boolean }) => {
      code = await (await keyCommands()).listKeys(Boolean(options.json));
    });
  keys
    .command('revoke <idOrName>')
    .description('revoke a key by id, name or printed prefix')
    .action(async (idOrName: string) => {
      code = await (await keyCommands()).revokeKey(idOrName);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    return exitCodeFor(error);
  }
}

async function migrate(databaseUrl: string, quiet: boolean): Promise<void> {
  const { applyMigrations, ensureDatabase } = await import('@quarry/db');
  await ensureDatabase(databaseUrl);
  const applied = await applyMigrations(databaseUrl);
  if (!quiet || applied.length) console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
}

const REFUSALS = new Set([
  'input_invalid', 'url_invalid', 'url_blocked', 'path_not_absolute', 'path_outside_root', 'root_not_found', 'root_not_directory',
  'budget_invalid', 'task_empty', 'task_too_large', 'style_unknown', 'pattern_invalid', 'regex_invalid', 'symbol_invalid', 'ref_not_found', 'repo_not_found', 'repo_too_large',
  'depth_invalid', 'location_invalid', 'diff_invalid', 'diff_not_applicable', 'cursor_invalid', 'cursor_stale', 'toolset_unknown',
]);

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof ClientError) {
    printError(error.body);
    // A request the server refused as malformed is a usage error; anything else is a failure.
    return error.status !== undefined && error.status >= 400 && error.status < 500 && error.body.kind !== 'job_not_found' ? EXIT.usage : EXIT.failed;
  }
  if (error instanceof QuarryError) {
    printError(error.toBody());
    // A refused request (bad path, bad URL) is a usage error; a failure while doing the work is not.
    return error.permanent && REFUSALS.has(error.kind) ? EXIT.usage : EXIT.failed;
  }
  if (error instanceof ConfigError) {
    console.error(error.message);
    return EXIT.usage;
  }
  console.error(error instanceof Error ? error.message : String(error));
  return EXIT.failed;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    if (code !== undefined) process.exitCode = code;
  });
}
