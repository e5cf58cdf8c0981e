import { includedRanges, scanCBodies, withoutRegions } from './c-bodies';
import { SymbolExtractor } from './symbol-extractor';

/** The names a scan found, `name` or `name()` when called, in order. */
function namesOf(text: string): string[] {
  const bodies = scanCBodies(text);
  if (bodies === undefined) throw new Error('no regions');
  return bodies.names.map((name, index) => (bodies.positions[2 * index + 1] === 1 ? `${name}()` : name));
}

describe('scanCBodies', () => {
  it('leaves out function bodies and initializers, not what defines something', () => {
    const text = [
      'struct point { int x, y; };',
      'static const struct ops table = { .open = my_open };',
      'int add(int a, int b)',
      '{',
      '\treturn a + b;',
      '}',
      'void local(void) { struct inner { int z; } v; (void)v; }',
      'void defines(void) {',
      '#define LOCAL 1',
      '}',
    ].join('\n');
    const bodies = scanCBodies(text)!;
    const regions = [];
    for (let index = 0; index < bodies.regions.length; index += 2) regions.push(text.slice(bodies.regions[index], bodies.regions[index + 1]));
    expect(regions).toEqual([' .open = my_open ', '\n\treturn a + b;\n']);
    // Heads start after what ended the item before at the top level.
    expect(text.slice(bodies.heads[1], bodies.regions[2])).toBe('\nint add(int a, int b)\n{');
  });

  it('reads names as the grammar’s leaves: no members, labels or keywords; calls by the `(` after them', () => {
    const text = [
      'int f(struct s *p)',
      '{',
      '\tint n = min_t(unsigned int, p->len, SIZE);',
      '\tstruct s *q = container_of(p->node.next, struct s, node);',
      '\tif (!q) goto out; /* a { brace } */',
      '\tn += sizeof(struct s) + offsetof(struct s, len) + cond ? a : b;',
      '\tg("{", \'}\', L"wide", 25000baseSR_Full, 1.5e-3f);',
      'out:',
      '#if defined(CONFIG_X) && IS_ENABLED(CONFIG_Y)',
      '\treturn n;',
      '#endif',
      '\treturn 0;',
      '}',
    ].join('\n');
    expect(namesOf(text)).toEqual([
      'n',
      'min_t()',
      'unsigned',
      'int',
      'p',
      'SIZE',
      's',
      'q',
      'container_of()',
      'p',
      'struct',
      's',
      'node',
      'q',
      'n',
      's',
      's',
      'cond',
      'a',
      'b',
      'g()',
      'aseSR_Full',
      'CONFIG_X',
      'IS_ENABLED()',
      'CONFIG_Y',
      'n',
    ]);
  });

  it('reads a block item the grammar takes for a declaration as one: nothing called, keywords kept', () => {
    const text = ['void f(void)', '{', '\tstatic DEFINE_MUTEX(lock);', '\tkfree(list_entry(p, struct s, node));', '\tx = list_entry(p, struct s, node);', '}'].join('\n');
    expect(namesOf(text)).toEqual(['DEFINE_MUTEX', 'lock', 'kfree', 'list_entry', 'p', 's', 'node', 'x', 'list_entry()', 'p', 'struct', 's', 'node']);
  });

  it('gives up on a file whose braces do not add up', () => {
    expect(scanCBodies('int f(void)\n{\n#ifdef A\n\tif (a) {\n#else\n\tif (b) {\n#endif\n\t}\n}\n')).toBeUndefined();
    expect(scanCBodies('int f(void)\n{\n\treturn 0;\n')).toBeUndefined();
    expect(scanCBodies('}\n')).toBeUndefined();
    expect(scanCBodies('struct only { int a; };\n')).toBeUndefined();
  });

  it('gives tree-sitter ranges around the regions, with rows and columns', () => {
    const text = 'int f(void)\n{\n\treturn 0;\n}\nint g;\n';
    const bodies = scanCBodies(text)!;
    expect(includedRanges(text, bodies.regions)).toEqual([
      { startIndex: 0, endIndex: 13, startPosition: { row: 0, column: 0 }, endPosition: { row: 1, column: 1 } },
      { startIndex: 25, endIndex: text.length, startPosition: { row: 3, column: 0 }, endPosition: { row: 5, column: 0 } },
    ]);
    expect(withoutRegions(bodies, [0])).toBeUndefined();
  });
});

describe('C bodies lexed, not parsed', () => {
  let fast: SymbolExtractor;
  let reference: SymbolExtractor;
  beforeAll(async () => {
    [fast, reference] = await Promise.all([SymbolExtractor.create(), SymbolExtractor.create({ parseCBodies: true })]);
  });

  it('makes no function of a macro loop inside a body, as the whole parse did', () => {
    const text = ['static long count(void)', '{', '\tint cpu;', '\tlong sum = 0;', '', '\tfor_each_possible_cpu(cpu) {', '\t\tsum += per_cpu(counter, cpu);', '\t}', '\treturn sum;', '}', ''].join('\n');
    const definitions = (extractor: SymbolExtractor) => extractor.extract('a.c', 'C', text).definitions.map((d) => `${d.name}@${d.line}-${d.endLine}`);
    expect(definitions(reference)).toEqual(['count@1-10', 'for_each_possible_cpu@6-8']);
    expect(definitions(fast)).toEqual(['count@1-10']);
    // The loop's names are uses, called.
    expect(fast.extract('a.c', 'C', text).references.get('for_each_possible_cpu')).toBe(1);
  });

  it('parses a body after all where the grammar lost its way in the function’s head', () => {
    // `__printf(2, 3)` is no C the grammar knows: how it recovers depends on the body, so that body is parsed.
    const text = ['static int f(void)', '{', '\treturn 0;', '}', '', 'static __printf(2, 3) int g(const char *fmt, ...)', '{', '\treturn h(fmt);', '}', ''].join('\n');
    expect(fast.extract('a.c', 'C', text)).toEqual(reference.extract('a.c', 'C', text));
  });
});
