import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { isQuarryError } from '@quarry/contracts';
import { AccessService, tokenFromHeader } from '../auth/access.service';
import { QueueRegistry } from './queues.module';

export const QUEUES_ROUTE = '/queues';

/**
 * The operators' view of the queues (bull-board). With API keys configured it asks for one:
 * browsers get a Basic prompt where the key goes in the password field.
 */
export function mountBullBoard(app: INestApplication): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUES_ROUTE);
  createBullBoard({
    queues: app.get(QueueRegistry).all().map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Quarry queues' } },
  });
  const access = app.get(AccessService);
  const guard = (request: Request, response: Response, next: NextFunction) => {
    access
      .authenticate(tokenFromHeader(request.headers.authorization))
      .then(() => next())
      .catch((error: unknown) => {
        if (!isQuarryError(error)) return next(error);
        response.setHeader('WWW-Authenticate', 'Basic realm="quarry queues"');
        response.status(401).json(error.toBody());
      });
  };
  app.use(QUEUES_ROUTE, guard, serverAdapter.getRouter());
}
