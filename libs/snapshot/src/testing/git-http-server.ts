import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface GitRequest {
  method: string;
  path: string;
  /** For protocol v2 POSTs: ls-refs or fetch. */
  command?: string;
}

/**
 * A real git smart-HTTP server on 127.0.0.1: `git http-backend` (CGI) behind a Node server, serving
 * the bare repositories under `root`. `/moved/<repo>` redirects to `/<repo>`; `/private/…` wants
 * basic auth `user:secret`. Every request is recorded (with the v2 command), so tests can count
 * ref look-ups and fetches.
 */
export class GitHttpServer {
  readonly requests: GitRequest[] = [];
  private server!: http.Server;

  private constructor(readonly root: string) {}

  static async start(root: string): Promise<GitHttpServer> {
    const git = new GitHttpServer(root);
    git.server = http.createServer((request, response) => git.handle(request, response));
    await new Promise<void>((resolve) => git.server.listen(0, '127.0.0.1', resolve));
    return git;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(repository: string): string {
    return `http://127.0.0.1:${this.port}/${repository}`;
  }

  /** Requests whose v2 command was `fetch` (clones, commit and blob fetches). */
  fetches(): GitRequest[] {
    return this.requests.filter((request) => request.command === 'fetch');
  }

  lookups(): GitRequest[] {
    return this.requests.filter((request) => request.command === 'ls-refs');
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://git');
    if (url.pathname.startsWith('/moved/')) {
      response.writeHead(301, { location: `${url.pathname.slice('/moved'.length)}${url.search}` }).end();
      return;
    }
    if (url.pathname.startsWith('/private/') && request.headers.authorization !== `Basic ${Buffer.from('user:secret').toString('base64')}`) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const command = /command=([a-z-]+)/.exec(body.subarray(0, 200).toString('latin1'))?.[1];
      this.requests.push({ method: request.method ?? 'GET', path: url.pathname, command });
      const child = spawn('git', ['http-backend'], {
        env: {
          PATH: process.env.PATH,
          GIT_PROJECT_ROOT: this.root,
          GIT_HTTP_EXPORT_ALL: '1',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          PATH_INFO: url.pathname,
          QUERY_STRING: url.search.slice(1),
          REQUEST_METHOD: request.method,
          CONTENT_TYPE: request.headers['content-type'] ?? '',
          CONTENT_LENGTH: String(body.length),
          GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
          HTTP_CONTENT_ENCODING: String(request.headers['content-encoding'] ?? ''),
          REMOTE_ADDR: '127.0.0.1',
          REMOTE_USER: 'user',
          // What a hosting service allows (partial clone, fetch by id), without touching the served repositories.
          GIT_CONFIG_COUNT: '2',
          GIT_CONFIG_KEY_0: 'uploadpack.allowFilter',
          GIT_CONFIG_VALUE_0: 'true',
          GIT_CONFIG_KEY_1: 'uploadpack.allowAnySHA1InWant',
          GIT_CONFIG_VALUE_1: 'true',
        },
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(body);
      let head = Buffer.alloc(0);
      let started = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (started) return void response.write(chunk);
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        let status = 200;
        for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
          const colon = line.indexOf(':');
          const name = line.slice(0, colon).trim();
          const value = line.slice(colon + 1).trim();
          if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
          else response.setHeader(name, value);
        }
        response.writeHead(status);
        started = true;
        response.write(head.subarray(end + 4));
      });
      child.stdout.on('end', () => response.end());
      child.on('error', () => response.destroy());
    });
  }
}

export interface FixtureRepositories {
  /** Holds the bare repositories the server serves (demo.git, private/demo.git, empty.git). */
  root: string;
  /** Commits of demo.git by name: first (tag v1.0), main (tip), dev (branch tip). */
  commits: { first: string; main: string; dev: string };
  /** A working checkout of demo.git's main, for comparing a URL scan with a path scan. */
  checkout: string;
  remove(): void;
}

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.com',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.com',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * demo.git: main with sources, nested ignore rules, a force-added ignored file, a binary, a
 * symlink and a large file (`largeBytes`); tags v1.0 (annotated) and light; a dev branch; master
 * does not exist (for the main/master suggestion). Also private/demo.git and an empty repository.
 */
export function makeFixtureRepositories(options: { largeBytes?: number } = {}): FixtureRepositories {
  const base = mkdtempSync(path.join(os.tmpdir(), 'quarry-git-fixture-'));
  const root = path.join(base, 'served');
  const work = path.join(base, 'work');
  mkdirSync(root);
  mkdirSync(work);
  git(work, 'init', '-q', '-b', 'main');
  const write = (relative: string, content: string | Buffer) => {
    mkdirSync(path.dirname(path.join(work, relative)), { recursive: true });
    writeFileSync(path.join(work, relative), content);
  };
  write('README.md', '# Demo\n\nA fixture.\n');
  write('package.json', '{\n  "name": "demo",\n  "scripts": { "start": "node src/util.js" }\n}\n');
  write('src/app.ts', 'export const answer = 42;\nexport function twice(x: number) {\n  return x * 2;\n}\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'first');
  const first = git(work, 'rev-parse', 'HEAD');
  git(work, 'tag', '-a', 'v1.0', '-m', 'version one');
  write('src/util.js', 'module.exports = () => 1;\n// no newline at the end');
  write('.gitignore', '*.log\nbuild/\n');
  write('debug.log', 'force-added\n');
  write('docs/.gitignore', 'draft.md\n');
  write('docs/guide.md', 'Guide\n');
  write('docs/draft.md', 'tracked although ignored\n');
  write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
  // Incompressible, so it weighs in the pack what it weighs on disk.
  write('big/data.txt', (randomBytes(Math.ceil(((options.largeBytes ?? 3_000_000) * 3) / 4)).toString('base64').match(/.{1,76}/g) ?? []).join('\n') + '\n');
  symlinkSync('README.md', path.join(work, 'link.md'));
  git(work, 'add', '-A');
  git(work, 'add', '-f', 'debug.log', 'docs/draft.md');
  git(work, 'commit', '-q', '-m', 'more');
  const main = git(work, 'rev-parse', 'HEAD');
  git(work, 'tag', 'light');
  git(work, 'checkout', '-q', '-b', 'dev');
  write('src/dev.ts', 'export const dev = true;\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'dev');
  const dev = git(work, 'rev-parse', 'HEAD');
  git(work, 'checkout', '-q', 'main');

  for (const target of ['demo.git', 'private/demo.git']) {
    git(base, 'clone', '-q', '--bare', work, path.join(root, target));
    git(path.join(root, target), 'config', 'uploadpack.allowFilter', 'true');
    git(path.join(root, target), 'config', 'uploadpack.allowAnySHA1InWant', 'true');
    git(path.join(root, target), 'config', 'http.receivepack', 'false');
  }
  git(base, 'init', '-q', '--bare', path.join(root, 'empty.git'));
  const checkout = path.join(base, 'checkout');
  git(base, 'clone', '-q', path.join(root, 'demo.git'), checkout);
  return { root, commits: { first, main, dev }, checkout, remove: () => rmSync(base, { recursive: true, force: true }) };
}
