import { Writable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { languageOf } from '@quarry/workspace';
import { BlobIndexer } from '../index/blob-index';
import { countTokens } from '../tokens/token-counter';
import { StringSink, streamSink } from './sinks';
import { PackFile, PackOptions, writePack } from './write-pack';

const GITHUB_TOKEN = 'ghp_0123456789abcdefghijABCDEFGHIJ0123456789';

/** A small repository with every awkward thing a pack must carry. */
const REPOSITORY: Record<string, string> = {
  'README.md': '# Demo\n\nUse `quarry pack`.\n\n````\nfour backticks\n````\n',
  'src/server.ts': 'export class Server {\n  start(port: number): void {\n    listen(port);\n    log("started");\n  }\n}\n',
  'src/config.ts': `export const token = "${GITHUB_TOKEN}";\nexport function load() {\n  return token;\n}\n`,
  'src/tricky.ts': 'const xml = "<a>&amp;</a>";\nconst end = "]]>";\nconst ff = "\f";\n// Grüße 🎉\n',
  'src/a&b "quoted".ts': 'export const x = 1;\n',
  'src/generated/big.ts': 'export const table = [1, 2, 3];\n',
  'lib/util.py': 'def helper(x):\n    y = x * 2\n    return y\n',
  'empty.txt': '',
};

let indexer: BlobIndexer;
beforeAll(async () => {
  indexer = await BlobIndexer.create();
});

function packFiles(repository: Record<string, string> = REPOSITORY, reads?: string[]): PackFile[] {
  return Object.entries(repository).map(([path, text]) => {
    const language = languageOf(path);
    const index = indexer.index({ path, language, content: text });
    return {
      path,
      language,
      tokens: index.tokens,
      encoding: index.encoding,
      binary: index.binary,
      secrets: index.secrets,
      read: async () => {
        reads?.push(path);
        return text;
      },
    };
  });
}

async function pack(options: PackOptions, files = packFiles()) {
  const sink = new StringSink();
  const result = await writePack(files, sink, { title: 'demo', symbols: indexer.symbols, ...options });
  return { result, text: sink.toString() };
}

interface ParsedPack {
  root: Record<string, string>;
  files: { path: string; tokens: number; language?: string; text: string }[];
  summary: Record<string, string>;
  omitted: string[];
}

/** Parses a pack with a strict, conforming XML parser (saxes throws on anything malformed). */
function parseXmlPack(xml: string): ParsedPack {
  const parser = new SaxesParser();
  const parsed: ParsedPack = { root: {}, files: [], summary: {}, omitted: [] };
  const stack: string[] = [];
  let current: ParsedPack['files'][number] | undefined;
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag) => {
    const attributes = tag.attributes as Record<string, string>;
    stack.push(tag.name);
    if (tag.name === 'repository') parsed.root = attributes;
    if (tag.name === 'file' && stack[stack.length - 2] === 'files') {
      current = { path: attributes.path, tokens: Number(attributes.tokens), language: attributes.language, text: '' };
    }
    if (tag.name === 'file' && stack[stack.length - 2] === 'omitted_files') parsed.omitted.push(attributes.path);
    if (tag.name === 'summary') parsed.summary = attributes;
  });
  parser.on('cdata', (text) => {
    if (current !== undefined) current.text += text;
  });
  parser.on('text', (text) => {
    if (current !== undefined && text.trim() !== '') throw new Error(`text outside CDATA in ${current.path}`);
  });
  parser.on('closetag', (tag) => {
    stack.pop();
    if (tag.name === 'file' && current !== undefined) {
      parsed.files.push(current);
      current = undefined;
    }
  });
  parser.write(xml).close();
  return parsed;
}

describe('writePack', () => {
  it('writes XML that parses back: every file once, contents as written, tokens that add up', async () => {
    const { result, text } = await pack({ style: 'xml' });
    const parsed = parseXmlPack(text);
    expect(parsed.root).toEqual({ name: 'demo', encoding: 'o200k_base' });
    const paths = parsed.files.map((file) => file.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual(Object.keys(REPOSITORY).sort());
    for (const file of parsed.files) {
      expect(file.tokens).toBe(countTokens(file.text));
      const original = REPOSITORY[file.path];
      if (file.path === 'src/config.ts') expect(file.text).toBe(original.replace(GITHUB_TOKEN, '[REDACTED github-token]'));
      else if (file.path === 'src/tricky.ts') expect(file.text).toBe(original.replace('\f', '␌'));
      else expect(file.text).toBe(original);
    }
    const sum = parsed.files.reduce((total, file) => total + file.tokens, 0);
    expect(parsed.summary).toMatchObject({ files: String(parsed.files.length), tokens: String(sum), redactions: '1', omitted: '0' });
    expect(result).toMatchObject({ style: 'xml', files: 8, tokens: sum, redactions: 1, compressed: 0, omitted: 0, bytes: Buffer.byteLength(text) });
    expect(text).not.toContain(GITHUB_TOKEN);
  });

  it('lists the directory tree, and the files in the same order', async () => {
    const { text } = await pack({ style: 'xml' });
    const tree = /<directory_structure><!\[CDATA\[\n([\s\S]*?)\]\]><\/directory_structure>/.exec(text)![1];
    expect(tree).toBe(
      ['README.md', 'empty.txt', 'lib/', '  util.py', 'src/', '  a&b "quoted".ts', '  config.ts', '  generated/', '    big.ts', '  server.ts', '  tricky.ts', ''].join('\n'),
    );
    expect(parseXmlPack(text).files.map((file) => file.path)).toEqual([
      'README.md',
      'empty.txt',
      'lib/util.py',
      'src/a&b "quoted".ts',
      'src/config.ts',
      'src/generated/big.ts',
      'src/server.ts',
      'src/tricky.ts',
    ]);
  });

  it('writes Markdown with fences that file contents cannot close', async () => {
    const { text, result } = await pack({ style: 'markdown' });
    expect(text).toContain('### README.md (');
    expect(text).toContain(`\`\`\`\`\`markdown\n${REPOSITORY['README.md']}\`\`\`\`\`\n`);
    expect(text).toContain('```typescript\nexport class Server {');
    expect(text).toContain(`## Summary\n\n8 files, ${result.tokens} tokens (o200k_base), 1 redactions`);
  });

  it('writes plain text with a header per file', async () => {
    const { text } = await pack({ style: 'plain' });
    expect(text).toContain(`File: lib/util.py (${countTokens(REPOSITORY['lib/util.py'])} tokens)\n${'='.repeat(64)}\ndef helper(x):`);
  });

  it('selects files with fast-glob semantics: include, ignore, ignored directories', async () => {
    const select = async (include?: string[], ignore?: string[]) => parseXmlPack((await pack({ include, ignore })).text).files.map((file) => file.path);
    expect(await select(['src/**/*.ts'], ['src/generated'])).toEqual(['src/a&b "quoted".ts', 'src/config.ts', 'src/server.ts', 'src/tricky.ts']);
    expect(await select(['*.md'])).toEqual(['README.md']);
    expect(await select(['**/*.{py,md}'])).toEqual(['README.md', 'lib/util.py']);
    expect(await select(undefined, ['**/generated/**', 'src/*.ts'])).toEqual(['README.md', 'empty.txt', 'lib/util.py']);
    const { result } = await pack({ include: ['lib/**'] });
    expect(result.skipped).toEqual({ binary: 0, filtered: 7 });
  });

  it('compresses: keeps signatures, drops bodies, and counts the compressed text', async () => {
    const { text, result } = await pack({ compress: true });
    const server = parseXmlPack(text).files.find((file) => file.path === 'src/server.ts')!;
    expect(server.text).toBe('export class Server {\n  start(port: number): void { … }\n}\n');
    expect(server.tokens).toBe(countTokens(server.text));
    expect(parseXmlPack(text).files.find((file) => file.path === 'lib/util.py')!.text).toBe('def helper(x):\n    ...\n');
    expect(result.compressed).toBe(3);
    expect(parseXmlPack(text).root.compressed).toBe('true');
  });

  it('keeps to maxTokens: files in order while they fit, the rest listed as omitted', async () => {
    const all = parseXmlPack((await pack({})).text).files;
    const budget = all[0].tokens + all[2].tokens + 1; // README.md and lib/util.py, not src/… in between
    const { text, result } = await pack({ maxTokens: budget });
    const parsed = parseXmlPack(text);
    const total = parsed.files.reduce((sum, file) => sum + file.tokens, 0);
    expect(total).toBeLessThanOrEqual(budget);
    expect(parsed.files.map((file) => file.path)).toContain('README.md');
    expect(parsed.omitted.length).toBe(result.omitted);
    expect(parsed.files.length + parsed.omitted.length).toBe(all.length);
    expect(text).not.toContain('  server.ts'); // the tree lists only what is packed
    expect(parsed.summary.tokens).toBe(String(total));
  });

  it('redacts again when stored findings do not fit the text', async () => {
    const files = packFiles({ 'a.ts': `const t = "${GITHUB_TOKEN}";\n` });
    files[0].secrets = [{ kind: 'github-token', start: 500, end: 540 }];
    const { text } = await pack({}, files);
    expect(text).toContain('[REDACTED github-token]');
    expect(text).not.toContain(GITHUB_TOKEN);
  });

  it('finds credentials itself when the files come without stored findings', async () => {
    const files = packFiles({ 'a.ts': `const t = "${GITHUB_TOKEN}";\n` }).map(({ secrets: _secrets, tokens: _tokens, ...file }) => file);
    const { text, result } = await pack({}, files);
    expect(text).toContain('[REDACTED github-token]');
    expect(result.redactions).toBe(1);
  });

  it('skips binary files', async () => {
    const files = [...packFiles({ 'a.txt': 'x\n' }), { path: 'logo.png', binary: true, read: async () => '' }];
    const { result, text } = await pack({}, files);
    expect(result).toMatchObject({ files: 1, skipped: { binary: 1, filtered: 0 } });
    expect(text).not.toContain('logo.png');
  });

  it('streams: reads a bounded number of files ahead and honours backpressure', async () => {
    const repository = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f/${String(i).padStart(3, '0')}.txt`, `line ${i}\n`.repeat(200)]));
    let inFlight = 0;
    let maxInFlight = 0;
    const files = packFiles(repository).map((file) => ({
      ...file,
      read: async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return repository[file.path];
      },
    }));
    const chunks: number[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.length);
        setImmediate(callback);
      },
    });
    const sink = streamSink(slow);
    const result = await writePack(files, sink, { readAhead: 4 });
    await sink.end();
    expect(result.files).toBe(200);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(Math.max(...chunks)).toBeLessThan(64 * 1024 + 100);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(result.bytes);
  });

  it('bounds the read-ahead window by bytes too: big files are read one at a time', async () => {
    const repository = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`big/${String(i).padStart(2, '0')}.txt`, 'x'.repeat(1000)]));
    let inFlight = 0;
    let maxInFlight = 0;
    const files = packFiles(repository).map((file) => ({
      ...file,
      bytes: 1000,
      read: async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return repository[file.path];
      },
    }));
    const result = await writePack(files, new StringSink(), { readAhead: 8, readAheadBytes: 2500 });
    expect(result.files).toBe(12);
    expect(maxInFlight).toBe(2);
    const single = await writePack(files, new StringSink(), { readAheadBytes: 10 });
    expect(single.files).toBe(12); // a file larger than the window is still read, alone
  });

  it('stops between files when cancelled', async () => {
    const controller = new AbortController();
    const files = packFiles().map((file) => ({ ...file, read: async () => (controller.abort(), 'x') }));
    await expect(writePack(files, new StringSink(), { signal: controller.signal })).rejects.toMatchObject({ kind: 'job_cancelled' });
  });

  describe('bad input', () => {
    it('refuses an unknown style with a suggestion', async () => {
      await expect(pack({ style: 'xm' })).rejects.toMatchObject({ kind: 'style_unknown', suggestion: 'Did you mean --style xml?' });
      await expect(pack({ style: 'yaml' })).rejects.toMatchObject({ kind: 'style_unknown', suggestion: expect.stringContaining('markdown') });
    });

    it.each([[''], ['  '], ['[abc'], ['{a,b'], ['a}'], ['/etc/*'], ['x'.repeat(1_001)], ['!(*a*b*c*d)'], ['a\u0000b']])('refuses the glob %j', async (pattern) => {
      await expect(pack({ include: [pattern] })).rejects.toMatchObject({ kind: 'pattern_invalid', suggestion: expect.any(String) });
      await expect(pack({ ignore: [pattern] })).rejects.toMatchObject({ kind: 'pattern_invalid' });
    });

    it('refuses a token budget below 1 or absurdly large', async () => {
      for (const maxTokens of [0, -1, 2.5, 1e12]) await expect(pack({ maxTokens })).rejects.toMatchObject({ kind: 'budget_invalid' });
    });

    it('matches adversarial names against catastrophic patterns in linear time (RE2)', async () => {
      const name = `${'a'.repeat(3_000)}.txt`;
      const { result } = await pack({ include: ['*a*a*a*a*a*a*a*a*a*b'] }, packFiles({ [name]: 'x' }));
      expect(result.files).toBe(0);
    });
  });
});
