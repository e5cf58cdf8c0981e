import { fileRole } from '../corpus/file-roles';
import { testedModuleName } from '../signals/bm25';
import { analyzeTask } from './task-analysis';

/* What the task's text says, and what it does not: another program's output, a template's comments. */

describe('analyzeTask: another program\'s pasted output', () => {
  const pipList = ['Package    Version', '---------- -------', 'aiohttp    3.6.2', 'boto3      1.7.84', 'zipp       0.6.0'].join('\n');

  it('counts the names of a package listing once, as little as a traceback line, and the prose as ever', () => {
    const task = analyzeTask(['Dynamically adding xfail marker fails', '', 'A marker added with `add_marker` is ignored.', '', '```', pipList, pipList, '```'].join('\n'));
    expect(task.queryTerms.get('aiohttp')).toBeCloseTo(0.2);
    expect(task.queryTerms.get('boto3')).toBeCloseTo(0.2);
    expect(task.identifiers.get('aiohttp')?.weight).toBeCloseTo(0.3);
    expect(task.queryTerms.get('marker')).toBeGreaterThan(2);
    expect(task.identifiers.get('add_marker')?.weight).toBe(1);
  });

  it("reads a linter's report as output, not as frames, and keeps its messages out of the task's own text", () => {
    const report = ['```shell', '************* Module about', 'src\\gen\\about.py:2:0: R2044: Line with empty comment (empty-comment)', 'src\\gen\\about.py:57:0: C0301: Line too long (504/120) (line-too-long)', 'src\\gen\\about.py:4:0: R2044: Line with empty comment (empty-comment)', '```'].join('\n');
    const task = analyzeTask(`\`--recursive=y\` ignores \`ignore-paths\`\n\nWhen running recursively the paths are not ignored.\n\n${report}`);
    expect(task.identifiers.get('Line')?.weight).toBeCloseTo(0.3);
    expect(task.queryTerms.get('empty')).toBeCloseTo(0.2);
    expect(task.messageText).toContain('Line with empty comment');
    expect(task.ownText).not.toContain('Line with empty comment');
    expect(task.ownText).toContain('When running recursively');
    expect(task.options).toContain('--recursive');
  });

  it('reads a test session report as output (its frames stay frames)', () => {
    const session = ['```', '============================= test session starts =============================', 'platform linux -- Python 3.7.5, pytest-5.3.2', 'rootdir: /home/me/project', 'collected 1 item', '', 'test_path_error.py F                                                [100%]', '', '../test_path_error.py:29: AssertionError', '```'].join('\n');
    const task = analyzeTask(`Wrong path to test file\n\n${session}`);
    expect(task.queryTerms.get('rootdir')).toBeCloseTo(0.2);
    expect(task.frames.map((frame) => frame.path)).toEqual(['../test_path_error.py']);
  });

  it('leaves a short code example alone: it is the task, not output', () => {
    const task = analyzeTask('Matrix hstack changed\n\n```python\nimport sympy as sy\nM1 = sy.Matrix.zeros(0, 0)\nsy.Matrix.hstack(M1, M2).shape\n```');
    expect(task.queryTerms.get('hstack')).toBeGreaterThanOrEqual(3);
    expect(task.identifiers.get('hstack')?.weight).toBeGreaterThan(1);
  });
});

describe('analyzeTask: HTML comments', () => {
  it("drops an issue template's comments, keeping line numbers and the rest", () => {
    const task = analyzeTask('Error message prints extra code line\n<!--\nThanks for submitting an issue!\nQuick check-list while reporting bugs\n-->\nThe `statement` range is wrong.');
    expect(task.queryTerms.has('submitting')).toBe(false);
    expect(task.queryTerms.has('checklist') || task.queryTerms.has('check')).toBe(false);
    expect(task.identifiers.has('statement')).toBe(true);
    expect(task.title).toBe('Error message prints extra code line');
  });
});

describe('the module a test file tests', () => {
  it.each([
    ['test_skipping.py', 'skipping.py'],
    ['unittest_expand_modules.py', 'expand_modules.py'],
    ['skipping_test.go', 'skipping.go'],
    ['parser_tests.rs', 'parser.rs'],
    ['parser.test.ts', 'parser.ts'],
    ['parser.spec.js', 'parser.js'],
    ['parsertest.java', 'parser.java'],
    ['conftest.py', undefined],
    ['skipping.py', undefined],
  ])('%s → %s', (base, module) => {
    expect(testedModuleName(base)).toBe(module);
  });
});

describe('file roles', () => {
  it.each([
    ['.github/ISSUE_TEMPLATE/BUG-REPORT.yml', 'docs'],
    ['.github/workflows/ci.yml', 'docs'],
    ['.gitlab/merge_request_templates/default.md', 'docs'],
    ['src/github/client.py', 'source'],
  ])('%s is %s', (path, role) => {
    expect(fileRole(path)).toBe(role);
  });
});

describe("analyzeTask: the user's own names", () => {
  it('marks what the task\'s code binds, and only that', () => {
    const task = analyzeTask(
      [
        'Matrix hstack changed',
        '```python',
        'import sympy as sy',
        'M1, M2 = sy.Matrix.zeros(0, 0), sy.Matrix.zeros(0, 1)',
        '>>> total: int = 3',
        'def inner(foo):',
        '    for row in rows:',
        '        pass',
        'sy.Matrix.hstack(M1, M2).shape',
        '```',
        'Traceback (most recent call last):',
        '  File "sympy/matrices/common.py", line 12, in hstack',
        '    cls = kls = type(args[0])',
      ].join('\n'),
    );
    const own = [...task.identifiers.values()].filter((mention) => mention.ownName).map((mention) => mention.name).sort();
    expect(own).toEqual(['M1', 'M2', 'inner', 'row', 'sy', 'total']);
    expect(task.identifiers.get('hstack')?.ownName).toBe(false);
    expect(task.identifiers.get('kls')?.ownName).toBe(false);
  });
});
