import { RULE_TARGETS, runInterpretEval, LABELLED_QUERIES, type EvalReport } from './run';

/** The eval as a regression gate: the rule fallback must keep its accuracy targets. */
describe('interpret eval', () => {
  let report: EvalReport;

  beforeAll(async () => {
    report = await runInterpretEval();
  }, 60_000);

  it('has a labelled set of at least 160 queries covering every tool and "no tool"', () => {
    expect(LABELLED_QUERIES.length).toBeGreaterThanOrEqual(160);
    const tools = new Set(LABELLED_QUERIES.map((item) => item.expect.tool ?? item.expect.dropped ?? 'none'));
    expect([...tools].sort()).toEqual(['detect_stack', 'fetch_url', 'find_files', 'grep', 'list_files', 'none', 'read_file', 'search']);
  });

  it(`rule fallback: tool name ≥ ${RULE_TARGETS.toolAccuracy * 100}%, exact arguments ≥ ${RULE_TARGETS.argsAccuracy * 100}%`, () => {
    const misses = report.rules.misses.map((miss) => `${miss.query} → ${JSON.stringify(miss.got.tools)}`);
    if (process.env.INTERPRET_EVAL_VERBOSE) console.log(misses.join('\n'));
    expect(report.rules.total).toBe(LABELLED_QUERIES.length);
    expect(report.rules.toolAccuracy).toBeGreaterThanOrEqual(RULE_TARGETS.toolAccuracy);
    expect(report.rules.argsAccuracy).toBeGreaterThanOrEqual(RULE_TARGETS.argsAccuracy);
  });

  it('AI path: every scripted answer is scored and failures fall back to the rules', () => {
    expect(report.ai.total).toBeGreaterThanOrEqual(30);
    expect(report.ai.bySource.ai).toBeGreaterThan(0);
    expect(report.ai.bySource.rules).toBeGreaterThan(0);
  });
});
