import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { QUARRY_CONFIG, QuarryConfig } from '@quarry/config';
import { RepositorySessions } from '@quarry/jobs';
import { snapshotProviderFor } from '@quarry/snapshot';

/**
 * This worker's snapshots of repositories: its own git cache under QUARRY_DATA_DIR, directories
 * inside QUARRY_WORKSPACE_ROOTS. Jobs open them through `sessions`; shards through `provider`.
 */
@Injectable()
export class JobSnapshots implements OnApplicationShutdown {
  readonly sessions: RepositorySessions;

  constructor(@Inject(QUARRY_CONFIG) config: QuarryConfig) {
    this.sessions = new RepositorySessions(snapshotProviderFor(config));
  }

  get provider() {
    return this.sessions.provider;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sessions.close();
  }
}
