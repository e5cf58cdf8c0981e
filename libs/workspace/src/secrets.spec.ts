import fs from 'node:fs';
import path from 'node:path';
import { findSecrets, redactSecrets, secretPathReason } from './secrets';

/**
 * Fake credentials are assembled at run time, so that no string in this file looks like a real
 * one to a secret scanner (and none of them is real).
 */
const random = (length: number, alphabet = 'aB3xK9mQ2zR7tW5v') => Array.from({ length }, (_, index) => alphabet[(index * 7 + 3) % alphabet.length]).join('');
const AWS_KEY_ID = 'AKIA' + 'Z7Q2KX9M3B5T8W4R';
const AWS_SECRET = random(40, 'abcDEF123/+ghiJKL456');
const GITHUB_CLASSIC = 'gh' + 'p_' + random(36);
const GITHUB_FINE = 'github' + '_pat_' + random(22) + '_' + random(59);
const SLACK = 'xo' + 'xb-' + '1234567890-' + random(24);
const GOOGLE = 'AI' + 'za' + random(35, 'Sy0_-Abc9XyZ');
const OPENAI = 's' + 'k-' + 'proj-' + random(48);
const JWT = ['eyJ' + 'hbGciOiJIUzI1NiJ9', 'eyJ' + 'zdWIiOiIxMjM0NTY3ODkwIn0', random(43, 'dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk')].join('.');
const PEM = ['-----BEGIN RSA ' + 'PRIVATE KEY-----', random(64, 'MIIEow+/AbCd'), random(64, 'IBAAKCAQEA'), '-----END RSA ' + 'PRIVATE KEY-----'].join('\n');

describe('secretPathReason', () => {
  it.each([
    ['.env', 'environment file'],
    ['config/.env', 'environment file'],
    ['.env.local', 'environment file'],
    ['.env.production', 'environment file'],
    ['.ENV', 'environment file'],
    ['.envrc', 'environment file'],
    ['.git/config', 'git internals'],
    ['sub/.git/hooks/pre-commit', 'git internals'],
    ['.git', 'git internals'],
    ['.ssh/config', 'SSH keys and configuration'],
    ['home/.ssh/known_hosts', 'SSH keys and configuration'],
    ['.aws/credentials', 'AWS credentials'],
    ['.gnupg/pubring.kbx', 'GnuPG keys'],
    ['id_rsa', 'SSH private key'],
    ['keys/id_ed25519', 'SSH private key'],
    ['id_rsa.pub', 'SSH private key'],
    ['certs/server.pem', 'PEM key or certificate'],
    ['tls/server.key', 'private key'],
    ['store.p12', 'PKCS#12 key store'],
    ['store.PFX', 'PKCS#12 key store'],
    ['android/release.jks', 'Java key store'],
    ['.npmrc', 'npm credentials'],
    ['.pypirc', 'PyPI credentials'],
    ['.netrc', 'netrc credentials'],
    ['.pgpass', 'PostgreSQL passwords'],
    ['.git-credentials', 'git credentials'],
    ['gcp/credentials.json', 'credentials file'],
  ])('%s is secret (%s)', (file, reason) => {
    expect(secretPathReason(file)).toBe(reason);
  });

  it.each([
    '.env.example',
    'config/.env.sample',
    '.env.template',
    'src/env.ts',
    'environment.md',
    '.gitignore',
    '.github/workflows/ci.yml',
    'docs/ssh.md',
    'src/keys.ts',
    'monkey.txt',
    'credentials.md',
    'a.pem.md',
    'README.md',
    '',
  ])('%j is not secret', (file) => {
    expect(secretPathReason(file)).toBeUndefined();
  });
});

describe('redactSecrets', () => {
  it.each([
    ['private-key', `before\n${PEM}\nafter`, PEM],
    ['aws-access-key-id', `key = ${AWS_KEY_ID}`, AWS_KEY_ID],
    ['aws-secret-key', `aws_secret_access_key = ${AWS_SECRET}\n`, AWS_SECRET],
    ['aws-secret-key', `AWS_SECRET_ACCESS_KEY="${AWS_SECRET}"`, AWS_SECRET],
    ['github-token', `token: ${GITHUB_CLASSIC}`, GITHUB_CLASSIC],
    ['github-token', `GH=${GITHUB_FINE} `, GITHUB_FINE],
    ['slack-token', `slack ${SLACK}`, SLACK],
    ['google-api-key', `const key = "${GOOGLE}";`, GOOGLE],
    ['api-key', `OPENAI_API_KEY=${OPENAI}`, OPENAI],
    ['jwt', `Authorization: Bearer ${JWT}`, JWT],
    ['assigned-secret', 'password = "hunter2hunter2"', 'hunter2hunter2'],
    ['assigned-secret', `const dbPassword = 'c0rrect horse'`, 'c0rrect horse'],
    ['assigned-secret', '{"apiKey": "k-12345-abcde"}', 'k-12345-abcde'],
    ['assigned-secret', 'DB_PASSWORD=s3cr3tValue', 's3cr3tValue'],
    ['assigned-secret', 'export API_TOKEN=supersecretvalue # prod', 'supersecretvalue'],
    ['assigned-secret', '[db]\npassword = hunter2hunter2\n', 'hunter2hunter2'],
    ['assigned-secret', 'database:\n  password: Tr0ub4dor&3\n', 'Tr0ub4dor&3'],
    ['assigned-secret', 'client_secret := "abcd1234efgh"', 'abcd1234efgh'],
    ['assigned-secret', 'HOST=db\r\nDB_PASSWORD=s3cr3tValue\r\nPORT=5432\r\n', 's3cr3tValue'],
    ['assigned-secret', '[db]\r\npassword = hunter2hunter2 # Windows line ends\r\n', 'hunter2hunter2'],
  ])('redacts a %s', (kind, text, secret) => {
    const result = redactSecrets(text);
    expect(result.text).not.toContain(secret);
    expect(result.text).toContain(`[REDACTED ${kind}]`);
    expect(result.redactions).toBe(1);
    expect(result.kinds).toEqual({ [kind]: 1 });
    expect(result.offsets).toEqual([result.text.indexOf('[REDACTED')]);
  });

  it('keeps the key name and the text around a redacted value', () => {
    expect(redactSecrets('DB_PASSWORD=s3cr3tValue # prod\nHOST=db').text).toBe('DB_PASSWORD=[REDACTED assigned-secret] # prod\nHOST=db');
    expect(redactSecrets(`x\n${PEM}\ny`).text).toBe('x\n[REDACTED private-key]\ny');
  });

  it('redacts a private key block with no end to the end of the text', () => {
    const truncated = PEM.split('\n').slice(0, 2).join('\n');
    const result = redactSecrets(`head\n${truncated}`);
    expect(result.text).toBe('head\n[REDACTED private-key]');
  });

  it('counts a secret matched by two detectors once', () => {
    const result = redactSecrets(`api_key = "${OPENAI}"`);
    expect(result.redactions).toBe(1);
    expect(result.text).toBe('api_key = "[REDACTED api-key]"');
  });

  it('counts several secrets and reports where each marker starts', () => {
    const text = `a ${AWS_KEY_ID}\nb ${GITHUB_CLASSIC}\nc ${AWS_KEY_ID}`;
    const result = redactSecrets(text);
    expect(result.redactions).toBe(3);
    expect(result.kinds).toEqual({ 'aws-access-key-id': 2, 'github-token': 1 });
    expect(result.offsets.map((offset) => result.text.slice(offset, offset + 10))).toEqual(['[REDACTED ', '[REDACTED ', '[REDACTED ']);
  });

  it.each([
    ['prose about passwords', 'Please enter your password: then click the button to continue.'],
    ['a password field label', 'The password field must be at least 12 characters long.'],
    ['a type annotation', 'interface User {\n  password: string;\n  token?: string;\n}'],
    ['a value read from the environment', 'const password = process.env.DB_PASSWORD;\npassword = os.environ["X"]'],
    ['a placeholder', 'DB_PASSWORD=${DB_PASSWORD}\napi_key = "<your key here>"'],
    ['a normal base64 string', 'data = "SGVsbG8gd29ybGQsIHRoaXMgaXMgbm90IGEgc2VjcmV0IGF0IGFsbA=="'],
    ['a hex digest', 'sha256 = 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['a kebab-case sk- word', 'class="sk-loading-spinner-container-large"'],
    ['a public certificate', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
    ['a tokenizer setting', 'tokenizer = "bpe-standard"'],
    ['code assigning a variable', 'token = keyword;\n  return token = scanNumber();\npassword = self.password\nsecret = compute(x)'],
    ['a TypeScript interface without semicolons', 'interface User {\n  password: string\n  apiKey: ApiKeyType\n}'],
    ['an upper-case word that is not a key id', 'AKIAMOTOR is a made-up word'],
  ])('leaves %s alone', (_label, text) => {
    const result = redactSecrets(text);
    expect(result.text).toBe(text);
    expect(result.redactions).toBe(0);
  });

  it('is linear on adversarial input (1 MiB of identifier characters and dots)', () => {
    const text = 'a.'.repeat(512 * 1024);
    const started = performance.now();
    expect(redactSecrets(text).redactions).toBe(0);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('findSecrets’ prechecks', () => {
  // The prechecks only decide where the patterns run: every finding must equal what running each
  // pattern over the whole text finds (`exhaustive`), whatever surrounds it.
  const secrets = [
    `DB_PASSWORD=s3cr3tValue`,
    `export API_TOKEN=supersecretvalue # prod`,
    `password = hunter2hunter2`,
    `  password: Tr0ub4dor&3`,
    `- api_key: abcdef123456`,
    `client_secret := "abcd1234efgh"`,
    `{"apiKey": "k-12345-abcde"}`,
    `token\n  = "spans-a-line"`,
    `aws_secret_access_key = ${'A'.repeat(20)}${'b'.repeat(20)}`,
    `AKIA${'ABCDEFGHIJKLMNOP'}`,
    `ghp_${'a1'.repeat(18)}`,
    `xoxb-1234567890-abcdef`,
    `AIza${'x'.repeat(35)}`,
    `sk-${'a1b2'.repeat(6)}`,
    `eyJ${'a'.repeat(10)}.eyJ${'b'.repeat(10)}.${'c'.repeat(20)}`,
    // RE2's (?i) folds the long s and the Kelvin sign to ASCII letters: so must the prechecks.
    `PAſSWORD=longsvalue1`,
    `api_\u212Aey: kelvinvalue1`,
  ];
  // The first four keep the secret on a line of its own, where every pattern applies.
  const surroundings = [
    (s: string) => s,
    (s: string) => `int f(void)\n{\n\tkey = lookup(x);\n\t${s}\n\treturn token = next();\n}\n`,
    (s: string) => `first line\r\n${s}\r\nlast line`,
    (s: string) => `${s}\n${s}`,
    (s: string) => `key = a; ${s}`,
    (s: string) => `no newline at the end: ${s}`,
    (s: string) => `${s} password = another1 key=value12`,
  ];
  it.each(secrets)('finds the same as the exhaustive scan around %j', (secret) => {
    for (const [index, surround] of surroundings.entries()) {
      const text = surround(secret);
      const exhaustive = findSecrets(text, { exhaustive: true });
      if (index < 4) expect(exhaustive.length).toBeGreaterThan(0);
      expect(findSecrets(text)).toEqual(exhaustive);
    }
  });

  it('finds the same as the exhaustive scan in this repository’s sources', () => {
    const root = path.resolve(__dirname, '..', '..', '..');
    const files = ['libs/workspace/src', 'libs/fetch/src', 'libs/code-index/src/tokens', 'docs'].flatMap((dir) =>
      fs.readdirSync(path.join(root, dir)).filter((name) => /\.(ts|md)$/.test(name)).map((name) => path.join(root, dir, name)),
    );
    expect(files.length).toBeGreaterThan(20);
    let found = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const fast = findSecrets(text);
      expect(fast).toEqual(findSecrets(text, { exhaustive: true }));
      found += fast.length;
    }
    // This spec file itself holds fake credentials.
    expect(found).toBeGreaterThanOrEqual(10);
  });
});
