import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/*
 * What every browser spec shares: Debian's Chromium driven by playwright-core, contexts that can
 * reach nothing but the gateway under test, page errors collected for an afterEach check, and
 * screenshots in test-artifacts/.
 */

export const CHROMIUM = process.env.QUARRY_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts');
export const UI_TIMEOUT = 15_000;
export const DESKTOP = { width: 1360, height: 900 };
export const PHONE = { width: 390, height: 844 };
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserHarness {
  readonly browser: Browser;
  /** Uncaught errors of every page opened through the harness; a spec expects it empty after each test. */
  readonly pageErrors: string[];
  /** A context whose requests to any host but 127.0.0.1 are aborted (a CDN or a leak), closed after the file. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page of a fresh context whose errors are recorded. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** `newPage`, at `url`, once the socket is live. */
  openPage(url: string, viewport?: { width: number; height: number }, colorScheme?: 'light' | 'dark', options?: BrowserContextOptions): Promise<Page>;
}

/** Launches Chromium for the calling spec file (beforeAll) and closes it with its contexts (afterAll). */
export function useBrowser(): BrowserHarness {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(path.join(__dirname, '..', '..', 'dist', 'web', 'public', 'index.html'))) {
      throw new Error('The dashboard is not built: run `npm run build:web` (npm test builds it).');
    }
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
  });

  const harness: BrowserHarness = {
    get browser() {
      if (!browser) throw new Error('The browser is not launched yet (use it inside a test or a hook).');
      return browser;
    },
    pageErrors,
    async newContext(options = {}) {
      const context = await harness.browser.newContext({ viewport: DESKTOP, colorScheme: 'light', ...options });
      contexts.push(context);
      await context.route('**/*', (route) => {
        const target = new URL(route.request().url());
        return target.hostname === '127.0.0.1' ? route.continue() : route.abort();
      });
      return context;
    },
    async newPage(options = {}) {
      const page = await (await harness.newContext(options)).newPage();
      page.setDefaultTimeout(UI_TIMEOUT);
      page.on('pageerror', (error) => pageErrors.push(String(error)));
      return page;
    },
    async openPage(url, viewport = DESKTOP, colorScheme = 'light', options = {}) {
      const page = await harness.newPage({ ...options, viewport, colorScheme });
      await page.goto(url);
      await page.locator('.conn[data-connection="live"]').waitFor();
      return page;
    },
  };
  return harness;
}

export const screenshot = (page: Page, name: string, fullPage = true) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage, animations: 'disabled' });

/** Pixels the page is wider than its viewport (a phone layout must have none). */
export const horizontalOverflow = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as any).document.documentElement; // this function runs in the page
    return root.scrollWidth - root.clientWidth;
  });

/** Opens a tab of the submit form and returns the form. */
export async function openForm(page: Page, title: string) {
  await page.getByRole('tab', { name: title }).click();
  return page.locator(`form.submit-form[aria-labelledby="tab-${title.toLowerCase()}"]`);
}

/** Clicks the form's start button and returns the id of the new job the page navigates to. */
export async function startJob(page: Page, title: string): Promise<string> {
  const before = page.url();
  await page.getByRole('button', { name: `Start ${title.toLowerCase()}` }).click();
  // From a job's page the URL already has this shape: wait for another job's.
  await page.waitForURL((url) => url.href !== before && /#\/jobs\/[0-9a-f-]{36}$/.test(url.hash));
  return page.url().split('/').pop()!;
}
