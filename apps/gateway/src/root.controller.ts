import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BUILT_KINDS, EVENTS_NAMESPACE, JOB_KINDS } from '@quarry/contracts';
import { WebAssets } from './web/web-assets';

@Controller()
export class RootController {
  constructor(private readonly web: WebAssets) {}

  /**
   * Browsers (which ask for text/html) get the dashboard; everyone else (`Accept: application/json`,
   * `*∕*`, no Accept header) gets a map of the service.
   */
  @Get()
  index(@Req() request: Request, @Res() response: Response): void {
    response.vary('Accept');
    if (request.accepts(['application/json', 'text/html']) === 'text/html') return this.web.sendIndex(response);
    response.json(this.map());
  }

  map() {
    return {
      name: 'quarry',
      kinds: { available: BUILT_KINDS, all: JOB_KINDS },
      api: '/v1/jobs',
      events: `socket.io namespace ${EVENTS_NAMESPACE} (websocket transport)`,
      mcp: '/mcp (Model Context Protocol, Streamable HTTP)',
      dashboard: '/ (Accept: text/html)',
      docs: '/docs',
      queues: '/queues',
      health: '/health',
      ready: '/ready',
      metrics: '/metrics',
    };
  }
}
