import { z } from 'zod';
import { JOB_KINDS } from './job-kinds';
import { JOB_STATUSES } from './job-status';
import { jobProgressSchema } from './progress';
import { quarryErrorSchema } from './error-schema';
import type { QuarryErrorBody } from './errors';
import { resolvedSourceSchema } from './source';

/** POST /v1/jobs body. The input is validated against the kind's own schema afterwards. */
export const submitJobSchema = z.object({
  kind: z.string().min(1).max(64),
  input: z.unknown(),
});
export type SubmitJobRequest = z.infer<typeof submitJobSchema>;

/** POST /v1/jobs/batch body: several submissions; each item is checked on its own. */
export const submitBatchSchema = z.object({
  jobs: z.array(z.unknown()).min(1),
});

/** One item of a batch answer, in request order: the accepted job, or why that item was refused. */
export type BatchItem = { index: number; ok: true; job: JobView } | { index: number; ok: false; error: QuarryErrorBody };

/** POST /v1/jobs/batch answer: 202 when at least one job was accepted, 400 (with a typed error besides) when none was. */
export interface BatchAnswer {
  accepted: number;
  rejected: number;
  items: BatchItem[];
}

/** A job as the API, the socket and the CLI show it. */
export const jobViewSchema = z.object({
  id: z.string().uuid(),
  kind: z.enum(JOB_KINDS),
  status: z.enum(JOB_STATUSES),
  input: z.unknown(),
  result: z.unknown().nullable(),
  error: quarryErrorSchema.nullable(),
  progress: jobProgressSchema.nullable(),
  attempts: z.number().int(),
  parentId: z.string().uuid().nullable(),
  /** The repository commit the job pinned when it started (jobs that read a repository). */
  source: resolvedSourceSchema.nullable().optional(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type JobView = z.infer<typeof jobViewSchema>;

/** One entry of a job's history (JobEvent row). */
export const jobEventViewSchema = z.object({
  at: z.string(),
  type: z.string(),
  data: z.unknown(),
});
export type JobEventView = z.infer<typeof jobEventViewSchema>;

export const listJobsQuerySchema = z.object({
  kind: z.enum(JOB_KINDS).optional(),
  status: z.enum(JOB_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export type ListJobsQuery = z.infer<typeof listJobsQuerySchema>;

export interface JobPage {
  items: JobView[];
  /** Pass as `cursor` to get the next (older) page; null on the last page. */
  nextCursor: string | null;
}
