import iconv from 'iconv-lite';
import { canonicalCharset, declaredCharset, detectCharset } from './charset';
import { documentFormat, parseContentType } from './content-types';
import { extractText, extractTitle } from './text-extraction';

const page = `<!doctype html><html><head><title> Guide &amp; More </title><style>.x { color: red }</style></head><body>
  <header><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>Site banner</header>
  <main><article><header><h1>Install the tool</h1><p>by Ann</p></header>
  <p>Run <code>npm i</code>, then read <a href="/guide/next">the next page</a>, <a href="https://x.test/">https://x.test/</a>,
     <a href="javascript:alert(1)">click</a>, <a href="#top">top</a> and <a href="other">a sibling</a>.</p>
  <h2>Steps</h2><ul><li>One</li><li>Two <b>bold</b></li></ul><ol><li>first</li><li>second</li></ol>
  <h3>Reference</h3>
  <table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
  <pre>code  block
   indented</pre>
  <script>alert("x")</script><noscript>enable js</noscript><svg><title>icon</title><text>svg text</text></svg>
  <form><input value="q"><button>Go</button></form><img src="/logo.png" alt="Logo">
  <footer>Article footer</footer>
  </article></main><aside>Related links</aside><footer>© 2026 Site</footer></body></html>`;

describe('extractText: HTML', () => {
  const result = extractText(Buffer.from(page), { mediaType: 'text/html' }, 'html', { baseUrl: 'https://docs.example.org/guide/start' });

  it('takes the title from <title>, entities decoded and whitespace trimmed', () => {
    expect(result.title).toBe('Guide & More');
  });

  it('keeps headings (marked, not shouted), paragraphs, lists, tables and preformatted text', () => {
    expect(result.text).toBe(
      [
        '# Install the tool',
        '',
        'by Ann',
        '',
        'Run npm i, then read the next page [https://docs.example.org/guide/next], https://x.test/, click, top and a sibling [https://docs.example.org/guide/other].',
        '',
        '## Steps',
        '- One',
        '- Two bold',
        '',
        ' 1. first',
        ' 2. second',
        '',
        '### Reference',
        '',
        'Name   Value',
        'a      1',
        '',
        'code  block',
        '   indented',
        '',
        'Article footer',
      ].join('\n'),
    );
  });

  it('drops scripts, styles, navigation, page header/footer, asides, forms, svg and images', () => {
    for (const noise of ['alert', 'color: red', 'Home', 'Site banner', 'Related links', '© 2026', 'enable js', 'svg text', 'icon', 'Go', 'Logo', 'javascript:']) {
      expect(result.text).not.toContain(noise);
    }
  });

  it('works on a fragment without <html> or <title>', () => {
    const fragment = extractText(Buffer.from('<p>Just <em>this</em>.</p>'), { mediaType: 'text/html' }, 'html', { baseUrl: 'https://a.test/' });
    expect(fragment).toEqual({ text: 'Just this.', charset: 'utf-8' });
  });
});

describe('extractText: other formats', () => {
  it('pretty-prints JSON, and returns JSON cut at the cap as it is', () => {
    expect(extractText(Buffer.from('{"a":[1,2]}'), { mediaType: 'application/json' }, 'json', { baseUrl: 'https://a.test/' }).text).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(extractText(Buffer.from('{"a":[1,2'), { mediaType: 'application/json' }, 'json', { baseUrl: 'https://a.test/', truncated: true }).text).toBe('{"a":[1,2');
  });

  it.each([
    ['xml', '<?xml version="1.0"?>\n<root><a>1</a></root>'],
    ['text', 'plain\ttext\r\nwith CRLF'],
    ['markdown', '# Title\n\n```js\ncode\n```\n'],
  ] as const)('keeps %s as it is', (format, body) => {
    expect(extractText(Buffer.from(body), { mediaType: 'x/y' }, format, { baseUrl: 'https://a.test/' }).text).toBe(body);
  });
});

describe('charsets', () => {
  it.each([
    ['latin1 page from the header', 'text/html; charset=latin1', iconv.encode('<p>Ça coûte 5 €?</p>'.replace('€', 'E'), 'latin1'), 'Ça coûte 5 E?', 'windows-1252'],
    ['windows-1252 page from <meta charset>', 'text/html', iconv.encode('<meta charset="windows-1252"><p>“quoted” – dash €</p>', 'windows-1252'), '“quoted” – dash €', 'windows-1252'],
    ['Shift_JIS page from <meta http-equiv>', 'text/html', iconv.encode('<meta http-equiv="content-type" content="text/html; charset=shift_jis"><p>こんにちは世界</p>', 'shift_jis'), 'こんにちは世界', 'shift_jis'],
    ['EUC-JP page from the header', 'text/html; charset="EUC-JP"', iconv.encode('<p>日本語</p>', 'euc-jp'), '日本語', 'euc-jp'],
    ['UTF-16LE page with a BOM', 'text/html', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('<p>wide ✓</p>', 'utf-16le')]), 'wide ✓', 'utf-16le'],
    ['UTF-8 BOM beating a wrong header', 'text/html; charset=windows-1252', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>ünïcode</p>')]), 'ünïcode', 'utf-8'],
    ['the header beating <meta>', 'text/html; charset=utf-8', Buffer.from('<meta charset="windows-1252"><p>naïve</p>'), 'naïve', 'utf-8'],
    ['a <meta> claiming UTF-16 on an ASCII page', 'text/html', Buffer.from('<meta charset="utf-16"><p>straße</p>'), 'straße', 'utf-8'],
  ])('%s', (_name, header, body, text, charset) => {
    const contentType = parseContentType(header);
    expect(contentType).toBeDefined();
    const result = extractText(body, contentType!, 'html', { baseUrl: 'https://a.test/' });
    expect(result.text).toBe(text);
    expect(result.charset).toBe(charset);
  });

  it('reads an XML declaration', () => {
    const body = iconv.encode('<?xml version="1.0" encoding="ISO-8859-1"?><r>é</r>', 'latin1');
    expect(declaredCharset(body, 'xml')).toBe('windows-1252');
    expect(extractText(body, { mediaType: 'application/xml' }, 'xml', { baseUrl: 'https://a.test/' }).text).toBe('<?xml version="1.0" encoding="ISO-8859-1"?><r>é</r>');
  });

  it('ignores <meta> outside markup and unknown labels', () => {
    expect(detectCharset(Buffer.from('<meta charset="shift_jis">'), undefined, 'text')).toBe('utf-8');
    expect(canonicalCharset('x-klingon')).toBeUndefined();
    expect(canonicalCharset(' Shift_JIS ')).toBe('shift_jis');
    expect(canonicalCharset('US-ASCII')).toBe('windows-1252');
  });
});

describe('extractTitle', () => {
  it.each([
    ['<title>Simple</title>', 'Simple'],
    ['<TITLE lang="en">  Multi\n   line  </TITLE>', 'Multi line'],
    ['<title>&lt;Tags&gt; &amp; &#x263A;</title>', '<Tags> & ☺'],
    ['<title></title>', undefined],
    ['<p>no title</p>', undefined],
  ])('%p → %p', (html, title) => {
    expect(extractTitle(html)).toBe(title);
  });
});

describe('content types', () => {
  it.each([
    ['text/html; charset=UTF-8', 'text/html', 'utf-8', 'html'],
    ['application/xhtml+xml', 'application/xhtml+xml', undefined, 'html'],
    ['Application/JSON', 'application/json', undefined, 'json'],
    ['application/problem+json', 'application/problem+json', undefined, 'json'],
    ['application/rss+xml', 'application/rss+xml', undefined, 'xml'],
    ['text/xml; charset="iso-8859-1"', 'text/xml', 'iso-8859-1', 'xml'],
    ['text/plain', 'text/plain', undefined, 'text'],
    ['text/markdown; variant=GFM', 'text/markdown', undefined, 'markdown'],
    ['image/svg+xml', 'image/svg+xml', undefined, undefined],
    ['application/pdf', 'application/pdf', undefined, undefined],
    ['text/css', 'text/css', undefined, undefined],
  ])('%p', (header, mediaType, charset, format) => {
    const parsed = parseContentType(header);
    expect(parsed).toEqual({ mediaType, charset });
    expect(documentFormat(mediaType)).toBe(format);
  });

  it.each([undefined, '', 'html', ';charset=utf-8'])('%p is no content type', (header) => {
    expect(parseContentType(header)).toBeUndefined();
  });
});
