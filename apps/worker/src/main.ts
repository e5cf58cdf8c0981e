import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { INestApplicationContext } from '@nestjs/common';
import { loadConfig, QuarryConfig } from '@quarry/config';
import { WorkerModule } from './worker.module';
import { PinoNestLogger } from '@quarry/config';

/** Starts a worker process: a Nest application context, no HTTP server. */
export async function startWorker(config: QuarryConfig = loadConfig()): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger: new PinoNestLogger('quarry-worker', config.logLevel),
  });
  app.enableShutdownHooks();
  return app;
}

if (require.main === module) {
  startWorker().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
