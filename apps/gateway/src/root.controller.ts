import { Controller, Get } from '@nestjs/common';
import { BUILT_KINDS, EVENTS_NAMESPACE, JOB_KINDS } from '@quarry/contracts';

@Controller()
export class RootController {
  /** A map of the service for whoever opens the base URL. */
  @Get()
  index() {
    return {
      name: 'quarry',
      kinds: { available: BUILT_KINDS, all: JOB_KINDS },
      api: '/v1/jobs',
      events: `socket.io namespace ${EVENTS_NAMESPACE} (websocket transport)`,
      docs: '/docs',
      queues: '/queues',
      health: '/health',
      ready: '/ready',
      metrics: '/metrics',
    };
  }
}
