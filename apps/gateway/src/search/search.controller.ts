import { Body, Controller, HttpCode, Inject, Injectable, OnApplicationShutdown, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { QUARRY_CONFIG, type QuarryConfig } from '@quarry/config';
import { parseOrThrow, QuarryError, searchInputSchema, type SearchAnswer, type SearchInput } from '@quarry/contracts';
import { SearchIndexRepository } from '@quarry/db';
import { answerSearch } from '@quarry/search';
import { IndexedCommits, SegmentCache, snapshotSearch } from '@quarry/search-index';
import { snapshotProviderFor, type SnapshotProvider } from '@quarry/snapshot';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { ApiKeyGuard } from '../auth/api-key.guard';

/**
 * Searches of repositories by URL: this gateway's own git cache under QUARRY_DATA_DIR (as a worker
 * builds its own), and the commits indexed by a scan, opened once and kept for the next queries
 * (their segments cached on this disk).
 */
@Injectable()
export class RepositorySearch implements OnApplicationShutdown {
  readonly snapshots: SnapshotProvider;
  readonly commits: IndexedCommits;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig, index: SearchIndexRepository) {
    this.snapshots = snapshotProviderFor(config);
    this.commits = new IndexedCommits(index, new SegmentCache(config.dataDir, index));
  }

  /** The git source's ref pinned to a commit, its working tree searched through the commit's index when a scan built one. */
  async answer(source: { git: string; ref?: string }, input: SearchInput, options: { timeoutMs: number; signal: AbortSignal }): Promise<SearchAnswer> {
    const pinned = await this.snapshots.resolve(source, options.signal);
    const snapshot = await this.snapshots.open(pinned, options.signal);
    try {
      const { root, search } = await snapshotSearch(snapshot, this.commits, options.signal);
      return { ...(await answerSearch(root, input, { ...options, search })), commit: pinned.commit };
    } finally {
      snapshot.close();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.commits.close();
    await this.snapshots.close();
  }
}

/**
 * `POST /v1/search`: a literal or RE2 search over a repository — a directory inside
 * QUARRY_WORKSPACE_ROOTS (`root`) or a git URL (`source`) — answered in the request (a read, like
 * the MCP tools' reads: no job row, no queue round trip), with counts equal to `rg -c`. A commit a
 * scan indexed is answered from its trigram index (`indexed: true`), with the same counts and
 * hits. A client that goes away stops the search.
 */
@Controller('v1/search')
@UseGuards(ApiKeyGuard)
export class SearchController {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly repositories: RepositorySearch,
  ) {}

  @Post()
  @HttpCode(200)
  async search(@Body() body: unknown, @Res({ passthrough: true }) response: Response): Promise<SearchAnswer> {
    const raw = (body ?? {}) as { root?: unknown; source?: unknown };
    if (raw.root === undefined && raw.source === undefined) {
      throw new QuarryError('input_invalid', 'body.root: the repository to search is missing.', {
        suggestion: 'Send {"root": "/path/to/repo", "pattern": "…"} or {"source": {"git": "https://host/repo.git"}, "pattern": "…"}.',
      });
    }
    const input = parseOrThrow(searchInputSchema, body as SearchInput);
    const controller = new AbortController();
    const gone = () => !response.writableEnded && controller.abort(new QuarryError('input_invalid', 'The client went away.'));
    response.once('close', gone);
    const options = { timeoutMs: this.config.files.searchTimeoutMs, signal: controller.signal };
    try {
      if (input.source && 'git' in input.source) return await this.repositories.answer(input.source, body as SearchInput, options);
      const root = await resolveWorkspaceRoot(input.root ?? (input.source as { path: string }).path, this.config.workspaceRoots);
      return await answerSearch(root, body as SearchInput, options);
    } finally {
      response.off('close', gone);
    }
  }
}
