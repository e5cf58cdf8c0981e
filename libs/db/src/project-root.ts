import fs from 'node:fs';
import path from 'node:path';

/** The checkout Quarry runs from (the folder holding prisma/schema.prisma), from source or dist. */
export function projectRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'prisma', 'schema.prisma'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find prisma/schema.prisma above ${from}`);
    dir = parent;
  }
}
