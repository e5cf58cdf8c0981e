import { DynamicModule, Module, Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConfigModule, QuarryConfig } from '@quarry/config';
import { FileCache } from '@quarry/workspace';
import { CodeIndexCache, CodeIndexScanStep } from '@quarry/code-index';
import { BlobCodeIndexRepository, DbModule, SearchIndexRepository } from '@quarry/db';
import { IndexedCommits, SegmentCache } from '@quarry/search-index';
import { QUARRY_CONFIG } from '@quarry/config';
import { HandlerRegistry } from './handler-registry';
import { ChildJobs } from './child-jobs';
import { PROCESSORS } from './processors/use-case.processors';
import { JobSnapshots } from './job-snapshots';
import { WorkerPorts } from './worker-ports';
import { ScanShards } from './scan-shards';
import { WorkerService } from './worker.service';
import { workerLoggerProvider } from './worker-logger';

/** One cache of workspace files per worker process (real path + size + mtime), shared by mentions and interpret. */
const workspaceFilesProvider = { provide: FileCache, useFactory: () => new FileCache() };
/** One code index per worker process (trees indexed once per state), shared by @symbol: mentions, symbols, map and pack. */
const codeIndexProvider = { provide: CodeIndexCache, useFactory: () => new CodeIndexCache() };
/** The code index as a scan step: each shard indexes its blobs into Postgres, the scan sums the rows. */
const codeIndexScanStepProvider = { provide: CodeIndexScanStep, inject: [BlobCodeIndexRepository], useFactory: (store: BlobCodeIndexRepository) => new CodeIndexScanStep(store) };

/** The commits a scan indexed, opened once per worker process (segments cached under QUARRY_DATA_DIR): @search, @grep and interpret's search use them. */
const indexedCommitsProvider = {
  provide: IndexedCommits,
  inject: [QUARRY_CONFIG, SearchIndexRepository],
  useFactory: (config: QuarryConfig, index: SearchIndexRepository) => new IndexedCommits(index, new SegmentCache(config.dataDir, index)),
};

export { PROCESSORS };

@Module({})
export class WorkerModule {
  /** `processors` replaces the default set (tests use it to inject failing or slow handlers). */
  static forRoot(config?: QuarryConfig, processors: Type[] = PROCESSORS): DynamicModule {
    return {
      module: WorkerModule,
      imports: [ConfigModule.forRoot(config), DbModule, DiscoveryModule],
      providers: [workerLoggerProvider, HandlerRegistry, WorkerService, JobSnapshots, ScanShards, ChildJobs, WorkerPorts, workspaceFilesProvider, codeIndexProvider, codeIndexScanStepProvider, indexedCommitsProvider, ...processors],
    };
  }
}
