import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Which objects a (partial) repository holds, answered from its pack indexes without running git.
 * Git itself cannot be asked: in a partial clone, `cat-file` on a missing blob fetches it on the
 * spot, one network round trip per object, or dies when the network is off. Knowing what is
 * missing lets Quarry fetch it in one batch, under the repository lock, through the guarded proxy.
 *
 * Every shard's fetch adds a pack, so a scanned kernel has dozens: the ids of all of them are kept
 * in one set (a look-up is one hash probe, not a binary search in every pack), added to as packs
 * arrive. Fetches keep packs (`fetch.unpackLimit=1`), so loose objects are rare: they are looked
 * for on disk only when the object directory has any.
 */
export class ObjectPresence {
  private readonly packs = new Set<string>();
  private ids = new Set<string>();
  private looseObjects = false;

  constructor(private readonly gitDir: string) {}

  /** Reads the indexes of packs added since the last call. */
  refresh(): void {
    const objects = path.join(this.gitDir, 'objects');
    let names: string[];
    try {
      names = readdirSync(path.join(objects, 'pack'));
    } catch {
      return;
    }
    const present = new Set(names.filter((name) => name.endsWith('.idx')));
    if ([...this.packs].some((name) => !present.has(name))) {
      // A pack went away (repacked): start over from the packs there now.
      this.packs.clear();
      this.ids = new Set();
    }
    for (const name of present) {
      if (this.packs.has(name)) continue;
      try {
        const index = readFileSync(path.join(objects, 'pack', name));
        if (index.readUInt32BE(0) !== 0xff744f63 || index.readUInt32BE(4) !== 2) continue;
        for (const id of packIds(index)) this.ids.add(id);
        this.packs.add(name);
      } catch {
        // a pack being written or removed right now: seen at the next refresh
      }
    }
    try {
      this.looseObjects = readdirSync(objects).some((name) => /^[0-9a-f]{2}$/.test(name));
    } catch {
      this.looseObjects = false;
    }
  }

  has(oid: string): boolean {
    if (this.ids.has(oid)) return true;
    return this.looseObjects && existsSync(path.join(this.gitDir, 'objects', oid.slice(0, 2), oid.slice(2)));
  }

  /**
   * The ids of `oids` that are not here. The packs are listed again only when one seems missing:
   * reading a commit file by file asks about each blob, and two directory listings per file were
   * most of a small read (objects only come and go with the fetches of this cache).
   */
  missing(oids: Iterable<string>): string[] {
    const unseen: string[] = [];
    for (const oid of oids) if (!this.has(oid)) unseen.push(oid);
    if (unseen.length === 0) return unseen;
    this.refresh();
    return unseen.filter((oid) => !this.has(oid));
  }
}

const FANOUT = 8;
const NAMES = FANOUT + 256 * 4;

/** The object ids of a version 2 pack index, as lowercase hex. */
function* packIds(index: Buffer): Generator<string> {
  const count = index.readUInt32BE(FANOUT + 255 * 4);
  for (let at = NAMES, end = NAMES + count * 20; at < end; at += 20) yield index.toString('hex', at, at + 20);
}
