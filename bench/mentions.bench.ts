/**
 * Mentions benchmark (issue 4), in one run:
 *   - parseMentions on 1 MB of prose holding 1,000 mentions of every kind     target < 10 ms (median)
 *   - @search vs `rg -F -i -c` and @grep vs `rg -c` (bench/search.bench.ts)  targets ≤ 2.5× and ≤ 3×
 *   - a cached file mention load: readWorkspaceFile of a ~20 KB file through
 *     a warm FileCache                                                          target < 0.2 ms (median)
 *   - for context, expandMentions of a prompt with one file mention, warm (no target)
 *
 *   node dist/bench/mentions.bench.js [--quick]        (after the tsc build), or `npm run bench -- --only m`
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { expandMentions, parseMentions } from '../libs/mentions/src';
import { FileCache, readWorkspaceFile } from '../libs/workspace/src';
import { runSearchBench, type SearchBenchReport } from './search.bench';
import { latencyStats, ms, mulberry32, printTable, type LatencyStats } from './support';

const PROSE_BYTES = 1_000_000;
const PROSE_MENTIONS = 1_000;
const CACHED_FILE_BYTES = 20 * 1024;
const CACHED_FILE = 'src/orders/order-service.ts';

export interface MentionsBenchOptions {
  quick?: boolean;
}

export interface ParseFigures {
  bytes: number;
  /** Mentions the generator wrote, and what the parser found (they must agree). */
  written: number;
  found: number;
  syntaxErrors: number;
  stats: LatencyStats;
}

export interface LoadFigures {
  fileBytes: number;
  /** Loads that did not come from the cache (must be 0: a miss means the figure measures the disk). */
  misses: number;
  stats: LatencyStats;
}

export interface MentionsBenchReport {
  parse: ParseFigures;
  search: SearchBenchReport;
  cachedLoad: LoadFigures;
  /** expandMentions of a one-file-mention prompt, warm cache. */
  expand: LoadFigures;
}

export async function runMentionsBench(options: MentionsBenchOptions = {}): Promise<MentionsBenchReport> {
  const quick = options.quick ?? false;
  const parse = measureParse(quick ? 15 : 51);
  const workspace = makeWorkspace();
  let cachedLoad: LoadFigures;
  let expand: LoadFigures;
  try {
    cachedLoad = await measureCachedLoad(workspace, quick ? 2_000 : 20_000);
    expand = await measureExpand(workspace, quick ? 300 : 3_000);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  printTable(
    'mentions: parse and cached load (median of warm runs)',
    ['figure', 'runs', 'median', 'p99', 'max', 'target', 'note'],
    [
      [
        `parseMentions, ${(parse.bytes / 1e6).toFixed(2)} MB prose`,
        String(parse.stats.n),
        ms(parse.stats.p50, 2),
        ms(parse.stats.p99, 2),
        ms(parse.stats.max, 2),
        `< 10 ms${parse.stats.p50 < 10 ? '' : ' MISSED'}`,
        `${parse.found} mentions found of ${parse.written} written, ${parse.syntaxErrors} syntax errors${parse.found === parse.written ? '' : ' MISMATCH'}`,
      ],
      [
        `readWorkspaceFile, cached ${(cachedLoad.fileBytes / 1024).toFixed(0)} KB file`,
        String(cachedLoad.stats.n),
        ms(cachedLoad.stats.p50, 3),
        ms(cachedLoad.stats.p99, 3),
        ms(cachedLoad.stats.max, 3),
        `< 0.2 ms${cachedLoad.stats.p50 < 0.2 ? '' : ' MISSED'}`,
        `${cachedLoad.misses} cache misses`,
      ],
      [
        'expandMentions, one file mention, warm',
        String(expand.stats.n),
        ms(expand.stats.p50, 3),
        ms(expand.stats.p99, 3),
        ms(expand.stats.max, 3),
        '-',
        'parse + load + augment, for context',
      ],
    ],
  );
  const search = await runSearchBench({ quick });
  return { parse, search, cachedLoad, expand };
}

// ---- parse ------------------------------------------------------------------------------------

function measureParse(runs: number): ParseFigures {
  const prose = generateProse(PROSE_BYTES, PROSE_MENTIONS);
  const parsed = parseMentions(prose.text);
  for (let warm = 0; warm < 3; warm++) parseMentions(prose.text);
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    parseMentions(prose.text);
    samples.push(performance.now() - started);
  }
  return {
    bytes: Buffer.byteLength(prose.text),
    written: prose.mentions,
    found: parsed.mentions.length,
    syntaxErrors: parsed.errors.length,
    stats: latencyStats(samples),
  };
}

/** Every kind of mention, in the forms users type them; each is exactly one mention to the parser. */
const MENTION_FORMS: ReadonlyArray<(random: () => number) => string> = [
  (random) => `@${pick(random, PATHS)}`,
  (random) => `@${pick(random, PATHS)}#L${line(random)}`,
  (random) => {
    const start = line(random);
    return `@${pick(random, PATHS)}#L${start}-${start + line(random)}`;
  },
  (random) => {
    const start = line(random);
    return `@${pick(random, PATHS)}#L${start}-L${start + 20}`;
  },
  (random) => `@${pick(random, PATHS)}#L${line(random)}-`,
  (random) => `@${pick(random, DIRECTORIES)}/`,
  (random) => `@"${pick(random, SPACED_PATHS)}"`,
  (random) => `@search:"${pick(random, SEARCH_TEXTS)}"`,
  (random) => `@grep:"${pick(random, GREP_PATTERNS)}"`,
  (random) => `@url:https://${pick(random, HOSTS)}/docs/${pick(random, WORDS)}?page=${line(random)}`,
  (random) => `@${pick(random, PEOPLE)}`,
];

const PATHS = ['src/app.ts', 'src/orders/order-service.ts', 'libs/billing/src/invoice.py', 'docs/api.md', 'README.md', 'cmd/server/main.go', 'src/ui/Button.tsx', 'données/résumé.md', 'packages/core/src/index.ts'];
const DIRECTORIES = ['src', 'libs/billing', 'docs/adr', 'packages/core/src', 'test/fixtures'];
const SPACED_PATHS = ['docs/release notes.md', 'design/Q3 plan.md', 'notes/meeting 2024-05-01.txt'];
const SEARCH_TEXTS = ['database url', 'retry budget', 'feature flag', 'TODO', 'rate limit exceeded'];
const GREP_PATTERNS = [String.raw`TODO\(\w+\)`, String.raw`func \w+Handler`, String.raw`(?i)deprecated`, String.raw`say \"hi\"`, String.raw`^import .* from`];
const HOSTS = ['example.org', 'docs.example.com', 'internal.example.net'];
const PEOPLE = ['alice', 'bob', 'carol'];
const WORDS = [
  'the', 'service', 'returns', 'an', 'error', 'when', 'request', 'times', 'out', 'and', 'we', 'should', 'retry', 'with', 'backoff',
  'cache', 'is', 'invalidated', 'after', 'each', 'deploy', 'so', 'first', 'call', 'slow', 'please', 'review', 'handler', 'for',
  'queue', 'worker', 'config', 'before', 'merge', 'tests', 'cover', 'edge', 'cases', 'but', 'not', 'load', 'path', 'latency',
];
const EMAILS = ['alice@example.com', 'ops+alerts@example.org', 'bob.smith@corp.example.net'];
const INLINE_CODE = ['`@Injectable()`', '`user@host`', '`@src/not/a/mention.ts`', '`npm i @nestjs/core`', '`a && b`'];
const FENCED_BLOCKS = [
  '```ts\n@Injectable()\nexport class OrderService {\n  constructor(@Inject(QUEUE) private readonly queue: Queue) {}\n}\n```',
  '```sh\ngit log --author=dev@example.com\nnpm install @quarry/workspace\n```',
  '~~~python\n@dataclass\nclass Invoice:\n    total: int\n~~~',
];

/**
 * Seeded prose shaped like real prompts: sentences, paragraphs, emails, inline code and fenced
 * blocks (whose `@`s are not mentions), escaped `\@`, and mentions spread evenly through the text.
 */
export function generateProse(targetBytes: number, mentionCount: number, seed = 0x6d656e): { text: string; mentions: number } {
  const random = mulberry32(seed);
  const spacing = targetBytes / mentionCount;
  const parts: string[] = [];
  let bytes = 0;
  let mentions = 0;
  const push = (piece: string) => {
    parts.push(piece);
    bytes += Buffer.byteLength(piece);
  };
  while (bytes < targetBytes || mentions < mentionCount) {
    const sentences = 3 + Math.floor(random() * 5);
    const paragraph: string[] = [];
    for (let index = 0; index < sentences; index++) {
      const due = mentions < mentionCount && bytes + paragraph.join(' ').length >= mentions * spacing;
      paragraph.push(sentence(random, due ? pick(random, MENTION_FORMS)(random) : undefined));
      if (due) mentions++;
    }
    push(`${paragraph.join(' ')}\n\n`);
    if (random() < 0.08) push(`${pick(random, FENCED_BLOCKS)}\n\n`);
  }
  return { text: parts.join(''), mentions };
}

/** One sentence; sometimes with an email, inline code or an escaped `\@`; with `mention` placed in it. */
function sentence(random: () => number, mention: string | undefined): string {
  const words = Array.from({ length: 8 + Math.floor(random() * 14) }, () => pick(random, WORDS));
  const extra = random();
  if (extra < 0.1) words.splice(Math.floor(random() * words.length), 0, `(cc ${pick(random, EMAILS)})`);
  else if (extra < 0.25) words.splice(Math.floor(random() * words.length), 0, pick(random, INLINE_CODE));
  else if (extra < 0.28) words.splice(Math.floor(random() * words.length), 0, String.raw`\@everyone`);
  if (mention !== undefined) {
    // In parentheses now and then, and at the end of the sentence: the closing `)` and `.` are not part of it.
    words.splice(Math.floor(random() * words.length), 0, random() < 0.2 ? `(see ${mention})` : mention);
  }
  words[0] = words[0].replace(/^./, (first) => first.toUpperCase());
  return `${words.join(' ')}${random() < 0.85 ? '.' : '?'}`;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

function line(random: () => number): number {
  return 1 + Math.floor(random() * 400);
}

// ---- cached file mention load --------------------------------------------------------------------

/** A throwaway workspace with one ~20 KB TypeScript file. */
function makeWorkspace(): string {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-mentions-')));
  const source = [
    'export class OrderService {',
    '  constructor(private readonly repository: OrderRepository, private readonly queue: Queue) {}',
    '  async place(order: NewOrder): Promise<Order> {',
    '    const saved = await this.repository.insert({ ...order, status: "pending" });',
    '    await this.queue.add("charge", { orderId: saved.id }, { attempts: 5 });',
    '    return saved;',
    '  }',
    '}',
  ].join('\n');
  const text = `${source}\n`.repeat(Math.ceil(CACHED_FILE_BYTES / (source.length + 1))).slice(0, CACHED_FILE_BYTES);
  mkdirSync(path.join(root, path.dirname(CACHED_FILE)), { recursive: true });
  writeFileSync(path.join(root, CACHED_FILE), text);
  return root;
}

async function measureCachedLoad(root: string, loads: number): Promise<LoadFigures> {
  const cache = new FileCache();
  const first = await readWorkspaceFile(root, CACHED_FILE, { cache });
  return timeLoads(loads, first.bytes, async () => (await readWorkspaceFile(root, CACHED_FILE, { cache })).fromCache);
}

async function measureExpand(root: string, runs: number): Promise<LoadFigures> {
  const fileCache = new FileCache();
  const prompt = `Review @${CACHED_FILE} and tell me where an order can be charged twice.`;
  const load = async () => {
    const hitsBefore = fileCache.stats().hits;
    const result = await expandMentions({ prompt }, { root, fileCache });
    if (result.mentions[0]?.status !== 'loaded') throw new Error(`the bench mention did not load: ${JSON.stringify(result.errors)}`);
    return fileCache.stats().hits > hitsBefore;
  };
  await load();
  return timeLoads(runs, CACHED_FILE_BYTES, load);
}

/** Times `load` one call at a time (after a warm-up); it returns whether the cache served it. */
async function timeLoads(loads: number, fileBytes: number, load: () => Promise<boolean>): Promise<LoadFigures> {
  for (let warm = 0; warm < Math.min(200, loads); warm++) await load();
  const samples: number[] = [];
  let misses = 0;
  for (let index = 0; index < loads; index++) {
    const started = performance.now();
    const fromCache = await load();
    samples.push(performance.now() - started);
    if (!fromCache) misses++;
  }
  return { fileBytes, misses, stats: latencyStats(samples) };
}

if (require.main === module) {
  runMentionsBench({ quick: process.argv.includes('--quick') }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
