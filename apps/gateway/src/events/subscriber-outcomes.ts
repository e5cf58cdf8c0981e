/** A job's end as one socket was told it: in a snapshot, or by a terminal event. */
export interface GivenOutcome {
  status: 'succeeded' | 'failed' | 'cancelled';
  /** The row's finishedAt when known: tells a retried run's failure from the one already given. */
  finishedAt: string | null;
}

/**
 * Which sockets of this gateway have been given which job's outcome. A socket with an outcome
 * for a job has left the job's room, so a live event that arrives late (QueueEvents lags behind
 * Postgres) or twice (a cancel and the run it stopped both report) cannot reach it; only a later
 * run of the job — a retry, which a failed or cancelled job can have — is told to it again.
 */
export class SubscriberOutcomes {
  private readonly byJob = new Map<string, Map<string, GivenOutcome>>();
  private readonly bySocket = new Map<string, Set<string>>();

  given(jobId: string, socketId: string): GivenOutcome | undefined {
    return this.byJob.get(jobId)?.get(socketId);
  }

  record(jobId: string, socketId: string, outcome: GivenOutcome): void {
    let sockets = this.byJob.get(jobId);
    if (!sockets) this.byJob.set(jobId, (sockets = new Map()));
    sockets.set(socketId, outcome);
    let jobs = this.bySocket.get(socketId);
    if (!jobs) this.bySocket.set(socketId, (jobs = new Set()));
    jobs.add(jobId);
  }

  forget(jobId: string, socketId: string): void {
    const sockets = this.byJob.get(jobId);
    sockets?.delete(socketId);
    if (sockets?.size === 0) this.byJob.delete(jobId);
    const jobs = this.bySocket.get(socketId);
    jobs?.delete(jobId);
    if (jobs?.size === 0) this.bySocket.delete(socketId);
  }

  forgetSocket(socketId: string): void {
    for (const jobId of [...(this.bySocket.get(socketId) ?? [])]) this.forget(jobId, socketId);
  }

  /** Sockets given a failed or cancelled outcome of the job: a retry may still bring them another. */
  awaitingRetry(jobId: string): Array<[string, GivenOutcome]> {
    return [...(this.byJob.get(jobId) ?? [])].filter(([, outcome]) => outcome.status !== 'succeeded');
  }
}
