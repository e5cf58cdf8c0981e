import { BlobIndexer, countTokens } from '@quarry/code-index';
import { contextResultSchema, QuarryError } from '@quarry/contracts';
import { ContextCorpus } from './corpus/context-corpus';
import { rankForTask, retrieveContext } from './retrieve';
import type { SignalName } from './signals/signal-scores';
import { corpusOf as corpusOfFiles } from './testing/corpus-of';

let indexer: BlobIndexer;
beforeAll(async () => {
  indexer = await BlobIndexer.create();
});

const corpusOf = (files: Record<string, string>) => corpusOfFiles(indexer, files);

const paths = (corpus: ContextCorpus, ranking: ReturnType<typeof rankForTask>) => ranking.files.map((ranked) => corpus.paths[ranked.file]);
const spanOf = (corpus: ContextCorpus, ranking: ReturnType<typeof rankForTask>, index = 0) => {
  const span = ranking.spans[index];
  return { path: corpus.paths[corpus.chunkFile[span.chunk]], ...corpus.chunk(span.chunk) };
};

/** A small package where every answer is known. */
const PACKAGE: Record<string, string> = {
  'shop/cart.py': [
    'from shop.pricing import apply_discount',
    '',
    '',
    'class Cart:',
    '    """Items a customer is buying."""',
    '',
    '    def __init__(self):',
    '        self.items = []',
    '',
    '    def add_item(self, item, quantity=1):',
    '        if quantity < 1:',
    '            raise ValueError("quantity must be at least one, got %d" % quantity)',
    '        self.items.append((item, quantity))',
    '',
    '    def total(self):',
    '        subtotal = sum(item.price * quantity for item, quantity in self.items)',
    '        return apply_discount(subtotal, self.items)',
    '',
  ].join('\n'),
  'shop/pricing.py': [
    'def apply_discount(subtotal, items):',
    '    rate = volume_rate(len(items))',
    '    return subtotal * (1 - rate)',
    '',
    '',
    'def volume_rate(count):',
    '    if count > 10:',
    '        return 0.1',
    '    return 0.0',
    '',
  ].join('\n'),
  'shop/receipts.py': [
    'def render_receipt(cart, customer):',
    '    lines = [f"Receipt for {customer}"]',
    '    for item, quantity in cart.items:',
    '        lines.append(f"{item.name} x{quantity}")',
    '    return "\\n".join(lines)',
    '',
  ].join('\n'),
  'shop/settings.py': ['def load_settings(path):', '    with open(path) as handle:', '        return parse_lines(handle.read())', '', '', 'def parse_lines(text):', '    return dict(line.split("=", 1) for line in text.splitlines() if line)', ''].join('\n'),
  'shop/server.py': ['from shop.settings import load_settings', '', '', 'def start_server(port):', '    config = load_settings("shop.conf")', '    return serve(port, config)', '', '', 'def serve(port, config):', '    return (port, config)', ''].join('\n'),
  'tests/test_cart.py': [
    'from shop.cart import Cart',
    '',
    '',
    'def test_add_item_quantity_total_discount_cart():',
    '    cart = Cart()',
    '    cart.add_item("apple", 2)',
    '    assert cart.total() > 0  # total discount quantity cart items',
    '',
  ].join('\n'),
  'docs/cart.md': '# The cart\n\nA cart holds items and quantities; its total applies the discount.\n',
};

describe('rankForTask on tasks whose answer is known', () => {
  let corpus: ContextCorpus;
  beforeAll(() => ({ corpus } = corpusOf(PACKAGE)));

  it('a stack trace: the innermost frame of the tree ranks its file first and its function as the first span', () => {
    const task = [
      'Checkout crashes',
      '```',
      'Traceback (most recent call last):',
      '  File "/srv/app/venv/lib/python3.11/site-packages/shop/cart.py", line 17, in total',
      '    return apply_discount(subtotal, self.items)',
      '  File "/srv/app/venv/lib/python3.11/site-packages/shop/pricing.py", line 2, in apply_discount',
      '    rate = volume_rate(len(items))',
      'TypeError: object of type generator has no len()',
      '```',
    ].join('\n');
    const ranking = rankForTask(corpus, task);
    expect(paths(corpus, ranking).slice(0, 2)).toEqual(['shop/pricing.py', 'shop/cart.py']);
    expect(spanOf(corpus, ranking)).toMatchObject({ path: 'shop/pricing.py', symbol: 'apply_discount', startLine: 1, endLine: 3 });
    expect(ranking.files[0].why.find((entry) => entry.signal === 'explicit')?.notes.join(' ')).toContain('stack frame line 2 in apply_discount');
  });

  it('an identifier in backticks: the file defining it, the definition as the span', () => {
    const ranking = rankForTask(corpus, 'Wrong result\nThe receipt lists nothing when `render_receipt` gets an empty customer.');
    expect(paths(corpus, ranking)[0]).toBe('shop/receipts.py');
    expect(spanOf(corpus, ranking)).toMatchObject({ path: 'shop/receipts.py', symbol: 'render_receipt' });
    expect(ranking.files[0].why.map((entry) => entry.signal)).toContain('definitions');
  });

  it('a renamed function: the task names the old name, the quoted message still finds the code', () => {
    // `Basket.put` no longer exists (it became Cart.add_item); the error it raises is unchanged.
    const task = 'Basket.put rejects zero\nCalling `Basket.put(item, 0)` fails with: ValueError: quantity must be at least one, got 0';
    const ranking = rankForTask(corpus, task);
    expect(paths(corpus, ranking)[0]).toBe('shop/cart.py');
    expect(spanOf(corpus, ranking)).toMatchObject({ symbol: 'add_item' });
    expect(ranking.files[0].why.find((entry) => entry.signal === 'literals')?.notes[0]).toContain('quantity must be at least one');
    // The message alone finds it: no definition is named `put`, nothing else is needed.
    const literalsAlone = rankForTask(corpus, task, [], { disabled: new Set<SignalName>(['explicit', 'definitions', 'bm25', 'paths', 'graph', 'prior']) });
    expect(paths(corpus, literalsAlone)).toEqual(['shop/cart.py']);
    expect(spanOf(corpus, literalsAlone)).toMatchObject({ symbol: 'add_item', startLine: 10, endLine: 13 });
  });

  it('a question only the graph answers: the settings loader reached through the function the task names', () => {
    const task = 'start_server hangs\n`start_server(8080)` never returns on a fresh machine.';
    const ranking = rankForTask(corpus, task);
    const ranked = paths(corpus, ranking);
    expect(ranked[0]).toBe('shop/server.py');
    expect(ranked[1]).toBe('shop/settings.py');
    expect(ranking.files[1].why.find((entry) => entry.signal === 'graph')?.notes.join(' ')).toContain('used by start_server');
    const withoutGraph = rankForTask(corpus, task, [], { disabled: new Set<SignalName>(['graph']) });
    const settings = withoutGraph.files.find((entry) => corpus.paths[entry.file] === 'shop/settings.py');
    expect(settings?.why.some((entry) => entry.signal !== 'prior' && entry.signal !== 'roles') ?? false).toBe(false);
  });

  it.each(['shop/pricing.py', 'C:\\Python311\\Lib\\site-packages\\shop\\pricing.py', '/home/me/venv/lib/python3.11/site-packages/shop/pricing.py', './shop/pricing.py'])(
    'a path written as %s names the tree\'s file',
    (written) => {
      const ranking = rankForTask(corpus, `Rounding is off\nSee ${written} for the rule.`);
      expect(paths(corpus, ranking)[0]).toBe('shop/pricing.py');
      expect(ranking.files[0].why[0]).toMatchObject({ signal: 'explicit', notes: [`path ${written}`] });
    },
  );

  it('tests and docs rank below source unless the task asks for them', () => {
    const behaviour = paths(corpus, rankForTask(corpus, 'cart total discount quantity items is wrong'));
    expect(behaviour.indexOf('shop/cart.py')).toBeLessThan(behaviour.indexOf('tests/test_cart.py'));
    expect(behaviour.indexOf('shop/cart.py')).toBeLessThan(behaviour.indexOf('docs/cart.md'));
    const asksForTests = rankForTask(corpus, 'Add a test for the cart total discount with quantity items');
    expect(asksForTests.task.intent.tests).toBe(true);
    expect(paths(corpus, asksForTests)[0]).toBe('tests/test_cart.py');
  });

  it("a test that holds the task's usage lends the module it tests a share: the fix goes there, not in the test", () => {
    const { corpus: withTests } = corpusOf({
      ...PACKAGE,
      'shop/shipping.py': 'def shipping_cost(weight):\n    return 5 + weight\n',
      'tests/test_shipping.py': 'from shop.shipping import shipping_cost\n\n\ndef test_free_delivery_over_threshold_parcel_weight():\n    assert shipping_cost(0) == 5  # free delivery over threshold for a parcel weight\n',
    });
    const ranking = rankForTask(withTests, 'Free delivery over the threshold is not applied\nA parcel over the weight threshold still pays delivery.');
    const shipping = ranking.files.find((ranked) => withTests.paths[ranked.file] === 'shop/shipping.py');
    expect(shipping?.why.find((entry) => entry.signal === 'bm25')?.notes).toEqual(['tested by tests/test_shipping.py']);
    expect(paths(withTests, ranking)[0]).toBe('shop/shipping.py');
  });

  it('focus paths rank up', () => {
    const ranking = rankForTask(corpus, 'something about items', ['shop/receipts.py']);
    expect(paths(corpus, ranking)[0]).toBe('shop/receipts.py');
  });
});

describe('retrieveContext', () => {
  let corpus: ContextCorpus;
  let read: (path: string) => Promise<string>;
  beforeAll(() => ({ corpus, read } = corpusOf(PACKAGE)));

  it('assembles the spans in rank order within the budget, counted with the real tokenizer', async () => {
    const result = await retrieveContext(corpus, { task: 'Why does `apply_discount` ignore the volume rate?', tokens: 60 }, { readText: read, commit: 'abc123' });
    expect(contextResultSchema.parse(result)).toBeDefined();
    expect(result.tokens).toBe(countTokens(result.context));
    expect(result.tokens).toBeLessThanOrEqual(60);
    expect(result.commit).toBe('abc123');
    expect(result.files[0]).toMatchObject({ path: 'shop/pricing.py', role: 'source' });
    expect(result.context.startsWith('shop/pricing.py:1-3 (function apply_discount)\n1│ def apply_discount(subtotal, items):\n')).toBe(true);
    // The first span that does not fit whole is cut to the lines that fit, and nothing follows it.
    const states = result.spans.map((span) => span.inContext);
    const firstNotWhole = states.findIndex((state) => state !== 'whole');
    expect(states.slice(firstNotWhole + 1).every((state) => state === 'omitted')).toBe(true);
  });

  it('a larger budget holds more spans, and the whole answer never passes it', async () => {
    for (const tokens of [1, 20, 80, 300, 8000]) {
      const result = await retrieveContext(corpus, { task: 'cart total discount quantity', tokens }, { readText: read });
      expect(result.tokens).toBe(countTokens(result.context));
      expect(result.tokens).toBeLessThanOrEqual(tokens);
    }
    const big = await retrieveContext(corpus, { task: 'cart total discount quantity', tokens: 8000 }, { readText: read });
    expect(big.spans.filter((span) => span.inContext === 'whole').length).toBeGreaterThan(3);
  });

  it('says so when nothing matches', async () => {
    const result = await retrieveContext(corpus, { task: 'zzqx vvwy' }, { readText: read });
    expect(result.warnings[0]).toContain('Nothing in the repository matched');
  });

  it.each([
    ['an empty task', { task: '  \n' }, 'task_empty'],
    ['a task over 64 KiB', { task: 'x'.repeat(64 * 1024 + 1) }, 'task_too_large'],
    ['a budget of 0', { task: 'cart', tokens: 0 }, 'budget_invalid'],
    ['a fractional budget', { task: 'cart', tokens: 1.5 }, 'budget_invalid'],
    ['an absurd budget', { task: 'cart', tokens: 2_000_000 }, 'budget_invalid'],
    ['a focus path outside the root', { task: 'cart', focus: ['../etc/passwd'] }, 'path_outside_root'],
    ['an absolute focus path', { task: 'cart', focus: ['/etc/passwd'] }, 'path_outside_root'],
    ['a focus path the tree does not have', { task: 'cart', focus: ['shop/carts.py'] }, 'file_not_found'],
    ['a limit of 0', { task: 'cart', limit: 0 }, 'input_invalid'],
  ])('refuses %s with a typed error and a suggestion', async (_name, request, kind) => {
    const error = await retrieveContext(corpus, request, { readText: read }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuarryError);
    expect((error as QuarryError).kind).toBe(kind);
    expect((error as QuarryError).suggestion).toBeTruthy();
  });

  it('suggests the closest path for a focus path the tree does not have', async () => {
    const error = (await retrieveContext(corpus, { task: 'cart', focus: ['src/cart.py'] }, { readText: read }).catch((caught: unknown) => caught)) as QuarryError;
    expect(error.suggestion).toBe('Did you mean shop/cart.py?');
  });
});
