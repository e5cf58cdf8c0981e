import { createReadStream } from 'node:fs';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { BatchAnswer, JobPage, JobView, listJobsQuerySchema, parseOrThrow } from '@quarry/contracts';
import { ApiKeyGuard, CurrentPrincipal } from '../auth/api-key.guard';
import { Principal } from '../auth/principal';
import { MetricsService } from '../metrics/metrics.service';
import { JobsService } from './jobs.service';

@Controller('v1/jobs')
@UseGuards(ApiKeyGuard)
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly metrics: MetricsService,
  ) {}

  /** 202: the job is stored and queued; watch it on the socket or poll GET /v1/jobs/:id. */
  @Post()
  @HttpCode(202)
  async submit(@Body() body: unknown, @CurrentPrincipal() principal: Principal): Promise<JobView> {
    const job = await this.jobs.submit(body, principal);
    this.metrics.countSubmitted(job.kind);
    return job;
  }

  /**
   * 202 with one item per job, in order: the accepted job or that item's typed error. When no job
   * was accepted: 400, the same items plus `{kind: "batch_rejected", message, suggestion}`.
   */
  @Post('batch')
  @HttpCode(202)
  async submitBatch(
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BatchAnswer | (BatchAnswer & { kind: string; message: string; suggestion: string })> {
    const answer = await this.jobs.submitBatch(body, principal);
    for (const item of answer.items) if (item.ok) this.metrics.countSubmitted(item.job.kind);
    if (answer.accepted > 0) return answer;
    response.status(400);
    const first = answer.items.find((item) => !item.ok);
    return {
      kind: 'batch_rejected',
      message: `None of the ${answer.rejected} jobs was accepted${first && !first.ok ? `; item ${first.index}: ${first.error.message}` : ''}.`,
      suggestion: 'Fix the items listed in `items` (each has its index and typed error) and send them again.',
      ...answer,
    };
  }

  @Get()
  list(@Query() query: Record<string, unknown>, @CurrentPrincipal() principal: Principal): Promise<JobPage> {
    return this.jobs.list(parseOrThrow(listJobsQuerySchema, query, 'query'), principal);
  }

  @Get(':id')
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<JobView> {
    return this.jobs.get(id, principal);
  }

  /** A pack job's document, streamed from the artifact directory. */
  @Get(':id/artifact')
  async artifact(@Param('id') id: string, @CurrentPrincipal() principal: Principal, @Res() response: Response): Promise<void> {
    const artifact = await this.jobs.artifact(id, principal);
    response.status(200);
    response.setHeader('content-type', artifact.contentType);
    response.setHeader('content-length', String(artifact.bytes));
    response.setHeader('content-disposition', `attachment; filename="${artifact.name}"`);
    await new Promise<void>((resolve, reject) => {
      const stream = createReadStream(artifact.file);
      stream.on('error', reject);
      response.on('close', () => {
        stream.destroy();
        resolve();
      });
      stream.pipe(response);
    });
  }

  @Get(':id/events')
  events(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.jobs.history(id, principal);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<JobView> {
    return this.jobs.cancel(id, principal);
  }

  @Post(':id/retry')
  @HttpCode(202)
  retry(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<JobView> {
    return this.jobs.retry(id, principal);
  }
}
