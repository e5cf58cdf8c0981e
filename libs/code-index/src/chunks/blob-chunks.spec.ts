import { BlobIndexer } from '../index/blob-index';
import { MAX_CHUNKED_CHARS, buildBlobChunks, splitLines } from './blob-chunks';
import { decodeBlobChunks, encodeBlobChunks } from './blob-chunks-codec';
import { scanStringLiterals } from './string-literals';

let indexer: BlobIndexer;
beforeAll(async () => {
  indexer = await BlobIndexer.create();
});

const SOURCE = [
  'import os', // 1
  '', // 2
  'MAX_RETRIES = 3', // 3
  '', // 4
  '', // 5
  '@register', // 6
  'class Repository(Base):', // 7
  '    """Stores things."""', // 8
  '    default_name = "repo"', // 9
  '', // 10
  '    # Where the files are.', // 11
  '    @property', // 12
  '    def root_path(self):', // 13
  '        def inner():', // 14
  '            return os.getcwd()', // 15
  '        return inner()', // 16
  '', // 17
  '    def fetchURL(self, url):', // 18
  '        raise ValueError("cannot fetch %s: the repository is read-only" % url)', // 19
  '', // 20
  '', // 21
  'def download(url):', // 22
  '    return url', // 23
  '',
].join('\n');

function chunksOf(text: string) {
  const index = indexer.index({ path: 'repo.py', language: 'Python', content: text });
  return buildBlobChunks({ text, definitions: index.definitions });
}

describe('buildBlobChunks', () => {
  it('cuts a file at definition boundaries: methods whole with decorators and comments, a class head, windows of the rest', () => {
    const { chunks } = chunksOf(SOURCE);
    expect(chunks.map(({ startLine, endLine, symbol, kind, container }) => ({ startLine, endLine, symbol, kind, container }))).toEqual([
      { startLine: 1, endLine: 3, symbol: undefined, kind: undefined, container: undefined },
      { startLine: 6, endLine: 9, symbol: 'Repository', kind: 'class', container: undefined },
      { startLine: 11, endLine: 16, symbol: 'root_path', kind: 'method', container: 'Repository' },
      { startLine: 18, endLine: 19, symbol: 'fetchURL', kind: 'method', container: 'Repository' },
      { startLine: 22, endLine: 23, symbol: 'download', kind: 'function', container: undefined },
    ]);
  });

  it('counts whole identifiers and their parts, and says which terms were used as names', () => {
    const { chunks } = chunksOf(SOURCE);
    const fetch = chunks[3];
    const terms = new Map(fetch.terms);
    expect(terms.get('fetchurl')).toBe(1);
    expect(terms.get('fetch')).toBe(2); // a part of fetchURL, and the word in the message
    expect(terms.get('url')).toBe(3);
    expect(terms.has('self')).toBe(false); // a stop word
    const names = fetch.names.map((index) => fetch.terms[index][0]);
    expect(names).toContain('fetchurl');
    expect(names).toContain('valueerror');
    expect(names).not.toContain('value'); // only ever a part (of ValueError)
    expect(fetch.length).toBe([...terms.values()].reduce((sum, count) => sum + count, 0));
  });

  it('keeps messages in string literals with their lines, split at placeholders', () => {
    const { literals } = chunksOf(SOURCE);
    expect(literals).toEqual([{ line: 19, fragments: [['cannot', 'fetch'], ['the', 'repository', 'is', 'read', 'only']] }]);
  });

  it('cuts a definition of more than 150 lines into parts of the same definition', () => {
    const body = Array.from({ length: 300 }, (_, index) => (index % 20 === 19 ? '' : `    total += ${index}`));
    const { chunks } = chunksOf(['def long():', '    total = 0', ...body, '    return total', ''].join('\n'));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.symbol === 'long' && chunk.endLine - chunk.startLine < 130)).toBe(true);
    expect(chunks[0].startLine).toBe(1);
    expect(chunks[chunks.length - 1].endLine).toBe(303);
  });

  it('is a function of the text and definitions alone, and round-trips through its stored form', () => {
    const chunks = chunksOf(SOURCE);
    expect(chunksOf(SOURCE)).toEqual(chunks);
    expect(decodeBlobChunks(encodeBlobChunks(chunks))).toEqual(chunks);
  });

  it('gives a generated table over the size cap a row with its lines and no chunks, literals or options', () => {
    const line = '#define mmREG_SOME_FIELD_MASK 0x0000FFFFL /* "--quoted" */\n';
    const table = line.repeat(Math.ceil(MAX_CHUNKED_CHARS / line.length) + 1);
    const row = buildBlobChunks({ text: table, definitions: [] });
    expect(row).toEqual({ version: 1, lines: splitLines(table).length, chunks: [], literals: [], options: [] });
    expect(decodeBlobChunks(encodeBlobChunks(row))).toEqual(row);
    // Just under the cap, the same lines are chunked as usual.
    const under = line.repeat(Math.floor(MAX_CHUNKED_CHARS / line.length));
    expect(buildBlobChunks({ text: under, definitions: [] }).chunks.length).toBeGreaterThan(100);
  });
});

describe('scanStringLiterals', () => {
  it('reads quotes of several languages, escapes, triple quotes and options, and skips comments', () => {
    const text = [
      "msg = 'it can\\'t be parsed here at all'", // 1
      '# "a commented message is not a literal ever"', // 2
      'x = """first line', // 3
      'of a long message"""', // 4
      'parser.add_argument("--collect-only")', // 5
      'throw new Error(`unknown plan ${name} for this user`); // "not this one either"', // 6
    ].join('\n');
    const { messages, options } = scanStringLiterals(text);
    expect(messages).toEqual([
      { line: 1, fragments: [['it', 'can', 't', 'be', 'parsed', 'here', 'at', 'all']] },
      { line: 3, fragments: [['first', 'line', 'of', 'a', 'long', 'message']] },
      { line: 6, fragments: [['unknown', 'plan'], ['for', 'this', 'user']] },
    ]);
    expect(options).toEqual([['--collect-only', 5]]);
  });
});
