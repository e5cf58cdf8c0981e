-- AlterTable
ALTER TABLE "jobs" ADD COLUMN "queue_prefix" TEXT NOT NULL DEFAULT 'quarry';

-- CreateIndex
CREATE INDEX "jobs_queue_prefix_status_updated_at_idx" ON "jobs"("queue_prefix", "status", "updated_at");
