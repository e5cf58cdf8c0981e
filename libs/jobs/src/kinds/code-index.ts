import type { JobInput, JobResult } from '@quarry/contracts';
import { findSymbols, mapTree } from '@quarry/code-index';
import type { JobRun } from '../job-run';
import type { CodeIndexPorts, PackPorts } from '../ports';

/*
 * The code-index kinds, on a git URL at a ref or a directory. Each file's index comes from the
 * per-blob rows (written by the scan's shards or an earlier job, whatever the commit); the missing
 * ones are computed and stored.
 */

/** Where a name is defined (ranked), or every definition under a glob. */
export async function runSymbols(input: JobInput<'symbols'>, ports: CodeIndexPorts, run: JobRun): Promise<JobResult<'symbols'>> {
  const { result, source } = await ports.repositories.withSnapshot(input, run, async (snapshot) =>
    findSymbols(await ports.codeIndex.tree(snapshot, { signal: run.signal, onProgress: run.progress }), input),
  );
  return { ...result, source };
}

/** The ranked repo map within a token budget. */
export async function runMap(input: JobInput<'map'>, ports: CodeIndexPorts, run: JobRun): Promise<JobResult<'map'>> {
  const { result, source } = await ports.repositories.withSnapshot(input, run, async (snapshot) => {
    const tree = await ports.codeIndex.tree(snapshot, { signal: run.signal, onProgress: run.progress });
    run.progress({ stage: 'ranking', done: 0, total: 1, message: `${tree.files.length} files` });
    return mapTree(tree, input);
  });
  return { ...result, source };
}

/**
 * The repository as one document, written where the artifacts port says (a worker:
 * `<artifact dir>/<job id>.<ext>`, which GET /v1/jobs/{id}/artifact serves; a retried attempt
 * overwrites it).
 */
export async function runPack(input: JobInput<'pack'>, ports: PackPorts, run: JobRun): Promise<JobResult<'pack'>> {
  await ports.artifacts.prune?.();
  const file = ports.artifacts.fileFor(run, input.style);
  const { result, source } = await ports.repositories.withSnapshot(input, run, (snapshot) =>
    ports.codeIndex.pack(snapshot, input, file, { signal: run.signal, onProgress: run.progress }),
  );
  return { ...result, source };
}
