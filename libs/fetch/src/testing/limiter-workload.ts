import type { DomainLimiter } from '../domain-limiter';

export interface LimiterWorkload {
  domain: string;
  /** Tasks running at once in this process. */
  tasks: number;
  /** Acquisitions per task, one after the other. */
  perTask: number;
  /** How long each acquisition holds its slot. */
  holdMs: number;
}

/** [granted, released] wall-clock times (Date.now()) of every acquisition. */
export type Grant = [number, number];

/** Hammers one domain from `tasks` concurrent tasks; the same code runs in the test and in a child process. */
export async function runLimiterWorkload(limiter: DomainLimiter, workload: LimiterWorkload): Promise<Grant[]> {
  const grants: Grant[] = [];
  await Promise.all(
    Array.from({ length: workload.tasks }, async () => {
      for (let i = 0; i < workload.perTask; i++) {
        const release = await limiter.acquire(workload.domain);
        const granted = Date.now();
        if (workload.holdMs > 0) await new Promise((resolve) => setTimeout(resolve, workload.holdMs));
        const released = Date.now();
        release();
        grants.push([granted, released]);
      }
    }),
  );
  return grants;
}
