import type { Page } from 'playwright-core';
import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';
import { PHONE, horizontalOverflow, openForm, screenshot, startJob, useBrowser } from './support';

/*
 * The detect, mentions and interpret views in real headless Chromium, against a gateway and a
 * worker in this process (real Redis and Postgres, no LLM configured): each kind submitted
 * through its form, followed to the end, and its result read off the page; a bad input caught in
 * the browser and one refused by the server, per kind.
 */

const { openPage, pageErrors } = useBrowser();

const nextApp = (name: string, port: number) =>
  JSON.stringify({ name, private: true, scripts: { dev: 'next dev', build: 'next build', start: `next start -p ${port}` }, dependencies: { next: '14.2.3', react: '18.3.1', 'react-dom': '18.3.1' } });

const monorepo = () =>
  makeTree({
    'package.json': JSON.stringify({ name: 'shop', private: true, packageManager: 'pnpm@9.1.0', engines: { node: '>=20' } }),
    'pnpm-workspace.yaml': "packages:\n  - 'apps/*'\n",
    'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    'apps/storefront/package.json': nextApp('storefront', 3000),
    'apps/storefront/app/page.tsx': 'export default function Page() { return null; }\n',
    'apps/admin/package.json': nextApp('admin', 3001),
    'apps/admin/app/page.tsx': 'export default function Page() { return null; }\n',
  });

/** Eight Go services side by side: enough for the collapsed, filterable list. */
const manyServices = () =>
  makeTree(
    Object.fromEntries(
      ['auth', 'billing', 'catalog', 'gateway', 'mailer', 'orders', 'search', 'users'].flatMap((name) => [
        [`services/${name}/go.mod`, `module example.com/${name}\n\ngo 1.22\n`],
        [`services/${name}/main.go`, 'package main\n'],
      ]),
    ),
  );

const APP_TS = ['import { main } from "./main";', 'export const port = 3000; // TODO(ana): read from env', 'main(port);', '// TODO: graceful shutdown', ''].join('\n');
const project = () =>
  makeTree({
    'src/app.ts': APP_TS,
    'src/main.ts': 'export function main(port: number) {\n  return port;\n}\n',
    'README.md': '# demo\n',
  });

async function finished(page: Page, id: string, result: string) {
  await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
  const view = page.locator(`[data-result="${result}"]`);
  await view.waitFor();
  return view;
}

/** The same job on a phone in dark mode: nothing wider than the screen. */
async function checkPhone(url: string, id: string, result: string, name: string) {
  const phone = await openPage(`${url}/#/jobs/${id}`, PHONE, 'dark');
  await phone.locator(`[data-result="${result}"]`).waitFor();
  expect(await horizontalOverflow(phone)).toBeLessThanOrEqual(0);
  await screenshot(phone, name);
}

/** A root outside the allowed roots is refused at submission, shown under the path with its suggestion. */
async function expectRootRefused(page: Page, kind: string) {
  await page.getByLabel('Repository', { exact: true }).fill('/etc');
  await page.getByRole('button', { name: `Start ${kind}` }).click();
  const error = page.locator(`#${kind}-root-error .error-box`);
  await error.waitFor();
  await expect(error.innerText()).resolves.toContain('path_outside_root');
  await expect(error.locator('.suggestion').innerText()).resolves.not.toBe('');
  expect(await page.getByLabel('Repository', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(page.url()).not.toContain('#/jobs/');
}

describe('the detect, mentions and interpret views', () => {
  let stack: TestStack;
  let repo: string;
  let code: string;
  let many: string;

  beforeAll(async () => {
    repo = monorepo();
    code = project();
    many = manyServices();
    stack = await TestStack.start({ workspaceRoots: [repo, code, many], workerConcurrency: 2 });
  });
  afterAll(() => stack.close());
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  it('offers a form for each of them', async () => {
    const page = await openPage(stack.url);
    expect(await page.getByRole('tab').allInnerTexts()).toEqual(expect.arrayContaining(['Detect', 'Mentions', 'Interpret']));
    await screenshot(page, 'kinds-form-tabs', false);
  });

  describe('detect', () => {
    it('shows one card per service of a pnpm monorepo, and the job in the list', async () => {
      const page = await openPage(stack.url);
      await openForm(page, 'Detect');
      await page.getByLabel('Repository', { exact: true }).fill(repo);
      await page.getByLabel('Detection mode').selectOption('static');
      const id = await startJob(page, 'Detect');
      const view = await finished(page, id, 'detect');

      await expect(view.locator('[data-summary]').innerText()).resolves.toContain('2 services');
      const cards = view.locator('.service-card');
      expect(await cards.count()).toBe(2);
      expect((await cards.evaluateAll((els) => els.map((el) => String((el as any).dataset.service)))).sort()).toEqual(['apps/admin', 'apps/storefront']);
      for (const card of await cards.all()) {
        await expect(card.locator('[data-field="framework"]').innerText()).resolves.toBe('nextjs');
        await expect(card.locator('[data-field="build_system"]').innerText()).resolves.toBe('pnpm');
        await expect(card.locator('[data-detected-by]').getAttribute('data-detected-by')).resolves.toBe('static');
        await expect(card.locator('[data-fact="workspace"]').innerText()).resolves.toContain('2 members');
        await expect(card.locator('[data-fact="runtime"]').innerText()).resolves.toContain('node');
        expect(await card.locator('[data-fact="commands"] li').count()).toBeGreaterThan(0);
      }
      const storefront = view.locator('.service-card[data-service="apps/storefront"]');
      await expect(storefront.locator('.service-name').innerText()).resolves.toBe('storefront');
      await expect(storefront.locator('[data-fact="start"]').innerText()).resolves.toMatch(/\bstart\b/);
      expect(await page.evaluate(() => (globalThis as any).location.hash)).toBe(`#/jobs/${id}`);
      await screenshot(page, 'detect-result');

      // The sent mode is the one chosen; the list names the kind and the root.
      expect((await stack.jobs.find(id))?.input).toMatchObject({ mode: 'static' });
      await page.getByRole('link', { name: '← All jobs' }).click();
      const row = page.locator(`.job-row[data-job-id="${id}"]`);
      await row.locator('.badge[data-status="succeeded"]').waitFor();
      await expect(row.locator('.badge.kind').innerText()).resolves.toBe('detect');
      await expect(row.locator('.job-link').innerText()).resolves.toBe(repo);

      await checkPhone(stack.url, id, 'detect', 'detect-result-phone-dark');
    }, 60_000);

    it('a repository of many services: the run warning once, a summary table, collapsed cards and a filter', async () => {
      const page = await openPage(stack.url);
      await openForm(page, 'Detect');
      await page.getByLabel('Repository', { exact: true }).fill(many);
      const id = await startJob(page, 'Detect'); // the server's default mode: full, and no LLM is configured
      const view = await finished(page, id, 'detect');

      expect(await view.locator('[data-run-warnings] li').allInnerTexts()).toEqual([expect.stringContaining('no LLM')]);
      expect(await view.locator('.service-card .warnings').count()).toBe(0);
      expect(await view.locator('.service-summary tbody tr').count()).toBe(8);
      expect(await view.locator('details.service-details').count()).toBe(8);
      expect(await view.locator('details.service-details[open]').count()).toBe(0);

      await view.getByLabel('Filter services').fill('orders');
      await expect(view.locator('[data-filter-count]').innerText()).resolves.toBe('1 of 8');
      expect(await view.locator('.service-summary tbody tr').evaluateAll((rows) => rows.map((row) => String((row as any).dataset.serviceRow)))).toEqual(['services/orders']);
      await view.locator('.service-summary a').first().click();
      expect(await view.locator('details.service-details[open]').count()).toBe(1);
      await expect(view.locator('details[open] [data-fact="start"]').innerText()).resolves.toBe('./bin/orders');
      await screenshot(page, 'detect-many-services');
    }, 60_000);

    it('refuses a relative path in the browser and a root outside the allowed ones from the server', async () => {
      const page = await openPage(stack.url);
      await openForm(page, 'Detect');
      await page.getByLabel('Repository', { exact: true }).fill('apps/web');
      await page.getByRole('button', { name: 'Start detect' }).click();
      await expect(page.locator('#detect-root-error').innerText()).resolves.toContain('absolute path');
      await expectRootRefused(page, 'detect');
    });
  });

  describe('mentions', () => {
    const prompt = 'Why does @src/app.ts#L1-2 start twice? Compare with @src/mian.ts and @grep:"TODO" please.';

    it('shows the summary, each mention, the fix for a missing file, the coverage and a copyable prompt', async () => {
      const page = await openPage(stack.url, undefined, 'light', { permissions: ['clipboard-read', 'clipboard-write'] });
      await openForm(page, 'Mentions');
      await page.getByLabel('Repository', { exact: true }).fill(code);
      await page.getByLabel('Prompt').fill(prompt);
      await page.getByLabel('Budget (KiB, optional)').fill('64');
      const id = await startJob(page, 'Mentions');
      const view = await finished(page, id, 'mentions');

      await expect(view.locator('[data-summary]').innerText()).resolves.toBe('Loaded 2 of 3 mentions · 1 failed');
      const statuses = await view.locator('ul.mention-list li').evaluateAll((rows) => rows.map((row) => [(row as any).dataset.mention, (row as any).dataset.status]));
      expect(statuses).toEqual([
        ['@src/app.ts#L1-2', 'loaded'],
        ['@src/mian.ts', 'failed'],
        ['@grep:"TODO"', 'loaded'],
      ]);
      await expect(view.locator('li[data-mention="@src/app.ts#L1-2"] .mention-amount').innerText()).resolves.toContain('2 lines');
      await expect(view.locator('li[data-mention=\'@grep:"TODO"\'] .mention-amount').innerText()).resolves.toContain('2 matches');

      // The missing file: its error kind and, prominently, the suggestion naming the file that exists.
      const missing = view.locator('.mention-errors li[data-error-source="@src/mian.ts"]');
      await expect(missing.innerText()).resolves.toContain('file_not_found');
      await expect(missing.locator('.suggestion').innerText()).resolves.toContain('src/main.ts');
      expect(await missing.locator('.suggestion').isVisible()).toBe(true);

      await expect(view.locator('[data-stat="files"] .stat-value').innerText()).resolves.toBe('1');
      await expect(view.locator('[data-stat="lines"] .stat-value').innerText()).resolves.toBe('2');
      await expect(view.locator('[data-stat="matches"] .stat-value').innerText()).resolves.toBe('2');
      await expect(view.locator('[data-stat="tokens"] .stat-value').innerText()).resolves.toMatch(/^~[1-9]/);

      const augmented = (await stack.jobs.find(id))?.result as { augmentedPrompt: string };
      const shown = await view.locator('pre.augmented-prompt').innerText();
      expect(shown).toBe(augmented.augmentedPrompt);
      expect(shown).toContain(prompt);
      expect(shown).toContain('export const port = 3000;');
      expect(shown).toContain('// TODO: graceful shutdown');

      await view.getByRole('button', { name: 'Copy' }).click();
      await view.locator('.copy-button[data-copy="copied"]', { hasText: 'Copied' }).waitFor();
      expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(augmented.augmentedPrompt);
      await screenshot(page, 'mentions-result');

      await checkPhone(stack.url, id, 'mentions', 'mentions-result-phone-dark');
    }, 60_000);

    it('refuses an empty prompt and a bad budget in the browser, and a root outside the allowed ones from the server', async () => {
      const page = await openPage(stack.url);
      await openForm(page, 'Mentions');
      await page.getByLabel('Repository', { exact: true }).fill(code);
      await page.getByLabel('Prompt').fill('   ');
      await page.getByLabel('Budget (KiB, optional)').fill('lots');
      await page.getByRole('button', { name: 'Start mentions' }).click();
      await expect(page.locator('#mentions-prompt-error').innerText()).resolves.toContain('Write a prompt');
      await expect(page.locator('#mentions-budget-error').innerText()).resolves.toContain('whole number');
      expect(await page.getByLabel('Prompt').evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);

      await page.getByLabel('Prompt').fill('Look at @README.md');
      await page.getByLabel('Budget (KiB, optional)').fill('');
      await expectRootRefused(page, 'mentions');
      await screenshot(page, 'mentions-form-error', false);
    });
  });

  describe('interpret', () => {
    it('answers "show me lines 1-2 of src/app.ts" with the rules and shows the two lines', async () => {
      const page = await openPage(stack.url);
      await openForm(page, 'Interpret');
      await page.getByLabel('Repository', { exact: true }).fill(code);
      await page.getByLabel('Question').fill('show me lines 1-2 of src/app.ts');
      await page.getByLabel('AI planner').selectOption('off');
      const id = await startJob(page, 'Interpret');
      const view = await finished(page, id, 'interpret');

      await expect(view.locator('[data-source]').getAttribute('data-source')).resolves.toBe('rules');
      await expect(view.locator('[data-source]').innerText()).resolves.toBe('rules');
      expect((await view.locator('.rationale').innerText()).length).toBeGreaterThan(0);
      const step = view.locator('.step[data-tool="read_file"]');
      await expect(step.getAttribute('data-outcome')).resolves.toBe('ok');
      await expect(step.locator('.step-args').innerText()).resolves.toContain('src/app.ts');
      await expect(step.locator('pre.file-text').innerText()).resolves.toBe(APP_TS.split('\n').slice(0, 2).join('\n') + '\n');
      await expect(step.locator('.tool-output > p').innerText()).resolves.toContain('lines 1–2 of');
      expect(await view.locator('.step').count()).toBe(1);
      await screenshot(page, 'interpret-result');
      await checkPhone(stack.url, id, 'interpret', 'interpret-result-phone-dark');
    }, 60_000);

    it('renders search rows, a stack detection and a plan without execution', async () => {
      const page = await openPage(stack.url);
      await openForm(page, 'Interpret');
      await page.getByLabel('Repository', { exact: true }).fill(code);
      await page.getByLabel('Question').fill('grep for TODO');
      await page.getByLabel('AI planner').selectOption('off');
      let id = await startJob(page, 'Interpret');
      let view = await finished(page, id, 'interpret');
      const rows = await view.locator('.step[data-outcome="ok"] .match').allInnerTexts();
      expect(rows.map((row) => row.replace(/\s+/g, ' ').trim())).toEqual([
        'src/app.ts:2: export const port = 3000; // TODO(ana): read from env',
        'src/app.ts:4: // TODO: graceful shutdown',
      ]);
      await screenshot(page, 'interpret-grep');

      // Plan only, on the monorepo (the form keeps the AI setting): the step is listed, not run.
      await page.getByLabel('Repository', { exact: true }).fill(repo);
      await page.getByLabel('Question').fill("what's the tech stack");
      await page.getByLabel('Plan only: do not run the tools').check();
      id = await startJob(page, 'Interpret');
      view = await finished(page, id, 'interpret');
      await expect(view.locator('.step').first().getAttribute('data-outcome')).resolves.toBe('planned');
      expect(await view.locator('.step .tool-output').count()).toBe(0);
      expect((await stack.jobs.find(id))?.input).toMatchObject({ execute: false, ai: 'off' });

      // Run: the detect_stack step shows the same service cards as the detect view.
      await page.getByLabel('Plan only: do not run the tools').uncheck();
      id = await startJob(page, 'Interpret');
      view = await finished(page, id, 'interpret');
      const step = view.locator('.step[data-tool="detect_stack"][data-outcome="ok"]');
      expect(await step.locator('.service-card').count()).toBe(2);
      await expect(step.locator('.service-card [data-field="framework"]').first().innerText()).resolves.toBe('nextjs');
      // Full mode without an LLM says so once, for the whole run, not on each card.
      expect(await step.locator('[data-run-warnings] li').allInnerTexts()).toEqual([expect.stringContaining('no LLM')]);
      expect(await step.locator('.service-card .warnings').count()).toBe(0);
      await screenshot(page, 'interpret-detect-stack');

      // "this file" with no active file: a clarifying question, and nothing runs.
      await page.getByLabel('Question').fill('show me this file');
      id = await startJob(page, 'Interpret');
      view = await finished(page, id, 'interpret');
      await expect(view.locator('[data-clarification]').innerText()).resolves.toMatch(/\?/);
      expect(await view.locator('.step[data-outcome="ok"], .step[data-outcome="error"]').count()).toBe(0);
      await screenshot(page, 'interpret-clarification');
    }, 90_000);

    it('refuses an empty question in the browser and a root outside the allowed ones from the server', async () => {
      const page = await openPage(stack.url);
      await openForm(page, 'Interpret');
      await page.getByLabel('Repository', { exact: true }).fill(code);
      await page.getByRole('button', { name: 'Start interpret' }).click();
      await expect(page.locator('#interpret-query-error').innerText()).resolves.toContain('Ask a question');
      expect(await page.getByLabel('Question').getAttribute('aria-invalid')).toBe('true');

      await page.getByLabel('Question').fill('list the files here');
      await page.getByLabel('Current directory (optional)').fill('src');
      await expectRootRefused(page, 'interpret');
      await screenshot(page, 'interpret-form-error', false);
    });
  });
});
