import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitHttpServer, makeFixtureRepositories, type FixtureRepositories } from '../../libs/snapshot/src/testing/git-http-server';
import { TestStack } from '../support/stack';
import { openForm, screenshot, startJob, useBrowser } from './support';

/*
 * The one "Repository" field (a git URL or a path) and the optional Ref, in real headless Chromium,
 * against a gateway and a worker in this process fetching from a git smart-HTTP server on 127.0.0.1.
 */

const { openPage, pageErrors } = useBrowser();

describe('a repository by URL in the dashboard', () => {
  let stack: TestStack;
  let fixtures: FixtureRepositories;
  let server: GitHttpServer;
  let dataDir: string;

  beforeAll(async () => {
    fixtures = makeFixtureRepositories({ largeBytes: 10_000 });
    server = await GitHttpServer.start(fixtures.root);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-browser-git-'));
    const defaults = TestStack.defaults();
    stack = await TestStack.start({ workspaceRoots: [path.dirname(fixtures.checkout)], dataDir, fetch: { ...defaults.fetch, allow: ['127.0.0.1/32'] } });
  });
  afterAll(async () => {
    await stack.close();
    await server.close();
    fixtures.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  /** Scans demo.git at `ref` through the Scan form and waits for the job to succeed. */
  async function scanInBrowser(ref: string) {
    const page = await openPage(stack.url);
    await openForm(page, 'Scan');
    await page.getByLabel('Repository', { exact: true }).fill(server.url('demo.git'));
    await page.getByLabel('Ref (optional)').fill(ref);
    const id = await startJob(page, 'Scan');
    await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    return { page, id };
  }

  it('scans a URL at a ref and shows the short commit it pinned', async () => {
    const { page, id } = await scanInBrowser('dev');
    await page.locator('[data-result="scan"]').waitFor();
    await expect(page.locator('[data-commit]').getAttribute('data-commit')).resolves.toBe(fixtures.commits.dev);
    await expect(page.locator('[data-commit] code').innerText()).resolves.toBe(fixtures.commits.dev.slice(0, 12));
    await expect(page.locator('[data-result="scan"] code.commit').innerText()).resolves.toBe(fixtures.commits.dev.slice(0, 12));
    expect((await stack.jobs.find(id))?.input).toEqual({ source: { git: server.url('demo.git'), ref: 'dev' } });
    await expect(page.locator('.detail-summary').innerText()).resolves.toBe(`${server.url('demo.git')} @ dev`);
    await screenshot(page, 'scan-by-url');
  }, 60_000);

  it('says when a scan updated the scan of the commit before instead of going through the whole tree', async () => {
    // dev is main plus one file: once dev is scanned, main's scan takes back that file from dev's sums.
    const dev = await stack.submit('scan', { source: { git: server.url('demo.git'), ref: 'dev' } });
    await stack.waitForStatus(dev.body.id, ['succeeded'], 30_000);
    const { page, id } = await scanInBrowser('main');
    const updated = page.locator('[data-result="scan"] [data-updated-from]');
    await expect(updated.innerText()).resolves.toBe(`updated the scan of ${fixtures.commits.dev.slice(0, 12)}`);
    expect((await stack.jobs.find(id))?.result).toMatchObject({ updatedFrom: fixtures.commits.dev, blobs: { processed: 0 } });
    await screenshot(page, 'scan-updated-from');
  }, 60_000);

  it('shows ref_not_found with the suggestion when the ref does not exist', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Detect');
    await page.getByLabel('Repository', { exact: true }).fill(server.url('demo.git'));
    await page.getByLabel('Ref (optional)').fill('master');
    const id = await startJob(page, 'Detect');
    const failure = page.locator(`.detail[data-job-id="${id}"][data-status="failed"] .detail-error`);
    await failure.waitFor({ timeout: 30_000 });
    await expect(failure.innerText()).resolves.toContain('ref_not_found');
    await expect(failure.innerText()).resolves.toContain('"main"');
  }, 60_000);

  it('refuses a ref beside a path in the browser, and file:// from the server', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Scan');
    await page.getByLabel('Repository', { exact: true }).fill(fixtures.checkout);
    await page.getByLabel('Ref (optional)').fill('main');
    await page.getByRole('button', { name: 'Start scan' }).click();
    await expect(page.locator('#scan-ref-error').innerText()).resolves.toContain('git URL');

    await page.getByLabel('Ref (optional)').fill('');
    await page.getByLabel('Repository', { exact: true }).fill('file:///etc');
    await page.getByRole('button', { name: 'Start scan' }).click();
    const error = page.locator('#scan-root-error .error-box');
    await error.waitFor();
    await expect(error.innerText()).resolves.toContain('url_blocked');
    expect(page.url()).not.toContain('#/jobs/');
  });
});
