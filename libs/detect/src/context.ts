import * as path from 'node:path';
import type { RootFacts, ServiceContext, WorkspaceLayout } from './model';
import type { RepoScan } from './scan';

export function serviceContext(scan: RepoScan, dir: string, root: RootFacts, workspace?: WorkspaceLayout): ServiceContext {
  return {
    scan,
    dir,
    root,
    workspace,
    has: (name) => scan.has(dir, name),
    files: () => scan.files.get(dir) ?? [],
    read: (name) => scan.read(dir, name),
    json: (name) => scan.json(dir, name),
    toml: (name) => scan.toml(dir, name),
  };
}

/** The directory's own name, or the repository folder's for the root. */
export function directoryName(service: ServiceContext): string {
  return service.dir === '.' ? path.basename(service.scan.root) : path.posix.basename(service.dir);
}

export const NO_ROOT_FACTS: RootFacts = { files: [], cache: [], warnings: [] };
