-- What a worker remembers of a commit's scan for the next commit's (sums, not files), shared by
-- every worker: a re-scan updates the scan of the commit it was derived from, on any worker.
CREATE TABLE "scan_states" (
    "repository" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "commit" TEXT NOT NULL,
    "state" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT "scan_states_pkey" PRIMARY KEY ("repository", "kind", "commit")
);
