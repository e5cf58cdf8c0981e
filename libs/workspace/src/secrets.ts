import RE2 from 're2';

/**
 * Two guards keep credentials out of prompts: files that are secret by name are refused outright
 * (unless the operator allows them), and text that looks like a credential is redacted from
 * every file that is loaded. Both lists are data: adding a rule is one line.
 */

/** Directories whose whole content is secret, matched as any path segment. */
const SECRET_DIRECTORIES: ReadonlyMap<string, string> = new Map([
  ['.git', 'git internals'],
  ['.ssh', 'SSH keys and configuration'],
  ['.gnupg', 'GnuPG keys'],
  ['.aws', 'AWS credentials'],
]);

/** Whole file names (compared lower-cased: macOS and Windows file systems ignore case). */
const SECRET_FILE_NAMES: ReadonlyMap<string, string> = new Map([
  ['.env', 'environment file'],
  ['.envrc', 'environment file'],
  ['.npmrc', 'npm credentials'],
  ['.yarnrc.yml', 'Yarn credentials'],
  ['.pypirc', 'PyPI credentials'],
  ['.netrc', 'netrc credentials'],
  ['_netrc', 'netrc credentials'],
  ['.pgpass', 'PostgreSQL passwords'],
  ['.git-credentials', 'git credentials'],
  ['.htpasswd', 'password file'],
  ['.dockercfg', 'Docker registry credentials'],
  ['credentials.json', 'credentials file'],
  ['service-account.json', 'cloud service account key'],
]);

/** `.env.<anything>` is secret except these templates, which exist to be shared. */
const SHAREABLE_ENV_FILES = new Set(['.env.example', '.env.sample', '.env.template']);
/** Private key names as ssh-keygen writes them, with any suffix. */
const KEY_FILE_PREFIXES = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519'];
const KEY_EXTENSIONS: ReadonlyMap<string, string> = new Map([
  ['.pem', 'PEM key or certificate'],
  ['.key', 'private key'],
  ['.p12', 'PKCS#12 key store'],
  ['.pfx', 'PKCS#12 key store'],
  ['.jks', 'Java key store'],
  ['.keystore', 'key store'],
  ['.ppk', 'PuTTY private key'],
]);

/**
 * Why a root-relative POSIX path is secret by its name ("environment file"), or undefined when it
 * is not. Only names are looked at; content is `redactSecrets`' business.
 */
export function secretPathReason(relativePath: string): string | undefined {
  const segments = relativePath.toLowerCase().split('/');
  for (const directory of segments.slice(0, -1)) {
    const reason = SECRET_DIRECTORIES.get(directory);
    if (reason !== undefined) return reason;
  }
  const name = segments[segments.length - 1];
  const byDirectoryName = SECRET_DIRECTORIES.get(name);
  if (byDirectoryName !== undefined) return byDirectoryName;
  const byName = SECRET_FILE_NAMES.get(name);
  if (byName !== undefined) return byName;
  if (name.startsWith('.env.') && !SHAREABLE_ENV_FILES.has(name)) return 'environment file';
  if (KEY_FILE_PREFIXES.some((prefix) => name.startsWith(prefix))) return 'SSH private key';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? KEY_EXTENSIONS.get(name.slice(dot)) : undefined;
}

/** What `redactSecrets` did. */
export interface Redaction {
  text: string;
  /** Secrets replaced, all kinds together. */
  redactions: number;
  /** Replacements per kind, e.g. `{ 'github-token': 2 }`. */
  kinds: Record<string, number>;
  /** Where each `[REDACTED …]` marker starts in `text`, ascending: lets a caller count those in a line range. */
  offsets: number[];
}

/**
 * A credential format: a linear-time pattern (RE2), and which part of a match is the secret.
 * `valueGroups` names the capture groups that hold the value (the first one that matched wins);
 * without it the whole match is the secret. `accept` rejects lookalikes the pattern cannot.
 *
 * `precheck` is what every match must contain, as a JavaScript regular expression: V8 finds a
 * literal-led pattern at memory speed, while RE2 walks every byte of every file through its
 * automaton (from node-re2, a copy of the text in UTF-8 too). The pattern runs only where the
 * precheck matches: on the whole text, or, for a pattern whose matches never leave their line
 * (`lineScoped`), on each line the precheck matches in, which spares the many lines of code where
 * `key = …` is no credential. A precheck must be a necessary condition of a match, and linear (no
 * nested or overlapping quantifiers); `findSecrets(text, { exhaustive: true })` runs every
 * pattern on the whole text, the reference the spec compares with.
 *
 * Quantifiers are unbounded on purpose: a counted one such as `{4,500}` multiplies RE2's automaton
 * states until it falls back to its slow engine (measured: 20 ms → 400 ms on 1 MiB of code).
 */
interface SecretPattern {
  kind: string;
  regex: RE2;
  precheck: RegExp;
  lineScoped?: boolean;
  valueGroups?: readonly number[];
  accept?: (value: string) => boolean;
}

/** Key names whose assigned value is a secret: `DB_PASSWORD=…`, `"apiKey": "…"`, `client_secret: …`. */
const SECRET_KEY_NAME = String.raw`[A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key)`;
/**
 * How every SECRET_KEY_NAME ends, for prechecks: `u` so that case folds as RE2's `(?i)` does
 * (`ſ` is an `s`, the Kelvin sign a `k`).
 */
const KEY_WORD = String.raw`(?:passw(?:or)?d|secret|token|key)`;
/** Values that name where a secret comes from rather than being one. */
const REFERENCE = /^(?:\$|\{|<|%|process\.env|os\.environ|env\(|getenv|(?:true|false|null|none|undefined)$)/i;
/** A bare identifier or member access (`keyword`, `self.token`): code, not a credential. */
const IDENTIFIER_WITHOUT_DIGITS = /^[A-Za-z_$][A-Za-z_$.]*$/;

const acceptQuoted = (value: string) => !REFERENCE.test(value) && !value.startsWith('[REDACTED');
const acceptBare = (value: string) => acceptQuoted(value) && !IDENTIFIER_WITHOUT_DIGITS.test(value) && !value.includes('(');

const SECRET_PATTERNS: readonly SecretPattern[] = [
  { kind: 'aws-access-key-id', regex: new RE2(String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`, 'g'), precheck: /(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}/ },
  {
    kind: 'aws-secret-key',
    regex: new RE2(String.raw`(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`, 'g'),
    precheck: /aws_?secret_?(?:access_?)?key/iu,
    valueGroups: [1],
  },
  {
    kind: 'github-token',
    regex: new RE2(String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`, 'g'),
    precheck: /gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22}/,
  },
  { kind: 'slack-token', regex: new RE2(String.raw`\bxox[abprse]-[A-Za-z0-9-]{10,}`, 'g'), precheck: /xox[abprse]-[A-Za-z0-9-]{10}/ },
  { kind: 'google-api-key', regex: new RE2(String.raw`\bAIza[0-9A-Za-z_-]{35}\b`, 'g'), precheck: /AIza[0-9A-Za-z_-]{35}/ },
  {
    kind: 'api-key',
    regex: new RE2(String.raw`\bsk-[A-Za-z0-9_-]{20,}`, 'g'),
    precheck: /sk-[A-Za-z0-9_-]{20}/,
    // Real keys are random; a kebab-case word such as `sk-some-long-component-name` has no digit.
    accept: (value) => /\d/.test(value) && /[A-Za-z]/.test(value),
  },
  { kind: 'jwt', regex: new RE2(String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`, 'g'), precheck: /eyJ[A-Za-z0-9_-]{8}/ },
  {
    // A quoted value after `=`, `:=` or `:`, anywhere: code, JSON, YAML, TOML.
    kind: 'assigned-secret',
    regex: new RE2(String.raw`(?i)\b${SECRET_KEY_NAME}["']?\s*(?:=|:=|:)\s*(?:"([^"\r\n]{4,})"|'([^'\r\n]{4,})')`, 'g'),
    precheck: new RegExp(String.raw`${KEY_WORD}["']?\s*(?::=|=|:)\s*["']`, 'iu'),
    valueGroups: [1, 2],
    accept: acceptQuoted,
  },
  {
    // A bare value filling the rest of an env line (`DB_PASSWORD=s3cret`, no spaces around `=`).
    // Only whole lines: in code, `token = nextToken()` is no secret.
    kind: 'assigned-secret',
    regex: new RE2(String.raw`(?im)^[ \t]*(?:export[ \t]+)?${SECRET_KEY_NAME}=([^\s"'#;,{\[][^\s#;,]{5,})[ \t]*(?:#[^\r\n]*)?\r?$`, 'g'),
    precheck: new RegExp(String.raw`${KEY_WORD}=[^\s"'#;,{\[]`, 'giu'),
    lineScoped: true,
    valueGroups: [1],
    accept: (value) => acceptQuoted(value) && !value.includes('('),
  },
  {
    // The same with spaces around `=` (INI) or after `:` (YAML). Code looks like this too
    // (`token = keyword`, `password: string`), so a value that reads as an identifier is left alone.
    kind: 'assigned-secret',
    regex: new RE2(String.raw`(?im)^[ \t-]*${SECRET_KEY_NAME}(?:[ \t]+=|=[ \t]+|:)[ \t]+([^\s"'#;,{\[][^\s#;,]{5,})[ \t]*(?:#[^\r\n]*)?\r?$`, 'g'),
    precheck: new RegExp(String.raw`${KEY_WORD}(?:[ \t]+=[ \t]|=[ \t]|:[ \t])`, 'giu'),
    lineScoped: true,
    valueGroups: [1],
    accept: acceptBare,
  },
];

const PEM_BEGIN = '-----BEGIN ';
const PEM_LABEL_END = 'PRIVATE KEY-----';

/** One credential found in a text: where it is (UTF-16 offsets, end exclusive) and what it looks like. */
export interface SecretFinding {
  start: number;
  end: number;
  kind: string;
}

/**
 * Finds what looks like a credential: PEM private key blocks, AWS access key ids and secret keys,
 * GitHub, Slack, Google and `sk-` API keys, JWTs, and values assigned to password/secret/token/
 * api-key names. Every pattern is RE2 (linear, whatever the text); overlapping detections are
 * merged into the first (longest at a start), so the findings are sorted and disjoint.
 */
export function findSecrets(text: string, options: { exhaustive?: boolean } = {}): SecretFinding[] {
  const findings = privateKeyBlocks(text);
  for (const pattern of SECRET_PATTERNS) {
    if (options.exhaustive === true) findAll(pattern, text, 0, text.length, findings);
    else if (pattern.lineScoped === true) findInMatchingLines(pattern, text, findings);
    else if (pattern.precheck.test(text)) findAll(pattern, text, 0, text.length, findings);
  }
  if (findings.length === 0) return findings;
  findings.sort((a, b) => a.start - b.start || b.end - a.end);
  const disjoint: SecretFinding[] = [];
  let cursor = 0;
  for (const finding of findings) {
    if (finding.start < cursor) continue;
    disjoint.push(finding);
    cursor = finding.end;
  }
  return disjoint;
}

/** Replaces what looks like a credential with `[REDACTED <kind>]` (what `findSecrets` finds). */
export function redactSecrets(text: string): Redaction {
  return applySecretRedactions(text, findSecrets(text));
}

/**
 * Replaces sorted, disjoint findings (as `findSecrets` returns them, possibly stored earlier for
 * the same text) with `[REDACTED <kind>]` markers.
 */
export function applySecretRedactions(text: string, findings: readonly SecretFinding[]): Redaction {
  if (findings.length === 0) return { text, redactions: 0, kinds: {}, offsets: [] };
  const kinds: Record<string, number> = {};
  const offsets: number[] = [];
  let output = '';
  let cursor = 0;
  for (const finding of findings) {
    if (finding.start < cursor) continue;
    output += text.slice(cursor, finding.start);
    offsets.push(output.length);
    output += `[REDACTED ${finding.kind}]`;
    cursor = finding.end;
    kinds[finding.kind] = (kinds[finding.kind] ?? 0) + 1;
  }
  return { text: output + text.slice(cursor), redactions: offsets.length, kinds, offsets };
}

/** The pattern's matches in text[start, end) (a line, or the whole text), appended to `findings`. */
function findAll(pattern: SecretPattern, text: string, start: number, end: number, findings: SecretFinding[]): void {
  const scope = start === 0 && end === text.length ? text : text.slice(start, end);
  pattern.regex.lastIndex = 0;
  for (let match = pattern.regex.exec(scope); match !== null; match = pattern.regex.exec(scope)) {
    const finding = locate(pattern, match, start);
    if (finding !== undefined && (pattern.accept === undefined || pattern.accept(text.slice(finding.start, finding.end)))) findings.push(finding);
    if (match[0].length === 0) pattern.regex.lastIndex++;
  }
}

/** A line-scoped pattern, run on each line its precheck matches in (a line ends before its `\n`, as RE2's `$` does). */
function findInMatchingLines(pattern: SecretPattern, text: string, findings: SecretFinding[]): void {
  const precheck = pattern.precheck;
  precheck.lastIndex = 0;
  for (let hit = precheck.exec(text); hit !== null; hit = precheck.exec(text)) {
    const lineStart = text.lastIndexOf('\n', hit.index) + 1;
    const newline = text.indexOf('\n', hit.index);
    const lineEnd = newline === -1 ? text.length : newline;
    findAll(pattern, text, lineStart, lineEnd, findings);
    precheck.lastIndex = lineEnd;
  }
}

/** The secret's span: the whole match, or the value group, found from the end of the match it closes. */
function locate(pattern: SecretPattern, match: RegExpExecArray, offset: number): SecretFinding | undefined {
  const index = offset + match.index;
  if (pattern.valueGroups === undefined) return { start: index, end: index + match[0].length, kind: pattern.kind };
  const group = pattern.valueGroups.find((index) => match[index] !== undefined);
  if (group === undefined) return undefined;
  const value = match[group];
  // Each value group is the last thing its alternative captures, followed by at most a quote or
  // one terminating character, so searching backwards from the match end finds it.
  const start = index + match[0].lastIndexOf(value);
  return { start, end: start + value.length, kind: pattern.kind };
}

/**
 * `-----BEGIN … PRIVATE KEY-----` to its `-----END … PRIVATE KEY-----`, found with indexOf (a regex
 * spanning many lines buys nothing here). A block with no end is redacted to the end of the text:
 * better to lose a tail than leak half a key.
 */
function privateKeyBlocks(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (let begin = text.indexOf(PEM_BEGIN); begin !== -1; begin = text.indexOf(PEM_BEGIN, begin + 1)) {
    const labelEnd = text.indexOf('-----', begin + PEM_BEGIN.length);
    if (labelEnd === -1) break;
    const header = text.slice(begin, labelEnd + 5);
    if (!header.endsWith(PEM_LABEL_END) || header.includes('\n')) continue;
    const endMarker = text.indexOf('-----END ', labelEnd);
    const endLabel = endMarker === -1 ? -1 : text.indexOf(PEM_LABEL_END, endMarker);
    const end = endLabel === -1 ? text.length : endLabel + PEM_LABEL_END.length;
    findings.push({ start: begin, end, kind: 'private-key' });
    begin = end - 1;
  }
  return findings;
}
