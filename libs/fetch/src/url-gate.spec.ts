import { QuarryError } from '@quarry/contracts';
import { parseAllowList } from './address-policy';
import { gateUrl, MAX_URL_LENGTH, normalizeHost } from './url-gate';

function refusal(input: string, allow?: string): QuarryError {
  try {
    gateUrl(input, allow === undefined ? {} : { allow: parseAllowList(allow) });
  } catch (error) {
    expect(error).toBeInstanceOf(QuarryError);
    expect((error as QuarryError).permanent).toBe(true);
    expect((error as QuarryError).suggestion).toBeTruthy();
    return error as QuarryError;
  }
  throw new Error(`gateUrl accepted ${input}`);
}

describe('gateUrl blocks internal hosts (url_blocked)', () => {
  it.each([
    // every spelling of 127.0.0.1 that WHATWG URL parsing accepts
    'http://127.0.0.1/',
    'https://127.0.0.1/',
    'http://127.0.0.1:8080/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://0x7F.0.0.1/',
    'http://0177.0.0.1/',
    'http://0177.1/',
    'http://127.1/',
    'http://127.0.1/',
    'http://127.000.000.001/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
    'http://127。0。0。1/',
    'http://１２７.０.０.１/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    // "this network", names, metadata, private, mapped/translated forms
    'http://0/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://localhost/',
    'http://LOCALHOST/',
    'http://localhost./',
    'http://localhost:8080/',
    'http://api.localhost/',
    'http://a.b.localhost:8080/',
    'http://ｌｏｃａｌｈｏｓｔ/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://168.63.129.16/',
    'http://10.0.0.1/',
    'http://192.168.0.1/',
    'http://172.16.0.1/',
    'http://100.64.0.1/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[::ffff:a00:1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:a00:1::]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://192.0.2.1/',
    // fragment and backslash tricks: the host is still 127.0.0.1
    'http://127.0.0.1#@a.com/',
    'http://127.0.0.1\\@a.com/',
    'http://127.0.0.1:80\\@a.com/',
  ])('%s', (input) => {
    const error = refusal(input);
    expect(error.kind).toBe('url_blocked');
    expect(error.message).toMatch(/points at .*(address|name)/);
  });

  it('names the address and the rule', () => {
    expect(refusal('http://0x7f.1/').message).toBe('URL "http://0x7f.1/" points at 127.0.0.1, a loopback address.');
    expect(refusal('http://10.0.0.5/').message).toMatch(/10\.0\.0\.5, a private address/);
    expect(refusal('http://localhost/').message).toMatch(/localhost, a loopback name/);
  });

  it('keeps localhost blocked even when the operator allows 127.0.0.1/32', () => {
    expect(refusal('http://localhost:8080/', '127.0.0.1/32').kind).toBe('url_blocked');
    expect(gateUrl('http://127.0.0.1:8080/a', { allow: parseAllowList('127.0.0.1/32') }).href).toBe('http://127.0.0.1:8080/a');
    expect(gateUrl('http://[::1]:8080/', { allow: parseAllowList('::1/128') }).href).toBe('http://[::1]:8080/');
  });
});

describe('gateUrl refuses invalid URLs (url_invalid)', () => {
  it.each([
    // credentials, including the userinfo trick that hides the real host
    ['http://a.com@127.0.0.1/', /credentials/],
    ['http://user:pass@example.com/', /credentials/],
    ['http://:pass@example.com/', /credentials/],
    ['https://user@example.com/', /credentials/],
    // schemes
    ['file:///etc/passwd', /file: scheme/],
    ['gopher://example.com/', /gopher: scheme/],
    ['ftp://example.com/', /ftp: scheme/],
    ['data:text/html,<script>alert(1)</script>', /data: scheme/],
    ['javascript:alert(1)', /javascript: scheme/],
    ['ws://example.com/', /ws: scheme/],
    ['blob:https://example.com/uuid', /blob: scheme/],
    ['mailto:a@example.com', /mailto: scheme/],
    ['dict://example.com:11211/', /dict: scheme/],
    ['ldap://example.com/', /ldap: scheme/],
    // ports
    ['http://example.com:22/', /port 22/],
    ['http://example.com:25/', /port 25/],
    ['http://example.com:0/', /port 0/],
    ['http://example.com:21/', /port 21/],
    ['http://example.com:1023/', /port 1023/],
    ['http://example.com:65536/', /not a valid absolute URL/],
    // not URLs
    ['', /not a valid absolute URL/],
    ['example.com', /not a valid absolute URL/],
    ['//example.com/', /not a valid absolute URL/],
    ['http://', /not a valid absolute URL/],
    ['http://exa mple.com/', /not a valid absolute URL/],
    ['http://[::1/', /not a valid absolute URL/],
    ['http://1.2.3.4.5/', /not a valid absolute URL/],
    ['http://256.0.0.1/', /not a valid absolute URL/],
    // empty labels
    ['http://example..com/', /empty label/],
    ['http://example.com../', /empty label/],
    // length
    [`http://example.com/${'a'.repeat(MAX_URL_LENGTH)}`, /limit is 8,192/],
  ])('%s', (input, message) => {
    const error = refusal(input);
    expect(error.kind).toBe('url_invalid');
    expect(error.message).toMatch(message);
  });

  it('never quotes a password back', () => {
    expect(refusal('ftp://user:hunter2@example.com/').message).not.toContain('hunter2');
    expect(refusal('http://user:hunter2@example.com/').message).not.toContain('hunter2');
  });
});

describe('gateUrl refuses public addresses written in an ambiguous numeric form', () => {
  it.each([
    ['http://0127.0.0.1/', '87.0.0.1'], // octal to WHATWG, 127.0.0.1 to inet_aton
    ['http://010.8.8.8/', '8.8.8.8'],
    ['http://134744072/', '8.8.8.8'],
    ['http://0x8.0x8.0x8.0x8/', '8.8.8.8'],
    ['http://8.526344/', '8.8.8.8'],
    ['http://%38.8.8.8/', '8.8.8.8'],
    ['http://0127.0.0.1:8080/x', '87.0.0.1'],
  ])('%s (%s)', (input, address) => {
    const error = refusal(input);
    expect(error.kind).toBe('url_blocked');
    expect(error.message).toContain(`here: ${address}`);
  });

  it('judges a redirect on its Location as written, not as resolved', () => {
    const resolved = new URL('//0127.0.0.1/next', 'https://example.com/start').href;
    expect(resolved).toBe('https://87.0.0.1/next');
    expect(() => gateUrl(resolved, { raw: '//0127.0.0.1/next' })).toThrow(/parsers read differently/);
    expect(gateUrl(new URL('/next', 'https://8.8.8.8/').href, { raw: '/next' }).href).toBe('https://8.8.8.8/next');
  });
});

describe('gateUrl accepts and normalizes public URLs', () => {
  it.each([
    ['HTTP://Example.COM./Path?q=1#frag', 'http://example.com/Path?q=1'],
    ['https://docs.example.org/guide', 'https://docs.example.org/guide'],
    ['http://example.com:80/', 'http://example.com/'],
    ['https://example.com:443/', 'https://example.com/'],
    ['http://example.com:443/', 'http://example.com:443/'],
    ['https://example.com:80/', 'https://example.com:80/'],
    ['http://example.com:1024/', 'http://example.com:1024/'],
    ['http://example.com:8080/x', 'http://example.com:8080/x'],
    ['http://example.com:65535/', 'http://example.com:65535/'],
    ['http://@example.com/', 'http://example.com/'],
    ['http://8.8.8.8/', 'http://8.8.8.8/'],
    ['http://8.8.8.8./', 'http://8.8.8.8/'],
    ['http://8.8.8.8:8080/', 'http://8.8.8.8:8080/'],
    ['http://cafe.be/', 'http://cafe.be/'],
    ['http://172.32.0.1/', 'http://172.32.0.1/'],
    ['http://172.15.255.255/', 'http://172.15.255.255/'],
    ['https://93.184.216.34:8443/x', 'https://93.184.216.34:8443/x'],
    ['http://[2606:4700::1111]/', 'http://[2606:4700::1111]/'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
    ['  https://example.com/lead-and-trail  ', 'https://example.com/lead-and-trail'],
    ['https://example.com/a b', 'https://example.com/a%20b'],
  ])('%s → %s', (input, expected) => {
    expect(gateUrl(input).href).toBe(expected);
  });

  it('normalizeHost lower-cases and drops exactly one trailing dot', () => {
    expect(normalizeHost('Example.COM.')).toBe('example.com');
    expect(normalizeHost('example.com..')).toBe('example.com.');
  });
});
