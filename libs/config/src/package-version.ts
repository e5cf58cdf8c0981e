import fs from 'node:fs';
import path from 'node:path';

/** Quarry's version, from the package.json above this file (source or dist/ alike). */
export function packageVersion(from: string = __dirname): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}
