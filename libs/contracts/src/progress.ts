import { z } from 'zod';

/** What a running job reports: a stage name, work done, total when known, a short message. */
export const jobProgressSchema = z.object({
  stage: z.string(),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative().optional(),
  message: z.string().optional(),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;
