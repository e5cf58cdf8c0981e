import { execFile } from 'node:child_process';
import path from 'node:path';
import { assertBuilt, repoRoot } from '../support/processes';

/*
 * The guarded git proxy on its own thread (ThreadedGitProxy), as the compiled worker runs it: a
 * worker thread cannot be started from jest's module sandbox, and the unit tests inject a dialer,
 * which keeps the proxy in the calling thread. So a small script drives the compiled build, once
 * with the threaded proxy and once with the in-thread one (a dialer injected), and reports back.
 */

jest.setTimeout(120_000);

const SCRIPT = String.raw`
const dist = process.argv[1];
const { SnapshotProvider } = require(dist + '/libs/snapshot/src');
const { createNetDialer } = require(dist + '/libs/fetch/src/policy');
const { makeFixtureRepositories } = require(dist + '/libs/snapshot/src/testing/git-http-server');
const { scanRepository } = require(dist + '/libs/workspace/src');
const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');

/** Blocks this thread for ms, then says how long the look-up started before it took to settle after. */
async function settledAfterBlocking(work, ms) {
  let settledAt;
  const pending = work().then(() => (settledAt = performance.now()));
  await new Promise((resolve) => setTimeout(resolve, 5)); // git has started
  const until = performance.now() + ms;
  while (performance.now() < until) {}
  const unblocked = performance.now();
  await pending;
  return settledAt - unblocked;
}

(async () => {
  // The git server runs in a process of its own: blocking this thread must not block it.
  const fixtures = makeFixtureRepositories();
  const serving = require('node:child_process').spawn(process.execPath, ['-e', "require(process.argv[1] + '/libs/snapshot/src/testing/git-http-server').GitHttpServer.start(process.argv[2]).then((s) => console.log(s.url('demo.git')))", dist, fixtures.root], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve) => serving.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-proxy-thread-'));
  const answer = {};
  try {
    const threaded = new SnapshotProvider({ workspaceRoots: [], git: { dataDir: path.join(data, 'a'), allow: ['127.0.0.1/32'] } });
    const snapshot = await threaded.open({ git: url });
    answer.lines = (await scanRepository(snapshot)).lines;
    answer.proxy = (await threaded.git.proxy).constructor.name;
    answer.threadedAfterBlock = await settledAfterBlocking(() => threaded.resolve({ git: url, ref: 'dev' }), 1500);

    const inThread = new SnapshotProvider({ workspaceRoots: [], git: { dataDir: path.join(data, 'b'), allow: ['127.0.0.1/32'], dialer: createNetDialer() } });
    await inThread.resolve({ git: url });
    answer.inThreadProxy = (await inThread.git.proxy).constructor.name;
    answer.inThreadAfterBlock = await settledAfterBlocking(() => inThread.resolve({ git: url, ref: 'dev' }), 1500);

    // The proxy's own refusal crosses the thread typed: the byte budget.
    const tiny = new SnapshotProvider({ workspaceRoots: [], git: { dataDir: path.join(data, 'c'), allow: ['127.0.0.1/32'], maxBytes: 512 } });
    answer.tooLarge = await tiny.open({ git: url }).then(() => 'opened', (error) => ({ name: error.name, kind: error.kind }));
    await Promise.all([threaded.close(), inThread.close(), tiny.close()]);
  } finally {
    serving.kill();
    fixtures.remove();
    fs.rmSync(data, { recursive: true, force: true });
  }
  console.log(JSON.stringify(answer));
})().catch((error) => { console.error(error); process.exit(1); });
`;

describe('the git proxy on its own thread', () => {
  it("carries git's traffic while the calling thread is blocked, and its refusals come back typed", async () => {
    assertBuilt();
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', SCRIPT, path.join(repoRoot(), 'dist')], { maxBuffer: 16 << 20 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out))),
    );
    const answer = JSON.parse(stdout);
    expect(answer.proxy).toBe('ThreadedGitProxy');
    expect(answer.inThreadProxy).toBe('GuardedGitProxy');
    expect(answer.lines).toBeGreaterThan(0);
    // In the calling thread, git waited out the block and then did all its work; on the proxy's own
    // thread it was done by then, and only the reply was left.
    expect(answer.threadedAfterBlock).toBeLessThan(answer.inThreadAfterBlock / 2);
    expect(answer.tooLarge).toEqual({ name: 'QuarryError', kind: 'repo_too_large' });
  });
});
