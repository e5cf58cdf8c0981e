import path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { JobInput, JobResult } from '@quarry/contracts';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { CodeIndexCache, findSymbols, mapTree, packArtifactName, packToFile, pruneArtifacts } from '@quarry/code-index';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { HandlesJob, JobContext, JobHandler } from '../job-handler';

/**
 * The code-index kinds. One CodeIndexCache per worker process (shared with @symbol: mentions):
 * a tree is read and parsed once per state, then symbol lookups and maps reuse it.
 */
@Injectable()
@HandlesJob('symbols')
export class SymbolsProcessor implements JobHandler<'symbols'> {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly codeIndex: CodeIndexCache,
  ) {}

  async run(input: JobInput<'symbols'>, context: JobContext): Promise<JobResult<'symbols'>> {
    const root = await resolveWorkspaceRoot(input.root, this.config.workspaceRoots);
    const tree = await this.codeIndex.tree(root, { signal: context.signal, onProgress: context.progress });
    return findSymbols(tree, input);
  }
}

@Injectable()
@HandlesJob('map')
export class MapProcessor implements JobHandler<'map'> {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly codeIndex: CodeIndexCache,
  ) {}

  async run(input: JobInput<'map'>, context: JobContext): Promise<JobResult<'map'>> {
    const root = await resolveWorkspaceRoot(input.root, this.config.workspaceRoots);
    const tree = await this.codeIndex.tree(root, { signal: context.signal, onProgress: context.progress });
    context.progress({ stage: 'ranking', done: 0, total: 1, message: `${tree.files.length} files` });
    return mapTree(tree, input);
  }
}

/**
 * Packs to `<artifact dir>/<job id>.<ext>`, streamed (memory holds the file list and a few files,
 * never the document); GET /v1/jobs/{id}/artifact serves it. A retried attempt overwrites it.
 * Documents older than QUARRY_ARTIFACT_TTL_MS are removed as a pack starts.
 */
@Injectable()
@HandlesJob('pack')
export class PackProcessor implements JobHandler<'pack'> {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly codeIndex: CodeIndexCache,
  ) {}

  async run(input: JobInput<'pack'>, context: JobContext): Promise<JobResult<'pack'>> {
    const root = await resolveWorkspaceRoot(input.root, this.config.workspaceRoots);
    await pruneArtifacts(this.config.artifactDir, this.config.artifactTtlMs);
    const file = path.join(this.config.artifactDir, packArtifactName(context.jobId, input.style));
    return packToFile(root, input, file, { cache: this.codeIndex, signal: context.signal, onProgress: context.progress, title: path.basename(root) });
  }
}
