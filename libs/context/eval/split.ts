import { createHash } from 'node:crypto';

/** What the split needs of an instance. */
export interface SplitItem {
  instance_id: string;
  repo: string;
}

export type SplitPart = 'dev' | 'held-out';

/** A third of each repository's instances (rounded) is held out; the rest is the development part. */
const HELD_OUT_SHARE = 1 / 3;

/**
 * The development / held-out split of the SWE-bench instances, fixed before any tuning: within
 * each repository (so every repository is in both parts), instances ordered by a hash of their id,
 * the first third held out. Adding instances moves none of the old ones between parts of other
 * repositories, and no choice here looks at an instance's text.
 */
export function splitInstances<T extends SplitItem>(instances: readonly T[]): { dev: T[]; heldOut: T[] } {
  const byRepo = new Map<string, T[]>();
  for (const instance of instances) {
    const list = byRepo.get(instance.repo) ?? [];
    list.push(instance);
    byRepo.set(instance.repo, list);
  }
  const heldOutIds = new Set<string>();
  for (const list of byRepo.values()) {
    const ordered = [...list].sort((a, b) => (hashOf(a.instance_id) < hashOf(b.instance_id) ? -1 : 1));
    for (const instance of ordered.slice(0, Math.round(ordered.length * HELD_OUT_SHARE))) heldOutIds.add(instance.instance_id);
  }
  return {
    dev: instances.filter((instance) => !heldOutIds.has(instance.instance_id)),
    heldOut: instances.filter((instance) => heldOutIds.has(instance.instance_id)),
  };
}

function hashOf(id: string): string {
  return createHash('sha1').update(`quarry-context-split\0${id}`).digest('hex');
}
