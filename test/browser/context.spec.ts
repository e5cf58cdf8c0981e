import { TestStack } from '../support/stack';
import { makeTree } from '../support/trees';
import { openForm, screenshot, startJob, useBrowser } from './support';

/*
 * The context view in headless Chromium against a real gateway and worker: a task pasted in the
 * form, the ranked files with the signals that put them there, the spans with their code; a task
 * left empty caught in the browser, and one the server refuses shown beside its field.
 */

const { openPage, pageErrors } = useBrowser();

describe('the context view', () => {
  let stack: TestStack;
  let root: string;

  beforeAll(async () => {
    root = makeTree({
      'shop/cart.py': 'from shop.pricing import apply_discount\n\n\nclass Cart:\n    def total(self, items):\n        return apply_discount(sum(items), items)\n',
      'shop/pricing.py': 'def apply_discount(subtotal, items):\n    if not items:\n        raise ValueError("a discount needs at least one item")\n    return subtotal * 0.9\n',
      'tests/test_cart.py': 'from shop.cart import Cart\n\n\ndef test_total():\n    assert Cart().total([1]) == 0.9\n',
      'README.md': '# Shop\n',
    });
    stack = await TestStack.start({ workspaceRoots: [root] });
  });
  afterAll(() => stack.close());
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  it('a stack trace: the file and function it names first, with why, and their code', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Context');
    await page.getByLabel('Repository', { exact: true }).fill(root);
    await page.getByRole('button', { name: 'Start context' }).click();
    await expect(page.locator('#context-task-error').innerText()).resolves.toContain('Paste the task');
    await page.getByLabel('Task').fill('Checkout crashes on an empty cart\n\n  File "/srv/shop/pricing.py", line 3, in apply_discount\nValueError: a discount needs at least one item\n');
    await page.getByLabel('Token budget').fill('500');
    const id = await startJob(page, 'Context');
    await page.locator(`.detail[data-job-id="${id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    const view = page.locator('[data-result="context"]');
    await expect(view.locator('tr[data-file]').first().getAttribute('data-file')).resolves.toBe('shop/pricing.py');
    await view.locator('tr[data-file="shop/pricing.py"] [data-signal="explicit"]').waitFor();
    const span = view.locator('[data-span="shop/pricing.py:1-4"]');
    await expect(span.getAttribute('data-in-context')).resolves.toBe('whole');
    await expect(span.locator('.span-code').innerText()).resolves.toContain('raise ValueError("a discount needs at least one item")');
    expect(Number((await view.locator('[data-stat="tokens"]').innerText()).split('/')[0].replaceAll(',', ''))).toBeLessThanOrEqual(500);
    await screenshot(page, 'context-result');
  }, 60_000);

  it('a focus path outside the repository is refused by the server, beside the field', async () => {
    const page = await openPage(stack.url);
    await openForm(page, 'Context');
    await page.getByLabel('Repository', { exact: true }).fill(root);
    await page.getByLabel('Task').fill('where is the discount applied?');
    await page.getByLabel('Focus').fill('../elsewhere.py');
    await page.getByRole('button', { name: 'Start context' }).click();
    await expect(page.locator('#context-focus-error').innerText()).resolves.toContain('outside');
  }, 60_000);
});
