import type { ContextResultBody, JobInput, JobResult } from '@quarry/contracts';
import { graphNeighbours } from '@quarry/code-graph';
import { decodeText, type IndexedTree } from '@quarry/code-index';
import { retrieveContext, validateContextRequest, type ContextRequest } from '@quarry/context';
import type { Snapshot } from '@quarry/snapshot';
import type { JobRun } from '../job-run';
import type { ContextPorts } from '../ports';

/**
 * Trees up to this many files get the resolved navigation graph built for their first question
 * (seconds); a bigger one (the kernel's takes ~100 s) uses it once navigation built it, and the
 * name-matching graph until then.
 */
const RESOLVED_GRAPH_MAX_FILES = 20_000;

/** The propagation signal's graph: the commit's navigation graph (uses resolved through imports and scopes), when the port has it or it is cheap to build. */
async function resolvedGraph(tree: IndexedTree, read: (path: string) => Promise<string>, ports: RetrievalPorts) {
  if (!ports.navigation || (tree.files.length > RESOLVED_GRAPH_MAX_FILES && !ports.navigation.has(tree))) return undefined;
  return graphNeighbours(await ports.navigation.of(tree, read));
}

/**
 * The context job: a task's text (an issue, a question, a stack trace) → the files and the
 * definition-sized spans it touches, ranked, and their code within the token budget, on the
 * commit the repository is at.
 */
export async function runContext(input: JobInput<'context'>, ports: ContextPorts, run: JobRun): Promise<JobResult<'context'>> {
  // Typed errors before anything is opened: an empty or huge task, a bad budget, a focus outside the root.
  const request = validateContextRequest(input);
  const { result, source } = await ports.repositories.withSnapshot(input, run, (snapshot) => retrieveOnSnapshot(snapshot, request, ports, run));
  return { ...result, source, commit: source.commit };
}

/** What retrieval reads: the code index, the corpora kept beside it, the navigation graphs. */
export type RetrievalPorts = Pick<ContextPorts, 'codeIndex' | 'corpora' | 'navigation' | 'layers'>;

/**
 * Retrieval on one snapshot, shared by the context job, @codebase / @context: mentions and the
 * interpret tool find_relevant_code. The tree comes from the code index (the scan's per-blob
 * rows), its corpus from chunk rows kept beside them; only the files whose code the answer shows
 * are read.
 */
export async function retrieveOnSnapshot(snapshot: Snapshot, request: ContextRequest, ports: RetrievalPorts, run: JobRun, signal: AbortSignal = run.signal): Promise<ContextResultBody> {
  const options = { signal, onProgress: (progress: Parameters<JobRun['progress']>[0]) => run.progress(progress) };
  const tree = await ports.codeIndex.tree(snapshot, options);
  const read = (path: string) => snapshot.readFile(path);
  const corpus = await ports.corpora.corpus(tree, read, options);
  run.progress({ stage: 'ranking', done: 0, total: 1, message: `${tree.files.length} files` });
  const readText = async (path: string) => decodeText((await read(path)) ?? Buffer.alloc(0));
  const graph = await resolvedGraph(tree, readText, ports);
  // A directory's identity is computed only where a job row records it (withSnapshot names it then).
  const commit = snapshot.kind === 'git' ? snapshot.source.commit : undefined;
  return retrieveContext(corpus, request, { readText, ...(graph ? { graph } : {}), ...(commit ? { commit } : {}), ...ports.layers, signal });
}
