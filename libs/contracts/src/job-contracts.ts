import { z } from 'zod';
import { JobKind } from './job-kinds';
import { scanInputSchema, scanResultSchema } from './scan';
import {
  detectInputSchema,
  detectResultSchema,
  fetchInputSchema,
  fetchResultSchema,
  interpretInputSchema,
  interpretResultSchema,
  mentionsInputSchema,
  mentionsResultSchema,
} from './kinds-planned';
import { mapInputSchema, mapResultSchema, packInputSchema, packResultSchema, symbolsInputSchema, symbolsResultSchema } from './code-index';
import { contextInputSchema, contextResultSchema } from './context';

/** The input and result schema of every kind: the one table gateway, worker and clients share. */
export const JOB_CONTRACTS = {
  scan: { input: scanInputSchema, result: scanResultSchema },
  detect: { input: detectInputSchema, result: detectResultSchema },
  mentions: { input: mentionsInputSchema, result: mentionsResultSchema },
  fetch: { input: fetchInputSchema, result: fetchResultSchema },
  interpret: { input: interpretInputSchema, result: interpretResultSchema },
  symbols: { input: symbolsInputSchema, result: symbolsResultSchema },
  map: { input: mapInputSchema, result: mapResultSchema },
  pack: { input: packInputSchema, result: packResultSchema },
  context: { input: contextInputSchema, result: contextResultSchema },
} as const satisfies Record<JobKind, { input: z.ZodType; result: z.ZodType }>;

export type JobInput<K extends JobKind> = z.infer<(typeof JOB_CONTRACTS)[K]['input']>;
export type JobResult<K extends JobKind> = z.infer<(typeof JOB_CONTRACTS)[K]['result']>;
