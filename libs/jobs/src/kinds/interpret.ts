import type { ContextResultBody, JobInput, JobResult } from '@quarry/contracts';
import { interpretQuery, workspaceTools } from '@quarry/interpret';
import type { JobRun } from '../job-run';
import type { InterpretPorts } from '../ports';
import { workspaceOf } from '../workspace-view';

/**
 * The interpret job: a question → a tool plan (the configured LLM first, the rules when it fails
 * or `ai` is off) → the tools run over the repository's files, through the same libraries as
 * mentions and detect.
 */
export async function runInterpret(input: JobInput<'interpret'>, ports: InterpretPorts, run: JobRun): Promise<JobResult<'interpret'>> {
  return ports.repositories.withFiles(input, run, async (snapshot) => {
    const { root, search } = await workspaceOf(snapshot, ports, run);
    const { codeIndex, corpora } = ports;
    const host = workspaceTools({
      root,
      search,
      ...ports.files,
      detectStack: (directory, signal) => ports.stack.detect(directory, undefined, signal ?? run.signal),
      fetchUrl: (url, signal) => ports.fetchUrl(url, signal ?? run.signal),
      ...(codeIndex && corpora
        ? {
            findRelevantCode: async ({ task, limit }, signal) => {
              const { retrieveOnSnapshot } = await import('./context');
              return relevantCode(await retrieveOnSnapshot(snapshot, { task, tokens: ASK_CONTEXT_TOKENS, limit }, { codeIndex, corpora, navigation: ports.navigation, layers: ports.layers }, run, signal ?? run.signal));
            },
          }
        : {}),
    });
    return interpretQuery({
      query: input.query,
      context: input.context,
      root,
      llm: input.ai === 'off' ? undefined : ports.llm,
      ai: input.ai,
      execute: input.execute,
      host,
      signal: run.signal,
      onProgress: (progress) => run.progress(progress),
    });
  });
}

/** The code find_relevant_code shows an answer: enough to answer from, small beside the other tools' outputs (64 KiB each at most). */
const ASK_CONTEXT_TOKENS = 4000;

/** Retrieval's answer as a step's output: the ranking with the signals that made it, and the code. */
function relevantCode(result: ContextResultBody) {
  return {
    files: result.files.map(({ path, score, role, why }) => ({ path, score, role, signals: why.map((entry) => entry.signal) })),
    spans: result.spans.map(({ path, startLine, endLine, symbol, kind, container, score, inContext }) => ({ path, startLine, endLine, symbol, kind, container, score, inContext })),
    context: result.context,
    tokens: result.tokens,
    ...(result.commit ? { commit: result.commit } : {}),
    warnings: result.warnings,
  };
}
