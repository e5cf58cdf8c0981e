import { CONTEXT_TASK_MAX_BYTES } from '@quarry/contracts';
import { parseMentions } from './parse-mentions';

/* @codebase and @context:"…": retrieval mentions, their spans and their typed errors. */

describe('parseMentions: @codebase', () => {
  it.each([
    ['@codebase where is rate limiting handled?', '@codebase', 0],
    ['where is rate limiting handled? @codebase', '@codebase', 32],
    ['Using @Codebase, explain the retry logic', '@Codebase', 6],
    ['(see @codebase)', '@codebase', 5],
    ['ask @codebase.', '@codebase', 4],
  ])('%s → a context mention with no task of its own', (prompt, raw, at) => {
    expect(parseMentions(prompt)).toEqual({ mentions: [{ kind: 'context', raw, span: [at, at + raw.length] }], errors: [] });
  });

  it('leaves a file named codebase to the quoted, slashed and dotted forms', () => {
    const kinds = parseMentions('@"codebase" @./codebase @codebase/ @codebase.md').mentions.map((mention) => (mention.kind === 'path' ? mention.path : mention.kind));
    expect(kinds).toEqual(['codebase', './codebase', 'codebase/', 'codebase.md']);
  });

  it('is text inside code, after a word character and when escaped', () => {
    expect(parseMentions('run `@codebase` or me@codebase or \\@codebase').mentions).toEqual([]);
  });
});

describe('parseMentions: @context:"task"', () => {
  it('takes the quoted task, unescaped and trimmed', () => {
    const prompt = 'Fix it. @context:" why does \\"login\\" retry forever? " thanks';
    expect(parseMentions(prompt)).toEqual({
      mentions: [{ kind: 'context', raw: '@context:" why does \\"login\\" retry forever? "', span: [8, 54], task: 'why does "login" retry forever?' }],
      errors: [],
    });
  });

  it('takes one unquoted word, as @search: does', () => {
    expect(parseMentions('@context:ratelimit, please').mentions).toEqual([{ kind: 'context', raw: '@context:ratelimit', span: [0, 18], task: 'ratelimit' }]);
  });

  it.each([
    ['@context: where', 'task_empty', '@context:', 'Put the task in quotes right after the colon, e.g. @context:"where is rate limiting handled?", or write @codebase to use the prompt itself'],
    ['@context:', 'task_empty', '@context:', 'Put the task in quotes right after the colon'],
    ['@context:"   "', 'task_empty', '@context:"   "', 'Put the task between the quotes'],
    ['@context:"where is it', 'mention_invalid', '@context:"where is it', 'Close the quote: @context:"where is it"'],
    ["@context:'rate limits'", 'mention_invalid', "@context:'rate limits'", 'Did you mean @context:"rate limits"?'],
    ['@contxt:"rate limits"', 'mention_invalid', '@contxt:"rate limits"', 'Did you mean @context:"rate limits"?'],
    ['@Context:"rate limits"', 'mention_invalid', '@Context:"rate limits"', 'Did you mean @context:"rate limits"?'],
  ])('%s → %s', (prompt, kind, raw, suggestion) => {
    const { mentions, errors } = parseMentions(prompt);
    expect(mentions).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ kind, raw });
    expect(errors[0].suggestion).toContain(suggestion);
  });

  it('refuses a task over 64 KiB with task_too_large', () => {
    const task = 'a'.repeat(CONTEXT_TASK_MAX_BYTES + 1);
    const { mentions, errors } = parseMentions(`@context:"${task}"`);
    expect(mentions).toEqual([]);
    expect(errors[0]).toMatchObject({ kind: 'task_too_large', message: `The @context: task is ${(CONTEXT_TASK_MAX_BYTES + 1).toLocaleString('en-US')} bytes; at most 65,536 (64 KiB) are read` });
  });

  it('accepts a task of exactly 64 KiB', () => {
    const task = 'b'.repeat(CONTEXT_TASK_MAX_BYTES);
    expect(parseMentions(`@context:"${task}"`).mentions).toHaveLength(1);
  });
});
