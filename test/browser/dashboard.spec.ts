import { BUILT_KINDS } from '@quarry/contracts';
import type { Page } from 'playwright-core';
import { startGateway } from '../../apps/gateway/src/main';
import { TestStack, waitFor } from '../support/stack';
import { generatedTree, makeTree } from '../support/trees';
import { EndlessScanProcessor } from '../support/test-processors';
import { FakeOrigin } from '../support/origin';
import { PHONE, UI_TIMEOUT, horizontalOverflow, screenshot, startJob, useBrowser } from './support';

/*
 * The dashboard end to end: real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core) against a gateway and a worker started in this process. The page is the one
 * `npm run build` leaves in dist/web/public (`npm test` and `npm run test:browser` build it first).
 */

const { openPage, newPage, pageErrors } = useBrowser();

/** Records every distinct text of the progress bars matching `selector`, sampled every 30 ms in the page. */
async function recordProgress(page: Page, selector: string): Promise<void> {
  await page.evaluate((sel) => {
    const seen: string[] = [];
    const w = globalThis as any; // this function runs in the page
    w.__progress = seen;
    setInterval(() => {
      const bar = w.document.querySelector(sel);
      const text = bar?.getAttribute('aria-valuetext');
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    }, 30);
  }, selector);
}
const progressSeen = (page: Page) => page.evaluate(() => (globalThis as any).__progress as string[]);

async function submitScan(page: Page, root: string): Promise<string> {
  await page.getByRole('tab', { name: 'Scan' }).click();
  await page.getByLabel('Repository', { exact: true }).fill(root);
  // The progress bar and the views are what these scans test: no code index of the generated files.
  await page.getByLabel('Lines and bytes only (no tokens or definitions)').check();
  return startJob(page, 'Scan');
}

describe('the dashboard', () => {
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  describe('scans of a generated tree', () => {
    const tree = generatedTree(20_000);
    let stack: TestStack;
    beforeAll(async () => {
      stack = await TestStack.start({ workspaceRoots: [tree.root], workerConcurrency: 1 });
    });
    afterAll(() => stack.close());

    it('is what a browser gets at /, while API clients still get the JSON map', async () => {
      const html = await fetch(stack.url + '/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(html.headers.get('content-type')).toContain('text/html');
      expect(await html.text()).toContain('<div id="app">');
      expect((await stack.request('GET', '/', undefined, { accept: 'application/json' })).body).toMatchObject({ kinds: { available: BUILT_KINDS } });
      expect((await stack.request('GET', '/assets/..%2Fpackage.json')).status).toBe(404);
      expect((await stack.request('GET', '/vendor/nope.mjs')).status).toBe(404);
    });

    it('submits a scan, moves the progress bar and renders the result', async () => {
      const page = await openPage(stack.url);
      // Only forms of the kinds the gateway lists as available.
      const titles = BUILT_KINDS.map((kind) => kind[0].toUpperCase() + kind.slice(1));
      expect(await page.getByRole('tab').allInnerTexts()).toEqual(titles);
      const id = await submitScan(page, tree.root);
      await recordProgress(page, '.detail [role="progressbar"]');

      await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 60_000 });
      const seen = await progressSeen(page);
      expect(seen.filter((text) => /^(listing|reading)/.test(text)).length).toBeGreaterThanOrEqual(2);

      const result = page.locator('[data-result="scan"]');
      await result.waitFor();
      await expect(result.locator('.stat').first().innerText()).resolves.toContain(tree.files.toLocaleString('en-US'));
      const languages = await result.locator('.lang-table tbody th').allInnerTexts();
      expect(languages.map((text) => text.trim()).sort()).toEqual(['Go', 'Markdown', 'Python', 'TypeScript']);
      expect(await result.locator('#dirs-h + table tbody tr').count()).toBe(20);
      expect(await result.locator('#largest-h + table tbody tr').count()).toBeGreaterThan(0);
      // The stack of the tree, from the detection the scan runs beside its walk.
      await expect(result.locator('#stack-h').innerText()).resolves.toMatch(/^Stack · \d+ services?$/);
      expect(await result.locator('[data-stack] .service-card').count()).toBeGreaterThan(0);
      // The history is the snapshot's, then live: it starts queued and ends completed.
      const events = await page.locator('.events .event-type').allInnerTexts();
      expect(events[0]).toBe('completed');
      expect(events[events.length - 1]).toBe('queued');
      await screenshot(page, 'scan-result');

      // The list shows it as finished, with its elapsed time and attempts.
      await page.getByRole('link', { name: '← All jobs' }).click();
      const row = page.locator(`.job-row[data-job-id="${id}"]`);
      await row.locator('.badge[data-status="succeeded"]').waitFor();
      await expect(row.locator('.row-meta').innerText()).resolves.toMatch(/attempts? 1/);
      await screenshot(page, 'jobs-list', false);

      // Filters: the list asks the server again and shows only matching rows.
      await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
      await page.getByLabel('Kind', { exact: true }).selectOption('scan');
      await waitFor(async () => {
        const rows = await page.locator('.job-row').evaluateAll((els) => els.map((el) => String((el as any).dataset.status)));
        return rows.length > 0 && rows.every((status) => status === 'succeeded');
      }, UI_TIMEOUT, 'a filtered list');
      expect(await page.locator(`.job-row[data-job-id="${id}"]`).count()).toBe(1);
      expect(await page.locator('.job-row .badge.kind', { hasText: 'fetch' }).count()).toBe(0);

      const phone = await openPage(`${stack.url}/#/jobs/${id}`, PHONE, 'dark');
      await phone.locator('[data-result="scan"]').waitFor();
      expect(await horizontalOverflow(phone)).toBeLessThanOrEqual(0);
      await screenshot(phone, 'scan-result-phone-dark');
      await screenshot(phone, 'scan-result-phone-dark-top', false);
    }, 90_000);

    it('shows a bad input next to its field: first in the browser, then from the server', async () => {
      const page = await openPage(stack.url);
      const field = page.getByLabel('Repository', { exact: true });
      await field.fill('relative/path');
      await page.getByRole('button', { name: 'Start scan' }).click();
      await expect(page.locator('#scan-root-error').innerText()).resolves.toContain('absolute path');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.getAttribute('aria-describedby')).toContain('scan-root-error');
      // The invalid field has the focus, and the kind tabs work with the arrow keys.
      expect(await field.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
      await page.getByRole('tab', { name: 'Scan' }).focus();
      await page.keyboard.press('ArrowRight');
      await page.getByRole('tab', { name: 'Detect', selected: true }).waitFor();
      await page.keyboard.press('ArrowLeft');
      await page.getByRole('tab', { name: 'Scan', selected: true }).waitFor();

      await field.fill('/etc');
      await page.getByRole('button', { name: 'Start scan' }).click();
      const error = page.locator('#scan-root-error .error-box');
      await error.waitFor();
      await expect(error.innerText()).resolves.toContain('path_outside_root');
      expect(await error.locator('.suggestion').count()).toBe(1);
      expect(page.url()).not.toContain('#/jobs/');
      await screenshot(page, 'form-error', false);
    });
  });

  describe('a running job watched from two pages', () => {
    let stack: TestStack;
    let root: string;
    const pages: Page[] = [];
    beforeAll(async () => {
      root = makeTree({ 'a.ts': 'export {};\n' });
      stack = await TestStack.start({ workspaceRoots: [root] }, { processors: [EndlessScanProcessor] });
    });
    // The pages go first: their sockets and polls to the restarted gateway held its close (and
    // the hook's 60 s) on a loaded CI machine.
    afterAll(async () => {
      for (const page of pages) await page.context().close().catch(() => undefined);
      await stack.close();
    }, 90_000);

    it('shows the same live progress on a second page, cancels, and resynchronises after a gateway restart', async () => {
      const watcher = await openPage(stack.url);
      const page = await openPage(stack.url);
      pages.push(watcher, page);
      const id = await submitScan(page, root);

      // The second page learns of the job without reloading (poll), then follows it live (socket).
      const row = watcher.locator(`.job-row[data-job-id="${id}"]`);
      await row.locator('.badge[data-status="running"]').waitFor();
      await recordProgress(watcher, `.job-row[data-job-id="${id}"] [role="progressbar"]`);
      const done = async () =>
        (await progressSeen(watcher)).map((text) => Number(/reading · ([\d,]+)/.exec(text)?.[1].replace(/,/g, '') ?? NaN)).filter(Number.isFinite);
      await waitFor(async () => (await done()).length >= 4, UI_TIMEOUT, 'live progress on the second page');
      const values = await done();
      for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]);
      await screenshot(watcher, 'jobs-list-running', false);

      // A gateway restart: both pages reconnect, resubscribe, and keep following the job.
      const port = Number(new URL(stack.url).port);
      await stack.gateway.close();
      await watcher.locator('.conn[data-connection="reconnecting"]').waitFor();
      stack.gateway = await startGateway({ ...stack.config, port }, { shutdownHooks: false });
      await watcher.locator('.conn[data-connection="live"]').waitFor();
      const before = (await done()).length;
      await waitFor(async () => (await done()).length >= before + 3, UI_TIMEOUT, 'progress after the restart');

      await page.getByRole('button', { name: `Cancel scan job ${id.slice(0, 8)}` }).click();
      await page.locator(`.detail[data-job-id="${id}"][data-status="cancelled"]`).waitFor();
      await row.locator('.badge[data-status="cancelled"]').waitFor();
      await row.getByRole('button', { name: /^Retry/ }).waitFor();
      expect((await stack.jobs.find(id))?.status).toBe('cancelled');
      const history = await page.locator('.events .event-type').allInnerTexts();
      expect(history[0]).toBe('cancelled');
      expect(history).toContain('progress');
      await screenshot(page, 'cancelled-job');
    }, 60_000);
  });

  describe('fetch jobs', () => {
    let origin: FakeOrigin;
    let stack: TestStack;
    const article =
      '<html><head><title>Getting started with Quarry</title></head><body><nav>menu</nav><h1>Install</h1>' +
      '<p>Run <b>npm ci</b>, then <code>npm start</code>.</p><h2>Scan a repository</h2><ul><li>Open the dashboard</li><li>Enter a path</li></ul></body></html>';
    beforeAll(async () => {
      origin = await FakeOrigin.start({
        '/guide/': (_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article),
        '/guide': (_request, response) => response.writeHead(301, { location: '/guide/' }).end(),
      });
      stack = await TestStack.start({ fetch: { ...TestStack.defaults().fetch, allow: ['127.0.0.1/32'] } });
    });
    afterAll(async () => {
      await stack.close();
      await origin.close();
    });

    it('renders title, final URL, redirects, text and whether it came from the cache', async () => {
      const page = await openPage(stack.url);
      await page.getByRole('tab', { name: 'Fetch' }).click();
      const field = page.getByLabel('URL', { exact: true });
      await field.fill('ftp://example.org/file');
      await page.getByRole('button', { name: 'Start fetch' }).click();
      await expect(page.locator('#fetch-url-error').innerText()).resolves.toContain('Only http and https');
      await field.fill('http://localhost:8080/x');
      await page.getByRole('button', { name: 'Start fetch' }).click();
      await expect(page.locator('#fetch-url-error .error-box').innerText()).resolves.toContain('url_blocked');

      const url = origin.url('/guide') + `?run=${Date.now()}`;
      await field.fill(url);
      await page.getByRole('button', { name: 'Start fetch' }).click();
      const result = page.locator('[data-result="fetch"]');
      await result.waitFor({ timeout: 30_000 });
      await expect(result.locator('.fetch-title').innerText()).resolves.toBe('Getting started with Quarry');
      await expect(result.locator('[data-cache]').getAttribute('data-cache')).resolves.toBe('fresh');
      await expect(result.locator('.redirects li').allInnerTexts()).resolves.toEqual([origin.url('/guide/')]);
      await expect(result.locator('.text-preview').innerText()).resolves.toContain('npm ci');
      await screenshot(page, 'fetch-result');

      // The same URL again: served from the shared cache.
      await page.getByRole('link', { name: '← All jobs' }).click();
      await page.getByRole('tab', { name: 'Fetch' }).click();
      await page.getByLabel('URL', { exact: true }).fill(url);
      await page.getByRole('button', { name: 'Start fetch' }).click();
      await page.locator('[data-result="fetch"] [data-cache="cached"]').waitFor({ timeout: 30_000 });
      await screenshot(page, 'fetch-result-cached');
    }, 60_000);
  });

  describe('with API keys', () => {
    let stack: TestStack;
    let root: string;
    const created: string[] = [];
    beforeAll(async () => {
      root = makeTree({ 'main.go': 'package main\n', 'README.md': '# hi\n' });
      stack = await TestStack.start({ workspaceRoots: [root] });
    });
    afterAll(async () => {
      // Keys switch auth on for every test sharing this database: remove them, and their jobs.
      await stack.prisma.job.deleteMany({ where: { ownerId: { in: created } } });
      await stack.prisma.apiKey.deleteMany({ where: { id: { in: created } } });
      await stack.close();
    });

    it('says a key is needed, refuses a wrong one visibly, and works with the right one', async () => {
      const { key, secret } = await stack.keys.create(`browser-${Date.now()}`);
      created.push(key.id);
      await new Promise((resolve) => setTimeout(resolve, 2_100)); // the gateway caches "are keys configured?" for 2 s

      const page = await newPage();
      await page.goto(stack.url);
      const banner = page.locator('.banner.auth');
      await banner.locator('h2', { hasText: 'requires an API key' }).waitFor();
      await page.locator('.conn[data-connection="refused"]').waitFor();

      await banner.getByLabel('API key').fill('qk_wrong');
      await banner.getByRole('button', { name: 'Use key' }).click();
      await banner.locator('h2', { hasText: 'The API key was refused' }).waitFor();
      await expect(banner.innerText()).resolves.toContain('unknown or revoked');
      await screenshot(page, 'key-refused');

      await banner.getByLabel('API key').fill(secret);
      await banner.getByRole('button', { name: 'Use key' }).click();
      await page.locator('.conn[data-connection="live"]').waitFor();
      await banner.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('quarry.apiKey'))).toBe(secret);

      const id = await submitScan(page, root);
      await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
      expect((await stack.prisma.job.findUnique({ where: { id } }))?.ownerId).toBe(key.id);

      // A reload keeps the key.
      await page.reload();
      await page.locator('[data-result="scan"]').waitFor();
      expect(await page.locator('.banner.auth').count()).toBe(0);
    }, 60_000);
  });
});
