import { normalizePlan } from './normalize';
import type { Plan, PlanStep } from './plan';
import { defaultToolRegistry } from './tools';
import { FileListView } from './workspace-view';

const ROOT = '/work/space';
const view = new FileListView(['README.md', 'src/app.ts', 'src/a.ts', 'lib/a.ts', 'src/api/users.ts', 'docs/guide.md']);
const registry = defaultToolRegistry();

function normalize(steps: PlanStep[], extra: { cwd?: string } = {}) {
  const plan: Plan = { needs_tools: true, tools: steps, rationale: 'test' };
  return normalizePlan(plan, { root: ROOT, view, registry, ...extra });
}
const step = (name: string, args: Record<string, unknown>, confidence = 0.9): PlanStep => ({ name, args, confidence });

describe('normalizePlan', () => {
  it('keeps an exact, valid step as it is', () => {
    const { plan, dropped } = normalize([step('read_file', { path: 'src/app.ts', start_line: 2, end_line: 4 })]);
    expect(plan.tools).toEqual([step('read_file', { path: 'src/app.ts', start_line: 2, end_line: 4 })]);
    expect(dropped).toEqual([]);
    expect(plan.notes).toBeUndefined();
  });

  it.each(['/etc/passwd', '../outside.txt', 'src/../../x', '~/.ssh/id_rsa', '/work/spaceship/a.ts'])('drops %s as outside the root', (path) => {
    const { plan, dropped } = normalize([step('read_file', { path })]);
    expect(plan.tools).toEqual([]);
    expect(plan.needs_tools).toBe(false);
    expect(dropped).toEqual([{ tool: 'read_file', reason: expect.stringMatching(/outside the workspace root|climbs out|home directory/) }]);
  });

  it('makes absolute paths inside the root relative', () => {
    expect(normalize([step('list_files', { directory: `${ROOT}/src/api/` })]).plan.tools[0].args).toEqual({ directory: 'src/api' });
    expect(normalize([step('list_files', { directory: ROOT })]).plan.tools[0].args).toEqual({ directory: '.' });
  });

  it('fuzzy-resolves a missing path to the same name elsewhere and notes it', () => {
    const { plan } = normalize([step('read_file', { path: 'users.ts' })]);
    expect(plan.tools[0].args).toEqual({ path: 'src/api/users.ts' });
    expect(plan.notes).toMatch(/"users.ts" not found; using src\/api\/users.ts/);
  });

  it('fixes case and one-letter typos in names', () => {
    expect(normalize([step('read_file', { path: 'readme.md' })]).plan.tools[0].args).toEqual({ path: 'README.md' });
    expect(normalize([step('read_file', { path: 'docs/guid.md' })]).plan.tools[0].args).toEqual({ path: 'docs/guide.md' });
    expect(normalize([step('search', { query: 'x', directory: 'api' })]).plan.tools[0].args).toEqual({ query: 'x', directory: 'src/api' });
  });

  it('tries the current directory before guessing', () => {
    const { plan } = normalize([step('read_file', { path: 'users.ts' })], { cwd: 'src/api' });
    expect(plan.notes).toMatch(/relative to the current directory src\/api/);
  });

  it('asks which file when a name is ambiguous, instead of guessing', () => {
    const { plan, issues } = normalize([step('read_file', { path: 'a.ts' }, 0.9)]);
    expect(issues).toEqual([{ step: 0, arg: 'path', kind: 'ambiguous', choices: ['lib/a.ts', 'src/a.ts'] }]);
    expect(plan.tools[0].confidence).toBeLessThan(0.5);
    expect(plan.clarification).toBe('Which file do you mean: lib/a.ts or src/a.ts?');
  });

  it('does not ask when another step is confident', () => {
    const { plan } = normalize([step('read_file', { path: 'a.ts' }), step('list_files', { directory: 'docs' })]);
    expect(plan.clarification).toBeUndefined();
  });

  it('turns a read of a file that exists nowhere into find_files, and a read of a directory into a listing', () => {
    const missing = normalize([step('read_file', { path: 'src/nothing-like-it.rs' })]).plan;
    expect(missing.tools[0]).toEqual(step('find_files', { pattern: 'nothing-like-it.rs' }));
    expect(missing.notes).toMatch(/does not exist; looking for files named/);
    expect(normalize([step('read_file', { path: 'src/api' })]).plan.tools[0]).toEqual(step('list_files', { directory: 'src/api' }));
  });

  it('caps max_results and line spans, and puts a reversed range right', () => {
    const { plan } = normalize([
      step('search', { query: 'x', max_results: 10_000 }),
      step('read_file', { path: 'src/app.ts', start_line: 10, end_line: 9_000 }),
      step('read_file', { path: 'src/app.ts', start_line: 30, end_line: 20 }),
    ]);
    expect(plan.tools.map((entry) => entry.args)).toEqual([
      { query: 'x', max_results: 200 },
      { path: 'src/app.ts', start_line: 10, end_line: 2009 },
      { path: 'src/app.ts', start_line: 20, end_line: 30 },
    ]);
    expect(plan.notes).toMatch(/max_results lowered from 10000 to 200/);
  });

  it('drops unknown tools, steps past the fifth, globs that climb out, and invalid arguments', () => {
    const many = Array.from({ length: 7 }, () => step('list_files', { directory: 'src' }));
    const { plan, dropped } = normalize([
      step('rm_rf', { path: 'src' }),
      ...many,
      step('find_files', { pattern: '../../*.key' }),
      step('read_file', { path: 'src/app.ts', start_line: 0 }),
    ]);
    expect(plan.tools).toHaveLength(5);
    expect(dropped.map((entry) => entry.tool)).toEqual(['rm_rf', 'list_files', 'list_files', 'find_files', 'read_file']);
    expect(dropped[0].reason).toMatch(/unknown tool "rm_rf"/);
    expect(dropped[1].reason).toMatch(/at most 5 steps/);
  });

  it('asks for a required argument that is missing', () => {
    const { plan, issues } = normalize([step('read_file', {}, 0.9)]);
    expect(issues).toEqual([{ step: 0, arg: 'path', kind: 'missing', choices: [] }]);
    expect(plan.clarification).toMatch(/^Which file should I use for read_file\? \(for example README.md, docs\/guide.md or lib\/a.ts\)\.$/);
  });
});
