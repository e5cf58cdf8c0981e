import { resolveReferences } from '../deixis';
import { FileListView } from '../workspace-view';
import { planWithRules } from './rule-planner';

/* Open questions about the code → find_relevant_code; look-alikes keep their tools. */

const view = new FileListView(['README.md', 'package.json', 'src/app.ts', 'src/billing/invoice.ts', 'src/auth/session.ts', 'docs/guide.md']);
const plan = (query: string) => planWithRules(query, { view, references: resolveReferences(query, {}) });

describe('open questions about the code', () => {
  it.each([
    'where is rate limiting handled?',
    'Where are refunds calculated',
    'where in the code are invoices generated?',
    'where does the worker schedule its retries?',
    'where do uploads get compressed',
    'which code handles login retries?',
    'which module is responsible for billing?',
    'what part of the codebase deals with time zones?',
    'what takes care of expired sessions?',
    'find the code that renders the invoice PDF',
    "where's the logic behind discount codes?",
    'how does the app verify webhook signatures?',
    'how do we store uploaded files',
    'explain how retries work in our code',
  ])('%s → find_relevant_code with the question as its task', (query) => {
    expect(plan(query).tools).toEqual([{ name: 'find_relevant_code', args: { task: query }, confidence: 0.9 }]);
  });

  it('gives the question as asked, politeness included, with whitespace collapsed', () => {
    expect(plan('  please,   where is rate limiting   handled? ').tools[0].args).toEqual({ task: 'please, where is rate limiting handled?' });
  });

  it.each([
    ['where is RateLimiter handled?', 'search'],
    ['which code calls computeTotal', 'search'],
    ['where do we handle ETIMEDOUT', 'search'],
    ['where does the app handle 502 errors?', 'search'],
    ['which files handle "payment failed"', 'search'],
    ['where is the retry count read from env', 'search'],
    ['where is invoice.ts', 'find_files'],
  ])('%s names what to search for: %s', (query, name) => {
    expect(plan(query).tools[0]?.name).toBe(name);
  });

  it.each(['what is a B-tree?', 'how does rate limiting work?', 'how do hash tables handle collisions', 'what does idempotent mean?', 'what is exponential backoff?'])(
    '%s is about the world: no tool',
    (query) => {
      expect(plan(query)).toMatchObject({ needs_tools: false, tools: [] });
    },
  );
});
