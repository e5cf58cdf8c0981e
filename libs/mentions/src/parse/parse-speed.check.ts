/*
 * A micro-check run by hand, not a unit test (timings on a shared machine are not assertions):
 *
 *   npx jest --selectProjects unit --testMatch '**\/parse-speed.check.ts'
 *
 * Parses 1 MB of prose with 1,000 mentions of every kind (plus code spans and a fence) and
 * prints the median of 30 runs. Target: < 10 ms.
 */
import { parseMentions } from './index';

const MENTIONS = ['@src/app.ts#L10-40', '@docs/api.md.', '@search:"database url"', '@grep:"TODO\\(\\w+\\)"', '@url:https://example.org/guide', '@"my notes.md"', '@lib/', '@a.ts#L0'];

function buildPrompt(targetBytes: number, mentionCount: number): string {
  const filler = 'The quick brown fox jumps over the lazy dog, mails user@example.com and quotes `code @x` too. ';
  const parts: string[] = [];
  let size = 0;
  let mentions = 0;
  while (size < targetBytes) {
    const piece = mentions < mentionCount && parts.length % 10 === 0 ? `${MENTIONS[mentions++ % MENTIONS.length]} ` : filler;
    parts.push(piece);
    size += piece.length;
    if (parts.length % 2000 === 0) parts.push('\n```ts\nconst at = "@not/a/mention";\n```\n');
  }
  return parts.join('');
}

test('parse speed (prints, does not assert)', () => {
  const prompt = buildPrompt(1_000_000, 1000);
  const times: number[] = [];
  let found = 0;
  for (let run = 0; run < 30; run++) {
    const started = process.hrtime.bigint();
    const result = parseMentions(prompt);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    found = result.mentions.length + result.errors.length;
  }
  times.sort((a, b) => a - b);
  console.log(`parseMentions: ${(prompt.length / 1e6).toFixed(2)} MB, ${found} mentions and errors: median ${times[15].toFixed(2)} ms, best ${times[0].toFixed(2)} ms`);
  expect(found).toBe(1000);
});
