import type { ScanStateStore } from '../scan-memory';

/** A store that keeps JSON text, as Postgres would: what comes back is a copy. */
export function jsonStore(): ScanStateStore & { saved: Map<string, string> } {
  const saved = new Map<string, string>();
  return {
    saved,
    load: async (repository, kind, commit) => {
      const text = saved.get(`${repository} ${kind} ${commit}`);
      return text === undefined ? undefined : JSON.parse(text);
    },
    save: async (repository, kind, commit, state) => void saved.set(`${repository} ${kind} ${commit}`, JSON.stringify(state)),
  };
}
