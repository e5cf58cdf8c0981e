-- AlterTable: the repository commit a job pinned when it started (issue 12)
ALTER TABLE "jobs" ADD COLUMN "resolved_source" JSONB;
