/**
 * @quarry/jobs/in-process — what the CLI and `quarry mcp` load to run job kinds in their own
 * process: the use-case table and the in-memory ports. Nothing heavy loads until a kind runs.
 */
export { InProcessPorts } from './in-process-ports';
export { runUseCase, USE_CASES, type UseCase } from './use-cases';
/** Navigation reads, loaded on use (code-graph is large). */
export const navigationReads = () => import('./navigation');
export type { JobRun, SourcePins } from './job-run';
export type { JobPorts } from './ports';
