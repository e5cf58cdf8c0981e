import { evaluateCorpus, FIELDS, HELD_OUT_TARGETS, type SplitScore } from './detect-eval';

/*
 * `npm run eval:detect`: per-field accuracy of static detection on the development and held-out
 * parts of the corpus, then every miss. `--held-out-misses` also lists the held-out misses (by
 * default they are counted, not shown, so nobody tunes against them by accident).
 */
async function main(): Promise<void> {
  const showHeldOut = process.argv.includes('--held-out-misses');
  const report = await evaluateCorpus();
  const row = (name: string, split: SplitScore) =>
    `${name.padEnd(12)}${String(split.examples).padStart(5)}  ${FIELDS.map((field) => cell(split, field)).join('  ')}`;
  console.log(`${'split'.padEnd(12)}${'n'.padStart(5)}  ${FIELDS.map((field) => field.padEnd(16)).join('  ')}`);
  console.log(row('development', report.development));
  console.log(row('held-out', report.heldOut));
  console.log(`targets (held-out): ${Object.entries(HELD_OUT_TARGETS).map(([field, target]) => `${field} ≥ ${percent(target!)}`).join(', ')}`);
  printMisses('development misses', report.development);
  if (showHeldOut) printMisses('held-out misses', report.heldOut);
  else console.log(`\n${report.heldOut.misses.length} held-out misses (not shown; --held-out-misses lists them)`);
  const failing = Object.entries(HELD_OUT_TARGETS).filter(([field, target]) => report.heldOut.fields[field as keyof SplitScore['fields']].accuracy < target!);
  process.exitCode = failing.length > 0 ? 1 : 0;
}

function cell(split: SplitScore, field: keyof SplitScore['fields']): string {
  const entry = split.fields[field];
  return `${percent(entry.accuracy)} (${entry.correct}/${entry.scored})`.padEnd(16);
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function printMisses(title: string, split: SplitScore): void {
  console.log(`\n${title} (${split.misses.length}):`);
  for (const miss of split.misses) console.log(`  ${miss.field.padEnd(12)} ${miss.id}: expected ${miss.expected}, got ${miss.got}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
