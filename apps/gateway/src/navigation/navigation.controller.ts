import { Body, Controller, HttpCode, Inject, Injectable, OnApplicationShutdown, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { CodeIndexCache, type BlobIndexStore } from '@quarry/code-index';
import { QUARRY_CONFIG, type QuarryConfig } from '@quarry/config';
import { navigationInputSchema, parseOrThrow, QuarryError, type NavigationInput, type NavigationResult } from '@quarry/contracts';
import { BlobCodeIndexRepository } from '@quarry/db';
import { CodeIndexReader, NavigationIndexes, RepositorySessions, checkNavigationRequest, navigate, type NavigationPorts } from '@quarry/jobs';
import { snapshotProviderFor } from '@quarry/snapshot';
import { ApiKeyGuard } from '../auth/api-key.guard';

/**
 * This gateway's navigation ports: repositories inside QUARRY_WORKSPACE_ROOTS and git URLs in its
 * own cache under QUARRY_DATA_DIR (as a worker keeps its own), the code index from the per-blob
 * rows the scans stored in Postgres (the missing ones computed here and stored), and the
 * navigation indexes of the last commits it answered on.
 */
@Injectable()
export class GatewayNavigation implements OnApplicationShutdown {
  readonly ports: NavigationPorts;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig, @Inject(BlobCodeIndexRepository) store: BlobIndexStore) {
    this.ports = { repositories: new RepositorySessions(snapshotProviderFor(config)), codeIndex: new CodeIndexReader(new CodeIndexCache(), store), navigation: new NavigationIndexes() };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ports.repositories.close();
  }
}

/**
 * `POST /v1/navigation`: one navigation query of a repository — references, definition, callers,
 * callees, imports, importedBy, outline or impact — answered in the request (a read, like
 * `POST /v1/search`: no job row, no queue round trip), on the commit the repository is at. A
 * client that goes away stops the read.
 */
@Controller('v1/navigation')
@UseGuards(ApiKeyGuard)
export class NavigationController {
  constructor(private readonly navigation: GatewayNavigation) {}

  @Post()
  @HttpCode(200)
  async navigate(@Body() body: unknown, @Res({ passthrough: true }) response: Response): Promise<NavigationResult> {
    const input = parseOrThrow(navigationInputSchema, (body ?? {}) as NavigationInput, 'body') as NavigationInput;
    checkNavigationRequest(input);
    const controller = new AbortController();
    const gone = () => !response.writableEnded && controller.abort(new QuarryError('input_invalid', 'The client went away.'));
    response.once('close', gone);
    try {
      return await navigate(input, this.navigation.ports, { id: 'navigation', signal: controller.signal, progress: () => undefined });
    } finally {
      response.off('close', gone);
    }
  }
}
