import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

describe('submitting a scan', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({
      'src/app.ts': 'const a = 1;\nconst b = 2;\n',
      'src/util.py': 'x = 1\n',
      'README.md': '# hi\n\nthere',
      'build/out.js': 'ignored()\n',
      '.gitignore': 'build/\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]),
    });
    stack = await TestStack.start({ workspaceRoots: [root] });
  });
  afterAll(() => stack.close());

  it('stores the job, runs it on a worker and writes the result to Postgres', async () => {
    const submitted = await stack.submit('scan', { root });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toMatchObject({ kind: 'scan', status: 'queued', input: { root } });

    const job = await stack.waitForStatus(submitted.body.id, ['succeeded', 'failed']);
    expect(job.status).toBe('succeeded');
    expect(job.attempts).toBe(1);
    expect(job.result).toMatchObject({
      root,
      files: 4, // app.ts, util.py, README.md, .gitignore; build/ ignored, logo.png binary
      lines: 2 + 1 + 3 + 1,
      skipped: { binary: 1 },
    });
    const history = (await stack.jobs.history(job.id)).map((event) => event.type);
    expect(history[0]).toBe('queued');
    expect(history).toContain('started');
    expect(history[history.length - 1]).toBe('completed');
  });
});
