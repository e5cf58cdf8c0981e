import { MAX_PATTERN_LENGTH, parseMentions } from './index';
import type { MentionSyntaxError, ParsedMention } from './types';

/*
 * The grammar as a table: each prompt → what the parser finds, in text order, written compactly:
 *   file <path> [L<range>] [⟨candidates⟩]   dir <path>   bare <path>   search «q»   grep «re»   url <url>   refs [place] <target>
 *   <error kind> <raw>
 * Spans are checked for every case below (raw === slice of the prompt).
 */

function describeMention(m: ParsedMention): string {
  switch (m.kind) {
    case 'path': {
      const label = m.directory ? 'dir' : m.bare ? 'bare' : 'file';
      const range = m.range ? ` L${m.range.start}-${m.range.end ?? ''}` : '';
      const candidates = m.candidates.length > 1 ? ` ⟨${m.candidates.join('|')}⟩` : '';
      return `${label} ${m.path}${range}${candidates}`;
    }
    case 'search':
      return `search «${m.query}»`;
    case 'grep':
      return `grep «${m.pattern}»`;
    case 'url':
      return `url ${m.url}`;
    case 'symbol':
      return `symbol ${m.container === undefined ? '' : `${m.container}›`}${m.name}`;
    case 'refs':
      return `refs ${m.place ? 'place ' : ''}${m.target}`;
    case 'context':
      return m.task === undefined ? 'codebase' : `context «${m.task}»`;
  }
}

function summarize(text: string): string[] {
  const { mentions, errors } = parseMentions(text);
  const items: { at: number; line: string }[] = [
    ...mentions.map((m) => ({ at: m.span[0], line: describeMention(m) })),
    ...errors.map((e: MentionSyntaxError) => ({ at: e.span[0], line: `${e.kind} ${e.raw}` })),
  ];
  return items.sort((a, b) => a.at - b.at).map((item) => item.line);
}

const long = 'x'.repeat(MAX_PATTERN_LENGTH);

const cases: [name: string, prompt: string, expected: string[]][] = [
  // files and directories
  ['plain file', 'Review @src/app.ts please', ['file src/app.ts']],
  ['file at the start', '@README.md', ['file README.md']],
  ['file at the end', 'look at @docs/api.md', ['file docs/api.md']],
  ['directory', 'list @src/', ['dir src/']],
  ['nested directory', '@libs/mentions/src/ and more', ['dir libs/mentions/src/']],
  ['dot directory', '@./', ['dir ./']],
  ['dotfile', '@.eslintrc.json', ['file .eslintrc.json']],
  ['hidden directory', '@.github/workflows/', ['dir .github/workflows/']],
  ['parent path kept as typed', '@../secrets.txt', ['file ../secrets.txt']],
  ['absolute path kept as typed', '@/etc/passwd', ['file /etc/passwd']],
  ['home path kept as typed', '@~/notes.md', ['file ~/notes.md']],
  ['dashes and underscores', '@my-lib/some_file.test.ts', ['file my-lib/some_file.test.ts']],
  ['brackets inside a path (Next.js routes)', '@app/[id]/page.tsx', ['file app/[id]/page.tsx']],
  ['parentheses inside a path', '@photos/img(1).png', ['file photos/img(1).png']],
  ['braces inside a path', '@src/{a}.ts', ['file src/{a}.ts']],
  ['hash that is not a range belongs to the path', '@lang/c#/notes.md', ['file lang/c#/notes.md']],
  ['anchor-like hash stays in the path', '@docs/api.md#usage', ['file docs/api.md#usage']],
  ['at sign inside a path', '@node_modules/@types/node/', ['dir node_modules/@types/node/']],
  ['windows-ish colon path', '@C:notes.txt', ['file C:notes.txt']],
  ['colon then line number stays a path', '@src/app.ts:10', ['file src/app.ts:10']],

  // bare words
  ['bare word', 'thanks @alice', ['bare alice']],
  ['bare word with punctuation', 'ping @alice, then', ['bare alice ⟨alice,|alice⟩']],
  ['bare Makefile', '@Makefile', ['bare Makefile']],
  ['bare word then colon and space', '@bob: can you look', ['bare bob ⟨bob:|bob⟩']],
  ['bare number', 'meet @5pm', ['bare 5pm']],

  // ranges
  ['single line', '@src/app.ts#L10', ['file src/app.ts L10-10']],
  ['range', '@src/app.ts#L10-20', ['file src/app.ts L10-20']],
  ['GitHub style range', '@src/app.ts#L10-L20', ['file src/app.ts L10-20']],
  ['open range', '@src/app.ts#L100-', ['file src/app.ts L100-']],
  ['lowercase l accepted', '@src/app.ts#l5-7', ['file src/app.ts L5-7']],
  ['same start and end', '@a.ts#L3-3', ['file a.ts L3-3']],
  ['range then period', 'see @a.ts#L1-2.', ['file a.ts L1-2']],
  ['range then comma', '@a.ts#L1-2, @b.ts#L4', ['file a.ts L1-2', 'file b.ts L4-4']],
  ['range in parentheses', '(see @a.ts#L5-9)', ['file a.ts L5-9']],
  ['range with leading zeros', '@a.ts#L007', ['file a.ts L7-7']],
  ['range on a bare name', '@Makefile#L1-5', ['bare Makefile L1-5']],
  ['reversed range', '@a.ts#L20-10', ['range_invalid @a.ts#L20-10']],
  ['line zero', '@a.ts#L0', ['range_invalid @a.ts#L0']],
  ['range from zero', '@a.ts#L0-5', ['range_invalid @a.ts#L0-5']],
  ['not a number', '@a.ts#Lx', ['range_invalid @a.ts#Lx']],
  ['L alone', '@a.ts#L', ['range_invalid @a.ts#L']],
  ['missing L', '@a.ts#10-20', ['range_invalid @a.ts#10-20']],
  ['double dash', '@a.ts#L10--20', ['range_invalid @a.ts#L10--20']],
  ['two ranges', '@a.ts#L1-2,5-6', ['range_invalid @a.ts#L1-2,5-6']],
  ['trailing garbage', '@a.ts#L10x', ['range_invalid @a.ts#L10x']],
  ['huge line number', '@a.ts#L12345678901', ['range_invalid @a.ts#L12345678901']],
  ['range on a directory', '@src/#L10', ['range_invalid @src/#L10']],
  ['range error does not hide the next mention', '@a.ts#L0 and @b.ts', ['range_invalid @a.ts#L0', 'file b.ts']],

  // quoted paths
  ['quoted path with spaces', 'open @"docs/my notes.md" now', ['file docs/my notes.md']],
  ['quoted path with range', '@"my file.ts"#L3-4', ['file my file.ts L3-4']],
  ['quoted path with bad range', '@"my file.ts"#L4-3', ['range_invalid @"my file.ts"#L4-3']],
  ['quoted directory', '@"My Documents/"', ['dir My Documents/']],
  ['quoted path with escaped quote', '@"say \\"hi\\".txt"', ['file say "hi".txt']],
  ['quoted path with escaped backslash', '@"a\\\\b.txt"', ['file a\\b.txt']],
  ['quoted bare word is not bare', '@"alice"', ['file alice']],
  ['quoted path then punctuation', 'see @"a b.md".', ['file a b.md']],
  ['quoted path then text', '@"a b.md"#intro', ['file a b.md']],
  ['unterminated quoted path', 'see @"docs/my notes.md and more', ['mention_invalid @"docs/my notes.md and more']],
  ['unterminated quote stops at the line end', '@"a b\nnext @c.ts', ['mention_invalid @"a b', 'file c.ts']],
  ['unterminated quote stops before CRLF', '@"a b\r\n@c.ts', ['mention_invalid @"a b', 'file c.ts']],
  ['empty quoted path', '@""', ['mention_invalid @""']],
  ['smart quotes', '@“my file.md”', ['mention_invalid @“my file.md”']],

  // unicode
  ['unicode path', '@docs/über/naïve.md', ['file docs/über/naïve.md']],
  ['CJK path', '@文档/说明.md', ['file 文档/说明.md']],
  ['emoji path', '@notes/🚀.md', ['file notes/🚀.md']],
  ['unicode quoted path', '@"документы/мой файл.txt"', ['file документы/мой файл.txt']],
  ['non-breaking space ends a path', '@a.ts\u00a0next', ['file a.ts']],
  ['ideographic space before a mention', '見て\u3000@a.ts', ['file a.ts']],

  // trailing punctuation
  ['period', 'see @notes.md.', ['file notes.md ⟨notes.md.|notes.md⟩']],
  ['comma', '@a.ts, @b.ts', ['file a.ts ⟨a.ts,|a.ts⟩', 'file b.ts']],
  ['semicolon', '@a.ts; then', ['file a.ts ⟨a.ts;|a.ts⟩']],
  ['question mark', 'what is in @a.ts?', ['file a.ts ⟨a.ts?|a.ts⟩']],
  ['exclamation', 'fix @a.ts!', ['file a.ts ⟨a.ts!|a.ts⟩']],
  ['several punctuation marks', 'really @a.ts?!', ['file a.ts ⟨a.ts?!|a.ts?|a.ts⟩']],
  ['ellipsis', 'hmm @a.ts...', ['file a.ts ⟨a.ts...|a.ts..|a.ts.|a.ts⟩']],
  ['directory then period', 'all of @src/.', ['dir src/ ⟨src/.|src/⟩']],
  ['only punctuation is no mention', 'at @... or @, or @!', []],
  ['closing parenthesis', '(see @a.ts)', ['file a.ts']],
  ['closing parenthesis and period', '(see @a.ts).', ['file a.ts']],
  ['closing bracket', '[@a.ts]', ['file a.ts']],
  ['markdown link text', '[@a.ts](https://x.org)', ['file a.ts']],
  ['closing brace', '{@a.ts}', ['file a.ts']],
  ['quotes around', '"@a.ts" and \'@b.ts\'', ['file a.ts', 'file b.ts']],
  ['angle brackets end a path', '@a.ts>b', ['file a.ts']],
  ['pipe ends a path', '| @a.ts| @b.ts |', ['file a.ts', 'file b.ts']],

  // where an @ may start a mention
  ['email', 'mail user@example.com', []],
  ['email with a dot path look', 'me@src/app.ts', []],
  ['after an opening parenthesis', '(@a.ts', ['file a.ts']],
  ['after a letter', 'x@a.ts', []],
  ['after a closing parenthesis', ')@a.ts', []],
  ['after a backtick span', '`x`@a.ts', []],
  ['after a tab', '\t@a.ts', ['file a.ts']],
  ['after a newline', 'x\n@a.ts', ['file a.ts']],
  ['lone at sign', 'meet @ 5pm', []],
  ['at sign at the end', 'end @', []],
  ['double at sign', '@@a.ts', []],
  ['at then hash', '@#L10', []],
  ['escaped at sign', '\\@a.ts and @b.ts', ['file b.ts']],
  ['escaped backslash then at is after a backslash', '\\\\@a.ts', []],
  ['escaped backtick does not open code', '\\` @a.ts `', ['file a.ts']],
  ['many mentions on a line', '@a.ts @b.ts @c/ @search:x @url:https://e.org', ['file a.ts', 'file b.ts', 'dir c/', 'search «x»', 'url https://e.org']],
  ['CRLF lines', 'one @a.ts\r\ntwo @b.ts\r\n', ['file a.ts', 'file b.ts']],

  // inline code
  ['inline code', 'use `@a.ts` literally and @b.ts', ['file b.ts']],
  ['double backtick code', 'use ``x ` @a.ts`` and @b.ts', ['file b.ts']],
  ['unmatched backtick is literal', 'a ` then @a.ts', ['file a.ts']],
  ['backtick runs of different lengths do not close', '`` @a.ts ` @b.ts', ['file a.ts', 'file b.ts']],
  ['inline code across a line break', '`one\n@a.ts` @b.ts', ['file b.ts']],
  ['inline code does not cross a blank line', '` one\n\n@a.ts `', ['file a.ts']],
  ['triple backticks inline', 'run ```@a.ts``` then @b.ts', ['file b.ts']],

  // fenced blocks
  ['fenced block', 'before @a.ts\n```\n@b.ts\n```\nafter @c.ts', ['file a.ts', 'file c.ts']],
  ['fence with info string', '```ts title="x"\n@b.ts\n```\n@c.ts', ['file c.ts']],
  ['tilde fence', '~~~\n@b.ts\n~~~\n@c.ts', ['file c.ts']],
  ['longer closing fence', '```\n@b.ts\n`````\n@c.ts', ['file c.ts']],
  ['shorter fence does not close', '````\n@b.ts\n```\n@c.ts\n````\n@d.ts', ['file d.ts']],
  ['tilde does not close backticks', '```\n@b.ts\n~~~\n@c.ts\n```\n@d.ts', ['file d.ts']],
  ['unterminated fence runs to the end', 'x\n```\n@b.ts\n@c.ts', []],
  ['indented fence', '- item\n  ```\n  @b.ts\n  ```\n@c.ts', ['file c.ts']],
  ['fence with CRLF', '```\r\n@b.ts\r\n```\r\n@c.ts', ['file c.ts']],
  ['closing fence with text is not a closer', '```\n@b.ts\n``` more\n@c.ts', []],
  ['two backticks are no fence', '``\n@b.ts\n``', []],

  // search
  ['search', 'find @search:"database url"', ['search «database url»']],
  ['search unquoted word', '@search:TODO', ['search «TODO»']],
  ['search unquoted then period', 'look for @search:TODO.', ['search «TODO»']],
  ['search with escaped quote', '@search:"say \\"hi\\""', ['search «say "hi"»']],
  ['search with escaped backslash', '@search:"C:\\\\temp"', ['search «C:\\temp»']],
  ['search with other backslash kept', '@search:"a\\nb"', ['search «a\\nb»']],
  ['search with unicode', '@search:"naïve café"', ['search «naïve café»']],
  ['search empty', '@search:""', ['pattern_invalid @search:""']],
  ['search with nothing', 'try @search: later', ['pattern_invalid @search:']],
  ['search at the end', '@search:', ['pattern_invalid @search:']],
  ['search unterminated', '@search:"foo bar', ['mention_invalid @search:"foo bar']],
  ['search with single quotes', "@search:'foo bar'", ["mention_invalid @search:'foo bar'"]],
  ['search with smart quotes', '@search:“foo”', ['mention_invalid @search:“foo”']],
  ['search at the limit', `@search:"${long}"`, [`search «${long}»`]],
  ['search over the limit', `@search:"${long}x"`, [`pattern_invalid @search:"${long}x"`]],
  ['search in parentheses', '(@search:foo)', ['search «foo»']],

  // grep
  ['grep', '@grep:"TODO\\(\\w+\\)"', ['grep «TODO\\(\\w+\\)»']],
  ['grep keeps double backslash', '@grep:"a\\\\d"', ['grep «a\\\\d»']],
  ['grep with escaped quote', '@grep:"say \\"(\\w+)\\""', ['grep «say "(\\w+)"»']],
  ['grep ending in an escaped backslash', '@grep:"end\\\\" next', ['grep «end\\\\»']],
  ['grep unquoted', '@grep:^import', ['grep «^import»']],
  ['grep unquoted with escaped paren', '@grep:foo\\)', ['grep «foo\\)»']],
  ['grep unquoted with balanced parens in parentheses', '(@grep:f(x))', ['grep «f(x)»']],
  ['grep unquoted keeps an escaped trailing dot', '@grep:end\\.', ['grep «end\\.»']],
  ['grep inline flag', '@grep:"(?i)todo"', ['grep «(?i)todo»']],
  ['grep empty', '@grep:""', ['pattern_invalid @grep:""']],
  ['grep unterminated', '@grep:"foo(', ['mention_invalid @grep:"foo(']],
  ['grep over the limit', `@grep:"${long}1"`, [`pattern_invalid @grep:"${long}1"`]],

  // urls
  ['url', '@url:https://example.org/guide', ['url https://example.org/guide']],
  ['http url', '@url:http://example.org', ['url http://example.org']],
  ['url with query and fragment', '@url:https://e.org/a?b=1&c=2#x', ['url https://e.org/a?b=1&c=2#x']],
  ['url then period', 'read @url:https://e.org/a.', ['url https://e.org/a']],
  ['url in parentheses', '(see @url:https://e.org/a)', ['url https://e.org/a']],
  ['url with balanced parentheses', '@url:https://en.wikipedia.org/wiki/Foo_(bar)', ['url https://en.wikipedia.org/wiki/Foo_(bar)']],
  ['url with balanced parentheses in parentheses', '(@url:https://w.org/Foo_(bar)).', ['url https://w.org/Foo_(bar)']],
  ['url in quotes', '"@url:https://e.org/a"', ['url https://e.org/a']],
  ['quoted url', '@url:"https://e.org/a b"', ['url https://e.org/a b']],
  ['url with port', '@url:http://127.0.0.1:8080/x', ['url http://127.0.0.1:8080/x']],
  ['url unicode host', '@url:https://bücher.de/', ['url https://bücher.de/']],
  ['ftp url', '@url:ftp://e.org/file', ['mention_invalid @url:ftp://e.org/file']],
  ['javascript url', '@url:javascript:alert(1)', ['mention_invalid @url:javascript:alert(1)']],
  ['file url', '@url:file:///etc/passwd', ['mention_invalid @url:file:///etc/passwd']],
  ['url without scheme', '@url:example.org/x', ['mention_invalid @url:example.org/x']],
  ['url host and port without scheme', '@url:localhost:3000', ['mention_invalid @url:localhost:3000']],
  ['url empty', '@url: https://e.org', ['mention_invalid @url:']],
  ['url unparseable', '@url:https://', ['mention_invalid @url:https://']],
  ['bare http url', 'see @https://e.org/x.', ['mention_invalid @https://e.org/x']],

  // unknown prefixes
  ['misspelled search', '@serach:"x"', ['mention_invalid @serach:"x"']],
  ['misspelled grep', '@gerp:"x"', ['mention_invalid @gerp:"x"']],
  ['misspelled url unquoted', '@ulr:https://e.org', ['mention_invalid @ulr:https://e.org']],
  ['uppercase prefix', '@Search:"x"', ['mention_invalid @Search:"x"']],
  ['unknown prefix with quotes', '@file:"a.ts"', ['mention_invalid @file:"a.ts"']],
  ['unknown prefix with unterminated quotes', '@file:"a.ts and more', ['mention_invalid @file:"a.ts and more']],
  ['unknown word with colon is a path', '@notes:draft.md', ['file notes:draft.md']],

  // symbols
  ['symbol', 'where is @symbol:parseMentions defined?', ['symbol parseMentions']],
  ['symbol with a container', '@symbol:Server.start', ['symbol Server›start']],
  ['symbol, C++ qualified', '@symbol:ns::Foo::bar', ['symbol Foo›bar']],
  ['symbol, PHP namespace', '@symbol:"App\\Models\\User"', ['symbol Models›User']],
  ['symbol, Ruby instance method', '@symbol:Foo#bar', ['symbol Foo›bar']],
  ['symbol with trailing sentence punctuation', 'See @symbol:Server.start.', ['symbol Server›start']],
  ['symbol with call parentheses', '(@symbol:start())', ['symbol start']],
  ['symbol in parentheses', '(see @symbol:start)', ['symbol start']],
  ['symbol quoted', '@symbol:"Server.start"', ['symbol Server›start']],
  ['symbol with a dollar and digits', '@symbol:$el2', ['symbol $el2']],
  ['symbol, unicode name', '@symbol:größe', ['symbol größe']],
  ['symbol, empty', '@symbol: x', ['symbol_invalid @symbol:']],
  ['symbol, empty quotes', '@symbol:""', ['symbol_invalid @symbol:""']],
  ['symbol, regex syntax refused', '@symbol:foo.*bar', ['symbol_invalid @symbol:foo.*bar']],
  ['symbol, regex bomb refused', '@symbol:"(a+)+$"', ['symbol_invalid @symbol:"(a+)+$"']],
  ['symbol, spaces in quotes refused', '@symbol:"my func"', ['symbol_invalid @symbol:"my func"']],
  ['symbol, too long', `@symbol:${'a'.repeat(257)}`, [`symbol_invalid @symbol:${'a'.repeat(257)}`]],
  ['symbol, only separators', '@symbol:::', ['symbol_invalid @symbol:::']],
  ['symbol, single quotes', "@symbol:'foo'", ["mention_invalid @symbol:'foo'"]],
  ['symbol, unterminated quote', '@symbol:"foo', ['mention_invalid @symbol:"foo']],
  ['misspelled symbol prefix', '@symbl:Foo', ['mention_invalid @symbl:Foo']],
  ['symbol inside code is left alone', 'run `@symbol:Foo` now', []],
  // references
  ['refs of a name', 'who calls @refs:parseMentions?', ['refs parseMentions']],
  ['refs of a method, quoted, with call parentheses', '@refs:"Ns::Server.start()"', ['refs Ns::Server.start']],
  ['refs with trailing sentence punctuation', 'See @refs:Server.start.', ['refs Server.start']],
  ['refs of a place', 'uses of @refs:src/app.ts:12 please', ['refs place src/app.ts:12']],
  ['refs of a place with a column, in parentheses', '(@refs:app.py:3:7)', ['refs place app.py:3:7']],
  ['refs, empty', '@refs: x', ['symbol_invalid @refs:']],
  ['refs, regex syntax refused', '@refs:foo.*bar', ['symbol_invalid @refs:foo.*bar']],
  ['refs, a path without a line refused', '@refs:src/app.ts', ['symbol_invalid @refs:src/app.ts']],
  ['misspelled refs prefix', '@ref:Foo', ['mention_invalid @ref:Foo']],

  // mixed
  [
    'the issue example',
    "Review @src/app.ts#L10-40 against @docs/api.md and @grep:\"TODO\\(\\w+\\)\"",
    ['file src/app.ts L10-40', 'file docs/api.md', 'grep «TODO\\(\\w+\\)»'],
  ],
  ['mentions and errors interleaved', '@a.ts#L0 @b.ts @serach:"x" @c/', ['range_invalid @a.ts#L0', 'file b.ts', 'mention_invalid @serach:"x"', 'dir c/']],
  ['markdown list', '- @a.ts\n- @b.ts\n* @c/', ['file a.ts', 'file b.ts', 'dir c/']],
  ['blockquote', '> @a.ts', ['file a.ts']],
  ['no at sign', 'plain prose with no mentions at all', []],
  ['empty text', '', []],
];

describe('parseMentions: the grammar table', () => {
  it('has well over 120 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(120);
  });

  it.each(cases)('%s', (_name, prompt, expected) => {
    expect(summarize(prompt)).toEqual(expected);
    const { mentions, errors } = parseMentions(prompt);
    for (const item of [...mentions, ...errors]) expect(prompt.slice(item.span[0], item.span[1])).toBe(item.raw);
  });
});

describe('parseMentions: suggestions', () => {
  const suggestionFor = (prompt: string) => parseMentions(prompt).errors[0];

  it.each([
    ['@a.ts#L20-10', 'range_invalid', 'Did you mean @a.ts#L10-20?'],
    ['@a.ts#L0', 'range_invalid', 'Did you mean @a.ts#L1?'],
    ['@a.ts#L0-5', 'range_invalid', 'Did you mean @a.ts#L1-5?'],
    ['@a.ts#10-20', 'range_invalid', 'Did you mean @a.ts#L10-20?'],
    ['@"my file.ts"#L4-3', 'range_invalid', 'Did you mean @"my file.ts"#L3-4?'],
    ['@serach:"x"', 'mention_invalid', 'Did you mean @search:"x"?'],
    ['@gerp:"x"', 'mention_invalid', 'Did you mean @grep:"x"?'],
    ['@Search:"x"', 'mention_invalid', 'Did you mean @search:"x"?'],
    ['@ulr:https://e.org', 'mention_invalid', 'Did you mean @url:https://e.org?'],
    ['@https://e.org/x', 'mention_invalid', 'Did you mean @url:https://e.org/x?'],
    ['@url:example.org', 'mention_invalid', 'Did you mean @url:https://example.org?'],
    ['@search:"foo bar', 'mention_invalid', 'Close the quote: @search:"foo bar"'],
    ['@"a b', 'mention_invalid', 'Close the quote: @"a b"'],
    ["@search:'foo bar'", 'mention_invalid', 'Did you mean @search:"foo bar"?'],
    ['@“my file.md”', 'mention_invalid', 'Did you mean @"my file.md"?'],
    ['@symbl:Server.start', 'mention_invalid', 'Did you mean @symbol:Server.start?'],
    ['@symbol:', 'symbol_invalid', 'Write the name right after the colon, e.g. @symbol:parseMentions or @symbol:Server.start'],
    ['@symbol:a+b', 'symbol_invalid', 'To find text or a pattern, use @search:"…" or @grep:"…" instead.'],
    ['@ref:Server.start', 'mention_invalid', 'Did you mean @refs:Server.start?'],
    ['@refs:', 'symbol_invalid', 'Write the name right after the colon, e.g. @refs:parseMentions or @refs:Server.start'],
  ])('%s → %s: %s', (prompt, kind, suggestion) => {
    expect(suggestionFor(prompt)).toMatchObject({ kind, suggestion });
  });

  it('explains the line-range forms for a range that is not one', () => {
    expect(suggestionFor('@a.ts#Lx')?.suggestion).toContain('@a.ts#L10-20');
    expect(suggestionFor('@a.ts#Lx')?.message).toBe('"#Lx" is not a line range');
  });

  it('lists the mention forms for an unknown prefix with no close match', () => {
    const error = suggestionFor('@file:"a.ts"');
    expect(error?.message).toBe('Unknown mention prefix @file:');
    expect(error?.suggestion).toContain('@search:"text"');
    expect(error?.suggestion).toContain('@"file:a.ts"');
  });

  it('says why a pattern is refused', () => {
    expect(suggestionFor('@search:""')?.message).toBe('Empty @search: pattern');
    expect(suggestionFor(`@grep:"${long}1"`)?.message).toBe(`The @grep: pattern is ${MAX_PATTERN_LENGTH + 1} characters long; the limit is ${MAX_PATTERN_LENGTH}`);
    expect(suggestionFor('@url:ftp://e.org')?.message).toBe('Only http and https addresses can be fetched, not ftp:');
  });
});

describe('parseMentions: the typed result', () => {
  it('gives every field of a symbol mention', () => {
    expect(parseMentions('fix @symbol:Server.start() now').mentions).toEqual([
      { kind: 'symbol', raw: '@symbol:Server.start()', span: [4, 26], symbol: 'Server.start', name: 'start', container: 'Server' },
    ]);
  });

  it('gives every field of a refs mention', () => {
    expect(parseMentions('@refs:Server.start and @refs:src/server.ts:3').mentions).toEqual([
      { kind: 'refs', raw: '@refs:Server.start', span: [0, 18], target: 'Server.start', place: false },
      { kind: 'refs', raw: '@refs:src/server.ts:3', span: [23, 44], target: 'src/server.ts:3', place: true },
    ]);
  });

  it('gives spans, raw text and every field of a path mention', () => {
    const prompt = 'Review @src/app.ts#L10-40 now';
    expect(parseMentions(prompt)).toEqual({
      mentions: [
        { kind: 'path', raw: '@src/app.ts#L10-40', span: [7, 25], path: 'src/app.ts', range: { start: 10, end: 40 }, directory: false, candidates: ['src/app.ts'], bare: false },
      ],
      errors: [],
    });
  });

  it('leaves the range end undefined for an open range and spans a trimmed mention without its punctuation', () => {
    const { mentions } = parseMentions('@a.ts#L100- and @notes.md.');
    expect(mentions[0]).toMatchObject({ range: { start: 100 }, raw: '@a.ts#L100-' });
    expect(mentions[0].kind === 'path' && mentions[0].range?.end).toBeUndefined();
    expect(mentions[1]).toMatchObject({ raw: '@notes.md', span: [16, 25], path: 'notes.md', candidates: ['notes.md.', 'notes.md'] });
  });

  it('returns mentions and errors each in text order', () => {
    const { mentions, errors } = parseMentions('@b.ts @a.ts#L0 @a.ts @c.ts#L9-1 @grep:""');
    expect(mentions.map((m) => m.raw)).toEqual(['@b.ts', '@a.ts']);
    expect(errors.map((e) => e.raw)).toEqual(['@a.ts#L0', '@c.ts#L9-1', '@grep:""']);
  });
});
