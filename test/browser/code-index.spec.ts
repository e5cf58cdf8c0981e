import fs from 'node:fs';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';
import { PHONE, horizontalOverflow, openForm, screenshot, startJob, useBrowser } from './support';

/*
 * The symbols, map and pack views in headless Chromium against a real gateway and worker: each
 * submitted through its form, its result read off the page, the pack's document downloaded from
 * the page; a bad budget caught in the browser and a bad style/glob refused by the server.
 */

const { openPage, pageErrors } = useBrowser();

describe('the symbols, map and pack views', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({
      'src/server.ts': 'export class Server {\n  start(port: number): number {\n    return port;\n  }\n}\n',
      'src/main.ts': 'import { Server } from "./server";\nnew Server().start(8080);\n',
      'src/secrets.ts': 'export const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";\n',
      'tools/gen.py': 'def generate(n):\n    return n\n',
    });
    stack = await TestStack.start({ workspaceRoots: [root], workerConcurrency: 2 });
  });
  afterAll(() => stack.close());
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  it('symbols: a name ranked with its place and uses', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Symbols');
    await page.getByLabel('Repository', { exact: true }).fill(root);
    await page.getByLabel('Symbol', { exact: true }).fill('Server.start');
    const id = await startJob(page, 'Symbols');
    await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    const row = page.locator('[data-result="symbols"] tr[data-symbol="Server.start"]');
    await expect(row.innerText()).resolves.toContain('src/server.ts:2');
    await expect(row.innerText()).resolves.toContain('method');
  }, 60_000);

  it('map: the ranked map within the budget, with tokens per language and directory', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Map');
    await page.getByLabel('Repository', { exact: true }).fill(root);
    await page.getByLabel('Token budget').fill('0');
    await page.getByRole('button', { name: 'Start map' }).click();
    await expect(page.locator('#map-tokens-error').innerText()).resolves.toContain('whole number from 1');
    await page.getByLabel('Token budget').fill('200');
    await page.getByLabel('Focus').fill('src/main.ts');
    const id = await startJob(page, 'Map');
    await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    const view = page.locator('[data-result="map"]');
    await expect(view.locator('.map-text').innerText()).resolves.toContain('class Server');
    expect(Number((await view.locator('[data-stat="tokens"]').innerText()).replaceAll(',', ''))).toBeLessThanOrEqual(200);
    await view.locator('tr[data-language="TypeScript"]').waitFor();
    await view.locator('tr[data-directory="src"]').waitFor();
    await screenshot(page, 'map-result');
  }, 60_000);

  it('scan: tokens per language and directory and the definitions found, from the rows the scan stored', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Scan');
    await page.getByLabel('Repository', { exact: true }).fill(root);
    const id = await startJob(page, 'Scan');
    await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    const view = page.locator('[data-result="scan"]');
    expect(Number((await view.locator('[data-stat="tokens"] .stat-value').innerText()).replaceAll(',', ''))).toBe(57);
    // class Server, method start, constant token, function generate.
    await expect(view.locator('[data-stat="definitions"] .stat-value').innerText()).resolves.toBe('4');
    await view.locator('[data-token-totals] tr[data-language="TypeScript"]').waitFor();
    await view.locator('[data-token-totals] tr[data-directory="tools"]').waitFor();
    await screenshot(page, 'scan-tokens');
  }, 60_000);

  it('pack: totals, redaction noted, the document downloaded; a bad style is refused by the server', async () => {
    const page = await openPage(stack.url, undefined, 'light', { acceptDownloads: true });
    await openForm(page, 'Pack');
    await page.getByLabel('Repository', { exact: true }).fill(root);
    await page.getByLabel('Include').fill('src/**, [oops');
    await page.getByRole('button', { name: 'Start pack' }).click();
    await expect(page.locator('#pack-include-error .error-box').innerText()).resolves.toContain('pattern_invalid');

    await page.getByLabel('Include').fill('src/**');
    await page.getByLabel('Style').selectOption('markdown');
    const id = await startJob(page, 'Pack');
    await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    const view = page.locator('[data-result="pack"]');
    await expect(view.locator('[data-stat="files"]').innerText()).resolves.toBe('3');
    await expect(view.locator('[data-pack-notes]').innerText()).resolves.toContain('1 secret redacted');
    const [download] = await Promise.all([page.waitForEvent('download'), view.locator('[data-action="download"]').click()]);
    expect(download.suggestedFilename()).toBe(`${id}.md`);
    const document = fs.readFileSync(await download.path(), 'utf8');
    expect(document).toContain('### src/server.ts');
    expect(document).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    await screenshot(page, 'pack-result');

    const phone = await openPage(`${stack.url}/#/jobs/${id}`, PHONE, 'dark');
    await phone.locator('[data-result="pack"]').waitFor();
    expect(await horizontalOverflow(phone)).toBeLessThanOrEqual(0);
  }, 60_000);
});
