import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';
import { PHONE, horizontalOverflow, openForm, screenshot, startJob, useBrowser } from './support';

/*
 * The symbol page in headless Chromium against a real gateway and worker: reached from a symbols
 * job's result, it shows the definition, the references grouped by file, the callers and the
 * callees (POST /v1/navigation); its links walk the call graph; a misspelt name shows the typed
 * error with the closest names.
 */

const { openPage, pageErrors } = useBrowser();

describe('the symbol page', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({
      'src/server.ts': 'import { listen } from "./net";\nexport class Server {\n  start(port: number): void {\n    listen(port);\n  }\n}\n',
      'src/net.ts': 'export function listen(port: number): number {\n  return port;\n}\n',
      'src/main.ts': 'import { Server } from "./server";\nexport function main() {\n  new Server().start(8080);\n}\n',
      'test/server.test.ts': 'import { Server } from "../src/server";\ntest("starts", () => new Server().start(1));\n',
    });
    stack = await TestStack.start({ workspaceRoots: [root] });
  });
  afterAll(() => stack.close());
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  it('is reached from a symbols result and shows the definition, references by file, callers and callees; its links walk the graph', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Symbols');
    await page.getByLabel('Repository', { exact: true }).fill(root);
    await page.getByLabel('Symbol', { exact: true }).fill('Server.start');
    const id = await startJob(page, 'Symbols');
    await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    await page.locator('[data-result="symbols"] tr[data-symbol="Server.start"] a').click();

    const view = page.locator('[data-symbol-page]');
    await expect(view.locator('[data-symbol-name]').innerText()).resolves.toBe('Server.start');
    await expect(view.locator('[data-definition-place]').innerText()).resolves.toBe('src/server.ts:3');
    const references = view.locator('[data-section="references"]');
    await expect(references.locator('h3').innerText()).resolves.toContain('2 uses in 2 files');
    await expect(references.locator('.ref-file h4 code').allInnerTexts()).resolves.toEqual(['src/main.ts', 'test/server.test.ts']);
    const use = references.locator('.ref-file[data-file="src/main.ts"] li[data-line="3"]');
    await expect(use.innerText()).resolves.toContain('new Server().start(8080);');
    await expect(use.locator('a').innerText()).resolves.toBe('main');
    await view.locator('[data-section="callers"] li[data-entry="main"]').waitFor();
    await view.locator('[data-section="callees"] li[data-entry="listen"]').waitFor();
    await screenshot(page, 'symbol-page');

    // A callee's own page: listen, called by Server.start.
    await view.locator('[data-section="callees"] li[data-entry="listen"] a').click();
    await page.waitForURL((url) => url.hash.includes('symbol=src%2Fnet.ts%3A1'));
    // The address changes before the page is drawn again: wait for the new page, not the old one's name.
    await page.locator('[data-symbol-page] [data-symbol-name]', { hasText: /^listen$/ }).waitFor();
    await expect(page.locator('[data-symbol-page] [data-symbol-name]').innerText()).resolves.toBe('listen');
    await page.locator('[data-symbol-page] [data-section="callers"] li[data-entry="Server.start"]').waitFor();
    await expect(page.locator('[data-symbol-page] [data-section="callees"]').innerText()).resolves.toContain('It calls nothing defined in the repository.');
  }, 90_000);

  it('looks a name up from its form; a misspelt one shows symbol_not_found with the closest names, an empty one is caught in the page', async () => {
    const page = await openPage(stack.url);
    await page.getByRole('link', { name: 'Code navigation' }).click();
    const form = page.locator('form.symbol-lookup');
    await form.getByLabel('Repository', { exact: true }).fill(root);
    await form.getByRole('button', { name: 'Look up' }).click();
    await expect(form.locator('.field-error').innerText()).resolves.toContain('Enter a name');

    await form.getByLabel('Symbol', { exact: true }).fill('Sever.start');
    await form.getByRole('button', { name: 'Look up' }).click();
    const error = page.locator('[data-symbol-page] [data-section="error"] .error-box');
    await expect(error.innerText()).resolves.toContain('symbol_not_found');
    await expect(error.locator('.suggestion').innerText()).resolves.toContain('Server.start');

    await page.locator('form.symbol-lookup').getByLabel('Symbol', { exact: true }).fill('listen');
    await page.locator('form.symbol-lookup').getByRole('button', { name: 'Look up' }).click();
    await expect(page.locator('[data-symbol-page] [data-definition-place]').innerText()).resolves.toBe('src/net.ts:1');
  }, 60_000);

  it('fits a phone screen', async () => {
    const phone = await openPage(`${stack.url}/#/symbol?repo=${encodeURIComponent(root)}&symbol=Server.start`, PHONE, 'dark');
    await phone.locator('[data-symbol-page] [data-section="callees"] li[data-entry="listen"]').waitFor();
    expect(await horizontalOverflow(phone)).toBeLessThanOrEqual(0);
    await screenshot(phone, 'symbol-page-phone');
  }, 60_000);
});
