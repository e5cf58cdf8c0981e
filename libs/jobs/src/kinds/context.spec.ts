import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@quarry/config';
import { InProcessPorts } from '../in-process-ports';
import { runContext } from './context';

/**
 * The context job's propagation walks the commit's navigation graph: where two modules define the
 * same name, the callee the task's code really imports is lifted, not its namesake.
 */
describe('runContext', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-context-use-case-')));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('shop/cart.py', 'from shop.pricing import apply_discount\n\n\nclass Cart:\n    def total(self, items):\n        return apply_discount(sum(items))\n');
  write('shop/pricing.py', 'def apply_discount(subtotal):\n    return subtotal * 0.8\n');
  write('legacy/pricing.py', 'def apply_discount(subtotal):\n    return subtotal * 0.9\n');
  write('legacy/report.py', 'def report():\n    return "legacy"\n');
  const ports = new InProcessPorts({ ...loadConfig({}, root), workspaceRoots: [root] });
  afterAll(async () => {
    await ports.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const run = { id: 'context-test', signal: new AbortController().signal, progress: () => undefined };

  it('lifts the callee the matched code imports, not a namesake in another module', async () => {
    const result = await runContext({ root, task: 'Cart.total gives the wrong amount for a full cart', tokens: 2000, limit: 20, encoding: 'o200k_base' }, await ports.ports('context'), run);
    const rank = (file: string) => result.files.findIndex((entry) => entry.path === file);
    expect(rank('shop/cart.py')).toBe(0);
    expect(rank('shop/pricing.py')).toBeGreaterThan(0);
    expect(rank('shop/pricing.py')).toBeLessThan(rank('legacy/pricing.py') === -1 ? Infinity : rank('legacy/pricing.py'));
    const graph = result.files.find((entry) => entry.path === 'shop/pricing.py')!.why.find((entry) => entry.signal === 'graph');
    expect(graph?.score).toBeGreaterThan(0);
    expect(result.files.find((entry) => entry.path === 'legacy/pricing.py')?.why.find((entry) => entry.signal === 'graph')).toBeUndefined();
    expect(result.source).toMatchObject({ path: root });
  });

  it('refuses an empty task before opening the repository', async () => {
    await expect(runContext({ root: '/does/not/exist', task: '  ', tokens: 100, limit: 5, encoding: 'o200k_base' }, await ports.ports('context'), run)).rejects.toMatchObject({ kind: 'task_empty' });
  });
});
