import { Body, Controller, HttpCode, Inject, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { QUARRY_CONFIG, type QuarryConfig } from '@quarry/config';
import { QuarryError, type SearchAnswer } from '@quarry/contracts';
import { answerSearch } from '@quarry/search';
import { resolveWorkspaceRoot } from '@quarry/workspace';
import { ApiKeyGuard } from '../auth/api-key.guard';

/**
 * `POST /v1/search`: a literal or RE2 search over a repository inside QUARRY_WORKSPACE_ROOTS,
 * answered in the request (a read, like the MCP tools' reads: no job row, no queue round trip),
 * with counts equal to `rg -c`. A client that goes away stops the search.
 */
@Controller('v1/search')
@UseGuards(ApiKeyGuard)
export class SearchController {
  constructor(@Inject(QUARRY_CONFIG) private readonly config: QuarryConfig) {}

  @Post()
  @HttpCode(200)
  async search(@Body() body: unknown, @Res({ passthrough: true }) response: Response): Promise<SearchAnswer> {
    const input = (body ?? {}) as { root?: unknown };
    if (typeof input.root !== 'string' || input.root === '') {
      throw new QuarryError('input_invalid', 'body.root: the repository to search is missing.', { suggestion: 'Send {"root": "/path/to/repo", "pattern": "…"}.' });
    }
    const root = await resolveWorkspaceRoot(input.root, this.config.workspaceRoots);
    const controller = new AbortController();
    const gone = () => !response.writableEnded && controller.abort(new QuarryError('input_invalid', 'The client went away.'));
    response.once('close', gone);
    try {
      return await answerSearch(root, body as Parameters<typeof answerSearch>[1], { timeoutMs: this.config.files.searchTimeoutMs, signal: controller.signal });
    } finally {
      response.off('close', gone);
    }
  }
}
