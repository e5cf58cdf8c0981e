import { Body, Controller, HttpCode, Inject, Injectable, OnApplicationShutdown, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { QUARRY_CONFIG, type QuarryConfig, type Logger } from '@quarry/config';
import { parseOrThrow, QuarryError, searchInputSchema, type SearchAnswer, type SearchInput } from '@quarry/contracts';
import { SearchIndexRepository } from '@quarry/db';
import { pageSearch } from '@quarry/mcp/answers';
import { answerSearch } from '@quarry/search';
import type { SearchFunction } from '@quarry/search';
import { answerSourceSearch, CheckoutIndexes, IndexedCommits, SegmentCache, SegmentThread } from '@quarry/search-index';
import { isCheckoutTop, snapshotProviderFor, type SnapshotProvider } from '@quarry/snapshot';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { GATEWAY_LOGGER } from '../gateway.tokens';

/**
 * Searches of repositories by URL: this gateway's own git cache under QUARRY_DATA_DIR (as a worker
 * builds its own), and the commits indexed by a scan, opened once and kept for the next queries
 * (their segments cached on this disk). Searches of a checkout inside the workspace roots: its
 * working tree watched, its HEAD's index built here on its first search (in Postgres, beside the
 * scans' segments, whose blobs it reuses), the edits read beside it.
 */
@Injectable()
export class RepositorySearch implements OnApplicationShutdown {
  readonly snapshots: SnapshotProvider;
  readonly commits: IndexedCommits;
  readonly checkouts: CheckoutIndexes;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig, index: SearchIndexRepository, @Inject(GATEWAY_LOGGER) logger: Logger) {
    this.snapshots = snapshotProviderFor(config);
    const cache = new SegmentCache(config.dataDir, index);
    this.commits = new IndexedCommits(index, cache);
    this.checkouts = new CheckoutIndexes({
      store: index,
      cache,
      environment: this.snapshots.git.environment(),
      build: config.searchIndex,
      segments: new SegmentThread().sink,
      onProgress: (root, progress) => logger.info({ root, ...progress }, 'search index of a checkout: building'),
      onBuilt: (root, { manifest, built, reused, elapsedMs }) =>
        logger.info({ root, commit: manifest.commit, files: manifest.files, indexBytes: manifest.indexBytes, builtBlobs: built.blobs, reusedBlobs: reused, elapsedMs: Math.round(elapsedMs) }, 'search index of a checkout: built'),
      onError: (root, error) => logger.warn({ root, err: error }, 'search index of a checkout: not available, searches read the files'),
    });
  }

  /**
   * How a checkout (a real path already admitted) is searched now: through its HEAD's index with
   * the edits read beside it once the index is open, else (its first walk, the build) by reading
   * every file; undefined for the latter.
   */
  async localSearcher(root: string): Promise<SearchFunction | undefined> {
    // Only a checkout has a HEAD to index: another directory is not watched for nothing.
    if (!isCheckoutTop(root)) return undefined;
    const tree = await this.snapshots.workingTreeIfOpen(root).catch(() => undefined);
    if (!tree) return undefined;
    const { search, indexed } = this.checkouts.searcher(tree);
    return indexed ? search : undefined;
  }

  /** The git source's ref pinned to a commit, its working tree searched through the commit's index when a scan built one. */
  answer(source: { git: string; ref?: string }, input: SearchInput, options: { timeoutMs: number; signal: AbortSignal }): Promise<SearchAnswer> {
    return answerSourceSearch(this.snapshots, source, input, { ...options, commits: this.commits });
  }

  async onApplicationShutdown(): Promise<void> {
    this.checkouts.close();
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
      // Hits within maxTokens (default 8,000), continued by nextCursor: the search runs for the hits up to the page.
      const request = { ...(body as SearchInput), maxTokens: undefined, cursor: undefined };
      if (input.source && 'git' in input.source) {
        const source = input.source;
        return await pageSearch(body as SearchInput, (maxResults) => this.repositories.answer(source, { ...request, maxResults }, options), { exact: true });
      }
      const root = await resolveWorkspaceRoot(input.root ?? (input.source as { path: string }).path, this.config.workspaceRoots);
      const search = await this.repositories.localSearcher(root);
      return await pageSearch(body as SearchInput, (maxResults) => answerSearch(root, { ...request, maxResults }, { ...options, search }), { exact: true });
    } finally {
      response.off('close', gone);
    }
  }
}
