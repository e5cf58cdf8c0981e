import fs from 'node:fs';
import path from 'node:path';
import type { Response } from 'express';

/** The checkout Quarry runs from (the folder holding package.json and prisma/), from source or dist. */
function projectRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'prisma', 'schema.prisma')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
};

/** One path segment: letters, digits, dots and dashes, a known extension. No traversal possible. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}\.(html|css|js|mjs)$/;

/**
 * The dashboard as `npm run build` leaves it in dist/web/public (apps/web/build.js): index.html,
 * styles.css, assets/*.js (compiled by tsc) and vendor/*.mjs (preact, htm, socket.io client).
 */
export class WebAssets {
  readonly dir: string;

  constructor(dir?: string) {
    this.dir = dir ?? path.join(projectRoot(), 'dist', 'web', 'public');
  }

  get built(): boolean {
    return fs.existsSync(path.join(this.dir, 'index.html'));
  }

  /** Sends `folder/name` if it is a built file; false when it is not (the caller answers 404). */
  send(response: Response, folder: '' | 'assets' | 'vendor', name: string): boolean {
    if (!SAFE_NAME.test(name) || name.includes('..')) return false;
    const relative = folder ? path.join(folder, name) : name;
    const file = path.join(this.dir, relative);
    if (!file.startsWith(this.dir + path.sep) || !fs.existsSync(file)) return false;
    response.setHeader('content-type', TYPES[path.extname(name)]);
    response.setHeader('x-content-type-options', 'nosniff');
    // Revalidate every time (ETag): a rebuilt dashboard shows up on the next reload.
    response.setHeader('cache-control', 'no-cache');
    response.sendFile(relative, { root: this.dir, dotfiles: 'deny', lastModified: true, etag: true });
    return true;
  }

  sendIndex(response: Response): void {
    if (!this.send(response, '', 'index.html')) {
      response
        .status(503)
        .type('text/plain')
        .send('The Quarry dashboard is not built: run `npm run build` (it compiles apps/web into dist/web). The API map is at GET / with Accept: application/json.');
    }
  }
}
