import type { IndexedTree } from '@quarry/code-index';
import type { JobInput, JobResult } from '@quarry/contracts';
import { expandMentions } from '@quarry/mentions';
import type { JobRun } from '../job-run';
import type { MentionsPorts } from '../ports';
import { snapshotText } from '../snapshot-text';
import { workspaceOf } from '../workspace-view';

/**
 * The mentions job: the prompt's @-mentions loaded from the repository's files (a commit's
 * checkout in the cache), @search and @grep through the commit's trigram index when a scan built
 * one, @symbol: from the code index, @refs: from the commit's navigation graph, @codebase and
 * @context: by task-aware retrieval on the commit, @url: through the fetch guards.
 */
export async function runMentions(input: JobInput<'mentions'>, ports: MentionsPorts, run: JobRun): Promise<JobResult<'mentions'>> {
  return ports.repositories.withFiles(input, run, async (snapshot) => {
    const workspace = await workspaceOf(snapshot, ports, run);
    const navigation = ports.navigation;
    const { corpora } = ports;
    return expandMentions(
      { prompt: input.prompt, maxBytes: input.budget?.maxBytes },
      {
        ...workspace,
        ...ports.files,
        fetchUrl: (url, signal) => ports.fetchUrl(url, signal ?? run.signal),
        // @codebase and @context: rank on this commit as the context job does (its corpus and navigation graph).
        ...(corpora
          ? { retrieveContext: async (request, signal) => (await import('./context')).retrieveOnSnapshot(snapshot, request, { codeIndex: ports.codeIndex, corpora, navigation: ports.navigation, layers: ports.layers }, run, signal) }
          : {}),
        signal: run.signal,
        onProgress: (progress) => run.progress(progress),
        // @refs: on the process's kept graph of the commit, shared with navigation reads.
        ...(navigation ? { navigationIndex: (tree: IndexedTree) => navigation.of(tree, snapshotText(snapshot)) } : {}),
      },
    );
  });
}
