import { FileListView } from '../workspace-view';
import { parseFrame } from './frame';
import { Sentence } from './sentence';

const view = new FileListView(['and/notes.md', 'src/in/reader.ts', 'src/api/users.ts', 'docs/a.md']);
const frameOf = (text: string) => {
  const { sentence, ...rest } = parseFrame(text, {}, view);
  return { ...rest, rest: sentence.rest().map((token) => token.text) };
};

describe('parseFrame: object × location × filters', () => {
  it('takes location and filter phrases out of the sentence before it looks for the object', () => {
    expect(frameOf('search for TODO in the api folder, first 5 matches')).toMatchObject({
      object: { text: 'TODO', kind: 'code' },
      directory: 'api',
      filters: { limit: 5, limitOf: 'matches' },
      // The unit word stays: it is a cue of the intent (matches → a content search).
      rest: ['search', 'for', 'TODO', 'matches'],
    });
  });

  it('keeps quoted strings and regexes whole, spaces included', () => {
    expect(frameOf("look for 'retry logic' in docs").object).toEqual({ text: 'retry logic', kind: 'literal' });
    expect(frameOf('find all lines matching ^func .*Handler in src').object).toEqual({ text: '^func .*Handler', kind: 'regex' });
    expect(frameOf(String.raw`search /a\d+/`).object).toEqual({ text: String.raw`a\d+`, kind: 'regex' });
  });

  it('prefers the code-looking token over the English around it', () => {
    expect(frameOf('where does the app read PORT from').object).toEqual({ text: 'PORT', kind: 'code' });
    expect(frameOf('any unwrap() calls').object).toEqual({ text: 'unwrap()', kind: 'code' });
    expect(frameOf('do we reference process.env.DATABASE_URL anywhere').object).toEqual({ text: 'process.env.DATABASE_URL', kind: 'code' });
  });

  it('reads a directory named like an English word only in a place slot', () => {
    expect(frameOf('list files in and').directory).toBe('and');
    expect(frameOf('search for user and order')).toMatchObject({ object: { text: 'user and order' } });
    expect(frameOf('search for user and order').directory).toBeUndefined();
    expect(frameOf('what is in src/in').directory).toBe('src/in');
  });

  it('reads file types, hidden files, recursion and name patterns as filters', () => {
    expect(frameOf('grep TODO in python files').filters).toEqual({ type: '*.py' });
    expect(frameOf('list everything in src including hidden files, recursively').filters).toEqual({ hidden: 'include', recursive: true });
    expect(frameOf('files with test in the name').name).toBe('*test*');
    expect(frameOf('files ending in .lock').name).toBe('*.lock');
    expect(frameOf('lines that end with TODO').lineRegex).toBe('TODO$');
  });
});

describe('Sentence', () => {
  it('keeps a call\'s parentheses and a regex\'s own punctuation, and drops sentence punctuation', () => {
    expect(new Sentence('is unwrap() used in src? err(or)?: #!').tokens.map((token) => token.text)).toEqual(['is', 'unwrap()', 'used', 'in', 'src', 'err(or)?:', '#!']);
  });

  it('never lets a phrase claim a quoted string next to it', () => {
    const sentence = new Sentence("search for 'and' in docs");
    sentence.takeFirst(/\s*\bin\s+docs/);
    expect(sentence.rest().map((token) => token.text)).toEqual(['search', 'for', 'and']);
  });
});
