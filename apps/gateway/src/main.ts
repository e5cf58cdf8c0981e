import 'reflect-metadata';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { SwaggerModule } from '@nestjs/swagger';
import { ConfigError, PinoNestLogger, QuarryConfig, closeOnSignals, isLoopbackHost, loadConfig } from '@quarry/config';
import { ApiKeyRepository, createPrismaClient } from '@quarry/db';
import { AppModule } from './app.module';
import { buildOpenApiDocument } from './docs/openapi';
import { mountBullBoard } from './queues/bull-board';
import { GATEWAY_LOGGER } from './gateway.tokens';
import { requestLogger } from './request-logger';
import { answerMalformedRequests } from './errors/client-error';

export interface RunningGateway {
  app: NestExpressApplication;
  url: string;
  close(): Promise<void>;
}

/** Starts the HTTP + socket.io gateway. Resolves once it listens. */
export async function startGateway(config: QuarryConfig = loadConfig(), options: { shutdownHooks?: boolean } = {}): Promise<RunningGateway> {
  await refuseOpenBindWithoutKeys(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    logger: new PinoNestLogger('quarry-gateway', config.logLevel === 'info' ? 'warn' : config.logLevel),
  });
  answerMalformedRequests(app.getHttpServer());
  app.use(requestLogger(app.get(GATEWAY_LOGGER)));
  app.useBodyParser('json', { limit: config.maxBodyBytes });
  app.useWebSocketAdapter(new IoAdapter(app));
  app.disable('x-powered-by');
  SwaggerModule.setup('docs', app, buildOpenApiDocument());
  mountBullBoard(app);
  const close = closeWithinGrace(app, config.shutdownTimeoutMs);
  // `quarry up` handles signals itself: it must stop its workers and services after the gateway.
  if (options.shutdownHooks !== false) closeOnSignals({ close });
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { app, url: `http://${host}:${port}`, close };
}

/**
 * Closing waits for open connections to end: requests in flight finish, socket.io clients get
 * their close handshake. A client that never ends its part (a request whose headers or body never
 * arrive, a WebSocket peer that never answers the close frame) would hold shutdown for Node's own
 * timeouts (60 s for headers, 30 s for a WebSocket close), so connections still open after
 * `graceMs` are cut.
 */
function closeWithinGrace(app: NestExpressApplication, graceMs: number): () => Promise<void> {
  const server = app.getHttpServer() as Server;
  // Upgraded sockets (socket.io) leave the HTTP server's own list, so the gateway keeps its own.
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      const cut = setTimeout(() => {
        for (const socket of open) socket.destroy();
      }, graceMs);
      cut.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
      }
    })());
}

/** Listening beyond loopback with no key would expose every workspace root to the network. */
async function refuseOpenBindWithoutKeys(config: QuarryConfig): Promise<void> {
  if (isLoopbackHost(config.host) || config.allowAnonymous) return;
  const prisma = createPrismaClient(config.databaseUrl, 1);
  try {
    if ((await new ApiKeyRepository(prisma).countActive()) === 0) {
      throw new ConfigError(
        `Refusing to listen on ${config.host} with no API keys: create one with \`quarry keys create NAME\`, or set QUARRY_ALLOW_ANONYMOUS=1.`,
      );
    }
  } finally {
    await prisma.$disconnect();
  }
}

if (require.main === module) {
  startGateway()
    .then(({ url }) => console.log(`quarry gateway listening on ${url}`))
    .catch((error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
