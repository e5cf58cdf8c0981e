import { QuarryError, type NavigationInput, type NavigationQuery, type NavigationResult } from '@quarry/contracts';
import { callees, callers, changeFromDiff, changeFromGit, definition, impact, importedBy, imports, indexAfterChange, outline, references, validateDepth, workingTreeChange, type ChangeSet, type SourceReader } from '@quarry/code-graph';
import { indexBlob, parseSymbolQuery } from '@quarry/code-index';
import { redactSecrets } from '@quarry/workspace';
import type { JobRun } from './job-run';
import type { NavigationPorts } from './ports';
import { snapshotText } from './snapshot-text';

/**
 * Code navigation as every caller runs it (`POST /v1/navigation` on a gateway, the CLI's `quarry
 * refs`/`callers`/…, the MCP tools): one query on the commit the repository is at, read from its
 * code index (the scan's per-blob rows; the missing ones are computed and stored) and the
 * commit's navigation index, built once and kept. A read, not a job: it answers in the request.
 */
export async function navigate<Q extends NavigationQuery>(input: NavigationInput & { query: Q }, ports: NavigationPorts, run: JobRun): Promise<NavigationResult<Q>> {
  checkRequest(input);
  const { result, source } = await ports.repositories.withSnapshot(input, run, async (snapshot) => {
    const progress = { signal: run.signal, onProgress: (report: Parameters<JobRun['progress']>[0]) => run.progress(report) };
    const tree = await ports.codeIndex.tree(snapshot, progress);
    const read: SourceReader = snapshotText(snapshot);
    const index = await ports.navigation.of(tree, read);
    const { symbol = '', path = '', depth, limit, guessed } = input;
    switch (input.query) {
      case 'references':
        return references(index, symbol, { limit, guessed });
      case 'definition':
        return definition(index, symbol);
      case 'callers':
        return callers(index, symbol, { depth, limit });
      case 'callees':
        return callees(index, symbol, { depth, limit });
      case 'imports':
        return imports(index, path);
      case 'importedBy':
        return importedBy(index, path);
      case 'outline':
        return outline(index, path);
      case 'impact': {
        const indexer = await ports.codeIndex.cache.blobIndexer();
        const indexText = (file: string, text: string) => indexBlob(indexer, file, Buffer.from(text));
        let change: ChangeSet;
        let after = index;
        if (input.diff !== undefined) {
          // The diff is applied to the tree as it is: the graph after the change is the one analysed.
          change = await changeFromDiff(input.diff, read);
          after = await ports.navigation.after(tree, read, change, indexText);
        } else {
          if (snapshot.kind !== 'directory') {
            throw new QuarryError('input_invalid', 'since and workingTree compare a checkout with a commit; a repository by URL has no working tree.', {
              suggestion: 'Send the change as a unified diff (diff), or name the directory of a checkout.',
            });
          }
          change = input.since !== undefined ? await changeFromGit(snapshot.root, input.since) : await workingTreeChange(snapshot.root);
        }
        return impact(after, change, { depth, limit, definitionsOf: (file, text) => indexText(file, text).definitions });
      }
    }
  });
  return { ...redacted(result), source } as NavigationResult<Q>;
}

/**
 * The answer as a reader may see it: the lines of uses and the signatures (a constant's is its
 * whole line) with credentials redacted, as read_file and @symbol: show them — the graph reads
 * the files as they are, and these answers go to agents and browsers.
 */
function redacted<T>(value: T): T {
  if (Array.isArray(value)) return value.map(redacted) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key, (key === 'text' || key === 'signature') && typeof field === 'string' ? redactSecrets(field).text : redacted(field)]),
  ) as T;
}

/** What can be refused before the repository is opened: a depth out of range, a name that cannot be one, a missing argument. */
export function checkRequest(input: NavigationInput): void {
  if (input.depth !== undefined) validateDepth(input.depth);
  const needsSymbol = ['references', 'definition', 'callers', 'callees'].includes(input.query);
  if (needsSymbol) {
    if (input.symbol === undefined) throw new QuarryError('input_invalid', `${input.query} needs symbol: a name (Server.start) or a place (src/app.ts:12).`, { suggestion: '{"query": "references", "symbol": "Server.start"}' });
    // A place (path:line[:column]) is checked against the tree; a name's syntax now.
    if (!/^.+:\d+(:\d+)?$/.test(input.symbol.trim())) parseSymbolQuery(input.symbol);
  } else if (input.query !== 'impact' && input.path === undefined) {
    throw new QuarryError('input_invalid', `${input.query} needs path: a file of the repository.`, { suggestion: '{"query": "outline", "path": "src/app.ts"}' });
  }
  if (input.query === 'impact') {
    const given = [input.diff !== undefined, input.since !== undefined, input.workingTree === true].filter(Boolean).length;
    if (given !== 1) {
      throw new QuarryError('input_invalid', given === 0 ? 'impact needs the change: diff, since or workingTree.' : 'impact takes one change: diff, since or workingTree.', {
        suggestion: '{"query": "impact", "diff": "<output of git diff>"} — or, for a checkout, {"since": "main"} or {"workingTree": true}',
      });
    }
  }
}
