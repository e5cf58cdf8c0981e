import { resolveReferences } from '../deixis';
import { FileListView } from '../workspace-view';
import { planWithRules } from './rule-planner';

/*
 * The five classes of issue 34, each with phrasings of its own (none is in the eval sets), and
 * beside each the workspace questions of the same shape that must keep their tool.
 */

const view = new FileListView([
  'README.md',
  'package.json',
  'tsconfig.json',
  '.prettierrc',
  'docker-compose.yml',
  'src/app.ts',
  'src/api/users.ts',
  'src/utils/logger.ts',
  'docs/guide.md',
  'docs/setup.md',
  'migrations/001_init.sql',
  'services/billing/main.py',
  'services/billing/requirements.txt',
  'web/package.json',
  'web/src/main.tsx',
]);
const plan = (query: string, context = {}) => planWithRules(query, { view, references: resolveReferences(query, context) });
const first = (query: string, context = {}) => plan(query, context).tools[0];

describe('general-knowledge questions need no tool', () => {
  it.each([
    'what is a monad?',
    'what does HTTP 503 mean?',
    'what is eventual consistency',
    'what are goroutines',
    'what does the abbreviation CORS stand for',
    'who designed the Go language',
    'when was TypeScript first released',
    'definition of a closure',
    'what is the time complexity of a hash map lookup',
    'how is a stack different from a queue',
    'what are database migrations',
    'what does SQL stand for in databases',
    'what causes a deadlock',
  ])('%s', (query) => {
    expect(plan(query)).toMatchObject({ needs_tools: false, tools: [] });
  });

  it.each([
    ['what is in docs', 'list_files'],
    ['what is the logger', undefined],
    ['what uses the logger', 'search'],
    ['what is crates written in', undefined],
    ['what is UserService', 'search'],
    ['what is docs/guide.md', 'read_file'],
    ['what kind of project is this', 'detect_stack'],
    ["what's the tech stack", 'detect_stack'],
    ['what is the size of docs/setup.md', 'list_files'],
  ])('but a question about the workspace keeps its tool: %s', (query, tool) => {
    if (tool === undefined) return expect(plan(query).needs_tools).toBe(true);
    expect(first(query)?.name).toBe(tool);
  });
});

describe('"what does <file> contain" reads the file', () => {
  it.each([
    ['what does package.json contain', 'package.json'],
    ['what does docker-compose.yml consist of', 'docker-compose.yml'],
    ["what's contained in tsconfig.json", 'tsconfig.json'],
    ['tell me what .prettierrc contains', '.prettierrc'],
    ['what packages are in services/billing/requirements.txt', 'services/billing/requirements.txt'],
    ['what does the .prettierrc file say', '.prettierrc'],
  ])('%s', (query, path) => {
    expect(first(query)).toMatchObject({ name: 'read_file', args: { path } });
  });

  it('but which files contain a word is still a search', () => {
    expect(first('which files contain lodash')).toMatchObject({ name: 'search', args: { query: 'lodash' } });
    expect(first('what files mention the logger')).toMatchObject({ name: 'search' });
  });
});

describe('regex-shaped patterns become grep with the whole regex', () => {
  it.each([
    ['look for ^import in src', { pattern: '^import', directory: 'src' }],
    ['search for TODO.*later', { pattern: 'TODO.*later' }],
    ['find .*Controller$ in src', { pattern: '.*Controller$', directory: 'src' }],
    ['any lines like .*@internal in src', { pattern: '.*@internal', directory: 'src' }],
    ['where do we call logger.* in src', { pattern: 'logger.*', directory: 'src' }],
    ['search for "^export "', { pattern: '^export ' }],
    ['do any files match /port: \\d+/', { pattern: 'port: \\d+' }],
    ['lines that end with \\($', { pattern: '\\($' }],
    ['find ^export default function in src', { pattern: '^export default function', directory: 'src' }],
    ['lines matching ^name in package.json files', { pattern: '^name', glob: 'package.json' }],
  ])('%s', (query, args) => {
    expect(first(query)).toMatchObject({ name: 'grep', args });
  });

  it('but a name and a trailing .* is a glob when files are asked for', () => {
    expect(first('find index.*')).toMatchObject({ name: 'find_files', args: { pattern: 'index.*' } });
    expect(first('which files start with a dot')).toMatchObject({ name: 'find_files', args: { pattern: '.*' } });
  });
});

describe('bare globs and one kind of file under a folder get a find or list tool', () => {
  it.each([
    ['*.md', 'find_files', { pattern: '*.md' }],
    ['docs/*.md', 'find_files', { pattern: 'docs/*.md' }],
    ['**/*.tsx', 'find_files', { pattern: '**/*.tsx' }],
    ['package.*', 'find_files', { pattern: 'package.*' }],
    ['the markdown files under docs', 'find_files', { pattern: '*.md', directory: 'docs' }],
    ['python files below services', 'find_files', { pattern: '*.py', directory: 'services' }],
    ['any sql in migrations?', 'find_files', { pattern: '*.sql', directory: 'migrations' }],
    ['grab every .tsx file beneath web', 'find_files', { pattern: '*.tsx', directory: 'web' }],
    ['list the markdown files in docs', 'list_files', { directory: 'docs', pattern: '*.md' }],
  ])('%s', (query, name, args) => {
    expect(first(query)).toMatchObject({ name, args });
  });
});

describe('what kind of project a directory is: detect_stack with that directory', () => {
  it.each([
    ['what sort of project is web', 'web'],
    ['what type of app is in services/billing', 'services/billing'],
    ['is web a react or a vue app', 'web'],
    ['is services/billing a flask service or a django one', 'services/billing'],
    ["what's the project type of web", 'web'],
    ['what category of project is the root', '.'],
    ['what is the web project', 'web'],
    ['what is web', 'web'],
    ['tell me what kind of repository this is', '.'],
  ])('%s', (query, directory) => {
    expect(first(query)).toMatchObject({ name: 'detect_stack', args: { directory } });
  });

  it('takes "this folder" and "here" from the editor', () => {
    expect(first('what kind of project is this folder', { cwd: 'web' })).toMatchObject({ name: 'detect_stack', args: { directory: 'web' } });
    expect(first('what sort of project is here', { cwd: 'services/billing' })).toMatchObject({ name: 'detect_stack', args: { directory: 'services/billing' } });
  });
});
