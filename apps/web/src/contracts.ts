// Every shape the dashboard exchanges with the gateway, from libs/contracts. Type-only: erased by
// tsc, so the browser loads none of it, yet a change to a contract breaks this build.
export type { JobView, JobEventView, JobPage } from '../../../libs/contracts/src/job';
export type { JobKind } from '../../../libs/contracts/src/job-kinds';
export type { JobStatus } from '../../../libs/contracts/src/job-status';
export type { JobProgress } from '../../../libs/contracts/src/progress';
export type { QuarryErrorBody } from '../../../libs/contracts/src/errors';
export type { ScanInput, ScanResult } from '../../../libs/contracts/src/scan';
export type { ServerToClientEvents, ClientToServerEvents, SubscribeAck } from '../../../libs/contracts/src/events';
import type { z } from 'zod';
import type {
  detectInputSchema,
  detectResultSchema,
  fetchInputSchema,
  fetchResultSchema,
  interpretInputSchema,
  interpretResultSchema,
  mentionsInputSchema,
  mentionsResultSchema,
  universalBuildSchema,
} from '../../../libs/contracts/src/kinds-planned';
export type FetchInput = z.input<typeof fetchInputSchema>;
export type FetchResult = z.infer<typeof fetchResultSchema>;
export type DetectInput = z.input<typeof detectInputSchema>;
export type DetectResult = z.infer<typeof detectResultSchema>;
export type UniversalBuild = z.infer<typeof universalBuildSchema>;
export type MentionsInput = z.input<typeof mentionsInputSchema>;
export type MentionsResult = z.infer<typeof mentionsResultSchema>;
export type InterpretInput = z.input<typeof interpretInputSchema>;
export type InterpretResult = z.infer<typeof interpretResultSchema>;

/** What `GET /` answers with `Accept: application/json`. */
export interface ServiceMap {
  name: string;
  kinds: { available: import('../../../libs/contracts/src/job-kinds').JobKind[]; all: import('../../../libs/contracts/src/job-kinds').JobKind[] };
}
import type { mapInputSchema, mapResultSchema, packInputSchema, packResultSchema, symbolsInputSchema, symbolsResultSchema } from '../../../libs/contracts/src/code-index';
export type SymbolsInput = z.input<typeof symbolsInputSchema>;
export type SymbolsResult = z.infer<typeof symbolsResultSchema>;
export type MapInput = z.input<typeof mapInputSchema>;
export type MapResult = z.infer<typeof mapResultSchema>;
export type PackInput = z.input<typeof packInputSchema>;
export type PackResult = z.infer<typeof packResultSchema>;
import type { contextInputSchema, contextResultSchema } from '../../../libs/contracts/src/context';
export type ContextInput = z.input<typeof contextInputSchema>;
export type ContextResult = z.infer<typeof contextResultSchema>;
import type { navigationResultSchemas } from '../../../libs/contracts/src/navigation';
export type { NavigationInput, NavigationSymbol, Reference } from '../../../libs/contracts/src/navigation';
export type ReferencesAnswer = z.infer<(typeof navigationResultSchemas)['references']>;
export type CallGraphAnswer = z.infer<(typeof navigationResultSchemas)['callers']>;
