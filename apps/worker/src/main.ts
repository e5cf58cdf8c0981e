import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { INestApplicationContext, Type } from '@nestjs/common';
import { closeOnSignals, loadConfig, QuarryConfig } from '@quarry/config';
import { WorkerModule } from './worker.module';
import { PinoNestLogger } from '@quarry/config';

/** Starts a worker process: a Nest application context, no HTTP server. */
export async function startWorker(
  config: QuarryConfig = loadConfig(),
  options: { processors?: Type[]; shutdownHooks?: boolean } = {},
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config, options.processors), {
    logger: new PinoNestLogger('quarry-worker', config.logLevel === 'info' ? 'warn' : config.logLevel),
  });
  if (options.shutdownHooks !== false) closeOnSignals(app);
  await app.init();
  return app;
}

if (require.main === module) {
  startWorker().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
