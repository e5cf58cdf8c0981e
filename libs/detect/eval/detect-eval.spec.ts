import { EXAMPLES, evaluateCorpus, HELD_OUT_TARGETS, isHeldOut, type EvalReport } from './detect-eval';

/*
 * The detection eval as a gate: static detection on the vendored corpus must stay at or above the
 * targets on the held-out third. `npm run eval:detect` prints the same figures with every miss.
 */
describe('detection eval (libs/detect/eval/corpus.json)', () => {
  let report: EvalReport;
  beforeAll(async () => {
    report = await evaluateCorpus();
  }, 120_000);

  it('has at least 300 labelled examples, a third of them held out by a fixed rule', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(300);
    const heldOut = EXAMPLES.filter((example) => isHeldOut(example.id)).length;
    expect(heldOut / EXAMPLES.length).toBeGreaterThan(0.25);
    expect(heldOut / EXAMPLES.length).toBeLessThan(0.42);
    for (const example of EXAMPLES) expect(example.source).toMatchObject({ repo: expect.stringMatching(/^[\w.-]+\/[\w.-]+$/), commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });

  it.each(Object.entries(HELD_OUT_TARGETS))('held-out %s accuracy is at least its target', (field, target) => {
    const score = report.heldOut.fields[field as keyof EvalReport['heldOut']['fields']];
    expect({ field, accuracy: score.accuracy }).toEqual({ field, accuracy: expect.any(Number) });
    expect(score.accuracy).toBeGreaterThanOrEqual(target!);
  });
});
