import { z } from 'zod';

/**
 * The error body's schema, apart from errors.ts so that code which only throws and recognises
 * QuarryErrors (a scan's shard threads, through `@quarry/contracts/errors`) does not load zod.
 */
export const quarryErrorSchema = z.object({
  kind: z.string(),
  message: z.string(),
  suggestion: z.string().optional(),
});
