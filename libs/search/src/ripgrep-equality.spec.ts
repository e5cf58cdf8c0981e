import { execFileSync, spawnSync } from 'node:child_process';
import { makeTempTree, removeTempTree } from '../../workspace/src/testing/temp-tree';
import { closeSharedSearchPool, searchWorkspace, type SearchRequest } from '.';

// Every count must equal ripgrep's on the same files with the same options: per file, for a
// corpus of literal and regex queries, case modes, globs and hidden files. rg is required (CI
// installs it; see .ci/run), so a missing rg fails here instead of skipping.

afterAll(() => closeSharedSearchPool());

const UNICODE_LINES = ['ſpin_lock(x)', 'spin_locK(y)', 'Straße', 'STRASSE', 'ÉCOLE école', 'naïve café', 'μs and µs'];

/** Source-like text with known words at known places, plus the awkward cases. */
function fixture(): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {
    '.gitignore': 'build/\n*.log\n',
    'build/out.c': '// TODO generated\n',
    'debug.log': 'TODO in a log\n',
    '.github/workflows/ci.yml': 'run: make # TODO cache\n',
    '.env': 'TOKEN=todo\n',
    'crlf.c': 'int a; // TODO one\r\nint b; /* todo two */\r\nfoo_error(a);\r\n',
    'no-newline.h': 'last line todo',
    'unicode.txt': `${UNICODE_LINES.join('\n')}\n`,
    'binary-early.bin': Buffer.concat([Buffer.from('TODO\0'), Buffer.from('todo\n')]),
    'binary-late.dat': Buffer.concat([Buffer.from('todo\n'.repeat(3_000)), Buffer.from([0]), Buffer.from('todo\n')]),
    'latin1.c': Buffer.from('/* caf\xe9 todo */\nint x_error(void);\n', 'latin1'),
    'long-line.js': `${'a = 1; '.repeat(20_000)}todo();\n`,
    'empty.txt': '',
  };
  const words = ['alpha', 'Beta', 'spin_lock', 'mutex_lock', 'TODO', 'todo', 'FixMe', 'k_error(', 'x_error (', 'ERROR(', 'skb->len', '^anchor', 'a.b', '\\path'];
  for (let index = 0; index < 40; index++) {
    const lines: string[] = [];
    for (let line = 0; line < 30; line++) {
      const word = words[(index * 7 + line * 3) % words.length];
      lines.push(line % 5 === 0 ? `${word} at the start` : `    call(${word}, ${line}); // ${words[(index + line) % words.length]}`);
    }
    files[`src/${index % 4 === 0 ? 'sub/' : ''}file${index}.${['c', 'h', 'ts', 'py'][index % 4]}`] = `${lines.join('\n')}\n`;
  }
  return files;
}

interface Query {
  request: Omit<SearchRequest, 'root'>;
  rg: string[];
}

const literal = (pattern: string, extra: Partial<SearchRequest> = {}, rg: string[] = []): Query => ({
  request: { mode: 'literal', pattern, caseSensitivity: 'sensitive', ...extra },
  rg: ['-F', ...rg, '--', pattern],
});
const regex = (pattern: string, extra: Partial<SearchRequest> = {}, rg: string[] = []): Query => ({
  request: { mode: 'regex', pattern, caseSensitivity: 'sensitive', ...extra },
  rg: [...rg, '--', pattern],
});
const insensitive = { caseSensitivity: 'insensitive' as const };
const smart = { caseSensitivity: 'smart' as const };

const QUERIES: Query[] = [
  literal('todo'),
  literal('TODO'),
  literal('todo', insensitive, ['-i']),
  literal('TODO', insensitive, ['-i']),
  literal('todo', smart, ['-S']),
  literal('Todo', smart, ['-S']),
  literal('spin_lock', insensitive, ['-i']),
  literal('SPIN_LOCK', insensitive, ['-i']),
  literal('ks', insensitive, ['-i']),
  literal('strasse', insensitive, ['-i']),
  literal('école', insensitive, ['-i']),
  literal('ÉCOLE', insensitive, ['-i']),
  literal('µs', insensitive, ['-i']),
  literal('a.b'),
  literal('\\path'),
  literal('^anchor'),
  literal('x_error ('),
  literal('skb->len', insensitive, ['-i']),
  literal('(', {}, []),
  literal('todo', { glob: '*.c' }, ['-g', '*.c']),
  literal('todo', { glob: 'src/**/*.py' }, ['-g', 'src/**/*.py']),
  literal('todo', { hidden: true }, ['--hidden', '-g', '!.git']),
  regex(String.raw`\w+_error\(`),
  regex(String.raw`\w+_error\(`, insensitive, ['-i']),
  regex('^anchor'),
  regex(String.raw`\^anchor`),
  regex('todo$'),
  regex(String.raw`one$`),
  regex('(?i)fixme'),
  regex('FixMe|Beta'),
  regex(String.raw`call\(\w+, \d+\)`),
  regex(String.raw`\d{2}\);`),
  regex('[A-Z]{4}'),
  regex(String.raw`\bmutex_\w+`),
  regex(String.raw`a\sb`),
  regex(String.raw`\p{Greek}s`),
  regex('.'),
  regex('x*'),
  regex('spin_lock', smart, ['-S']),
  regex(String.raw`TODO\b`, { glob: '*.h' }, ['-g', '*.h']),
];

/** `rg -c`'s per-file counts, keyed by root-relative path. */
function ripgrepCounts(root: string, args: string[]): Map<string, number> {
  // `args` ends with `-- PATTERN`; the path comes last (without one, rg would read stdin).
  const run = spawnSync('rg', ['-c', '--no-config', ...args, '.'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0 && run.status !== 1) throw new Error(`rg ${args.join(' ')} failed: ${run.stderr || run.error}`);
  const counts = new Map<string, number>();
  for (const line of run.stdout.split('\n')) {
    if (line === '') continue;
    const colon = line.lastIndexOf(':');
    counts.set(line.slice(0, colon).replace(/^\.\//, ''), Number(line.slice(colon + 1)));
  }
  return counts;
}

describe('counts equal ripgrep\'s', () => {
  let root: string;
  beforeAll(async () => {
    expect(spawnSync('rg', ['--version']).status).toBe(0); // install ripgrep: apt-get install ripgrep
    root = await makeTempTree(fixture(), 'quarry-rg-');
    // ripgrep honours .gitignore only inside a git repository; so does Quarry's walk of a repository.
    execFileSync('git', ['init', '-q', root]);
  });
  afterAll(() => removeTempTree(root));

  it.each(QUERIES.map((query) => [query.rg.join(' '), query] as const))('rg -c %s', async (_name, query) => {
    const expected = ripgrepCounts(root, query.rg);
    const result = await searchWorkspace({ root, ...query.request, countsPerFile: true, maxMatches: 5 });
    const ours = new Map((result.fileCounts ?? []).map((entry) => [entry.path, entry.count]));
    expect(Object.fromEntries([...ours].sort())).toEqual(Object.fromEntries([...expected].sort()));
    expect(result.totalMatches).toBe([...expected.values()].reduce((sum, count) => sum + count, 0));
    expect(result.filesMatched).toBe(expected.size);
  });
});
