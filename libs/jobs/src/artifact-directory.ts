import path from 'node:path';
import { packArtifactName, pruneArtifacts } from '@quarry/code-index';
import type { ArtifactPort } from './ports';

/**
 * Pack documents in a directory, named by job id (`<id>.xml|md|txt`), those older than `ttlMs`
 * removed as a pack starts: the worker's QUARRY_ARTIFACT_DIR (which the gateway serves), and
 * `quarry mcp`'s.
 */
export function artifactDirectory(dir: string, ttlMs: number): ArtifactPort {
  return {
    fileFor: (run, style) => path.join(dir, packArtifactName(run.id, style)),
    prune: async () => void (await pruneArtifacts(dir, ttlMs)),
  };
}
