import path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { CodeIndexCache, type BlobIndexStore, findSymbols, mapTree, packArtifactName, packSnapshot, packToFileWith, pruneArtifacts, sharedBlobIndexer } from '@quarry/code-index';
import { BlobCodeIndexRepository } from '@quarry/db';
import type { Snapshot } from '@quarry/snapshot';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';
import { JobSnapshots } from '../job-snapshots';

/**
 * The code-index kinds, on a git URL at a ref or a directory (`source`, or `root`), through the
 * worker's snapshot of the commit. Each file's index comes from the per-blob rows in Postgres
 * (written by the scan's shards or an earlier job, whatever the commit); the missing ones are
 * computed here and stored. One CodeIndexCache per worker process (shared with @symbol:
 * mentions) keeps the decoded trees of recent commits, so repeated lookups decode nothing.
 */
@Injectable()
@HandlesJob('symbols')
export class SymbolsProcessor implements JobHandler<'symbols'> {
  constructor(
    private readonly snapshots: JobSnapshots,
    private readonly codeIndex: CodeIndexCache,
    @Inject(BlobCodeIndexRepository) private readonly store: BlobIndexStore,
  ) {}

  async run(input: JobInput<'symbols'>, context: JobContext): Promise<JobResult<'symbols'>> {
    const { result, source } = await this.snapshots.run(input, context, async (snapshot) =>
      findSymbols(await this.codeIndex.snapshotTree(snapshot, this.store, { signal: context.signal, onProgress: context.progress }), input),
    );
    return { ...result, source };
  }
}

@Injectable()
@HandlesJob('map')
export class MapProcessor implements JobHandler<'map'> {
  constructor(
    private readonly snapshots: JobSnapshots,
    private readonly codeIndex: CodeIndexCache,
    @Inject(BlobCodeIndexRepository) private readonly store: BlobIndexStore,
  ) {}

  async run(input: JobInput<'map'>, context: JobContext): Promise<JobResult<'map'>> {
    const { result, source } = await this.snapshots.run(input, context, async (snapshot) => {
      const tree = await this.codeIndex.snapshotTree(snapshot, this.store, { signal: context.signal, onProgress: context.progress });
      context.progress({ stage: 'ranking', done: 0, total: 1, message: `${tree.files.length} files` });
      return mapTree(tree, input);
    });
    return { ...result, source };
  }
}

/**
 * Packs to `<artifact dir>/<job id>.<ext>`, streamed (memory holds the file list, each file's
 * stored brief and a few files, never the document); GET /v1/jobs/{id}/artifact serves it. A
 * retried attempt overwrites it. Documents older than QUARRY_ARTIFACT_TTL_MS are removed as a
 * pack starts.
 */
@Injectable()
@HandlesJob('pack')
export class PackProcessor implements JobHandler<'pack'> {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly snapshots: JobSnapshots,
    @Inject(BlobCodeIndexRepository) private readonly store: BlobIndexStore,
  ) {}

  async run(input: JobInput<'pack'>, context: JobContext): Promise<JobResult<'pack'>> {
    await pruneArtifacts(this.config.artifactDir, this.config.artifactTtlMs);
    const file = path.join(this.config.artifactDir, packArtifactName(context.jobId, input.style));
    const indexer = () => sharedBlobIndexer(input.encoding);
    const { result, source } = await this.snapshots.run(input, context, (snapshot) =>
      packToFileWith(file, (sink) => packSnapshot(snapshot, input, sink, { store: this.store, indexer, signal: context.signal, onProgress: context.progress, title: titleOf(snapshot) })),
    );
    return { ...result, source };
  }
}

/** The heading's name: the directory's, or the repository's (`linux` for `https://…/linux.git`). */
export function titleOf(snapshot: Pick<Snapshot, 'root'>): string {
  return path.basename(snapshot.root.replace(/\/+$/, '')).replace(/\.git$/, '') || 'repository';
}
