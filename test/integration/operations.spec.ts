import { BUILT_KINDS } from '@quarry/contracts';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';

describe('operations endpoints', () => {
  let stack: TestStack;
  let root: string;
  beforeAll(async () => {
    root = makeTree({ 'main.c': 'int main(){}\n' });
    stack = await TestStack.start({ workspaceRoots: [root] });
  });
  afterAll(() => stack.close());

  it('answers liveness and readiness', async () => {
    expect(await stack.request('GET', '/health')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await stack.request('GET', '/ready')).toEqual({ status: 200, body: { status: 'ready', redis: 'up', postgres: 'up' } });
  });

  it('exports Prometheus metrics: jobs by kind/status, queue depths, durations', async () => {
    const { body } = await stack.submit('scan', { root });
    await stack.waitForStatus(body.id, ['succeeded']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const metrics = await stack.request('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/quarry_jobs\{kind="scan",status="succeeded"\} \d+/);
    expect(metrics.body).toMatch(/quarry_queue_jobs\{queue="scan",state="waiting"\} 0/);
    expect(metrics.body).toMatch(/quarry_jobs_submitted_total\{kind="scan"\} 1/);
    expect(metrics.body).toMatch(/quarry_job_duration_seconds_count\{kind="scan"\} 1/);
  });

  it('serves OpenAPI docs generated from the contracts', async () => {
    const page = await stack.request('GET', '/docs');
    expect(page.status).toBe(200);
    const spec = await stack.request('GET', '/docs-json');
    expect(spec.status).toBe(200);
    expect(spec.body.paths['/v1/jobs'].post).toBeDefined();
    expect(spec.body.components.schemas.scanInput.properties.root).toBeDefined();
    expect(spec.body.components.schemas.mentionsInput.properties.prompt).toBeDefined();
    expect(spec.body.components.schemas.interpretInput.properties.context).toBeDefined();
    expect(spec.body.paths['/v1/mentions/parse'].post.requestBody.content['application/json'].schema.properties.text).toBeDefined();
  });

  it('serves the queue dashboard and a map of the service', async () => {
    expect((await stack.request('GET', '/queues')).status).toBe(200);
    const index = await stack.request('GET', '/');
    expect(index.body).toMatchObject({ name: 'quarry', kinds: { available: BUILT_KINDS } });
  });
});
