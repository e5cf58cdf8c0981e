import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Which objects a (partial) repository holds, answered from its pack indexes without running git.
 * Git itself cannot be asked: in a partial clone, `cat-file` on a missing blob fetches it on the
 * spot, one network round trip per object, or dies when the network is off. Knowing what is
 * missing lets Quarry fetch it in one batch, under the repository lock, through the guarded proxy.
 * Fetches keep packs (`fetch.unpackLimit=1`), so loose objects are rare; they are checked too.
 */
export class ObjectPresence {
  private readonly packs = new Map<string, Buffer>();

  constructor(private readonly gitDir: string) {}

  /** Reads the indexes of packs added since the last call. */
  refresh(): void {
    const directory = path.join(this.gitDir, 'objects', 'pack');
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      return;
    }
    const present = new Set(names.filter((name) => name.endsWith('.idx')));
    for (const name of this.packs.keys()) if (!present.has(name)) this.packs.delete(name);
    for (const name of present) {
      if (this.packs.has(name)) continue;
      try {
        const index = readFileSync(path.join(directory, name));
        if (index.readUInt32BE(0) === 0xff744f63 && index.readUInt32BE(4) === 2) this.packs.set(name, index);
      } catch {
        // a pack being written or removed right now: seen at the next refresh
      }
    }
  }

  has(oid: string): boolean {
    const wanted = Buffer.from(oid, 'hex');
    for (const index of this.packs.values()) if (indexHas(index, wanted)) return true;
    return existsSync(path.join(this.gitDir, 'objects', oid.slice(0, 2), oid.slice(2)));
  }

  /** The ids of `oids` that are not here. */
  missing(oids: Iterable<string>): string[] {
    this.refresh();
    const missing: string[] = [];
    for (const oid of oids) if (!this.has(oid)) missing.push(oid);
    return missing;
  }
}

const FANOUT = 8;
const NAMES = FANOUT + 256 * 4;

function indexHas(index: Buffer, wanted: Buffer): boolean {
  const first = wanted[0];
  let low = first === 0 ? 0 : index.readUInt32BE(FANOUT + (first - 1) * 4);
  let high = index.readUInt32BE(FANOUT + first * 4);
  while (low < high) {
    const middle = (low + high) >>> 1;
    const at = NAMES + middle * 20;
    const order = index.compare(wanted, 0, 20, at, at + 20);
    if (order === 0) return true;
    if (order > 0) high = middle;
    else low = middle + 1;
  }
  return false;
}
