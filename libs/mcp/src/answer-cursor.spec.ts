import { callKey, decodeCursor, encodeCursor, itemsKey } from './answer-cursor';

describe('answer cursors', () => {
  const cursor = { tool: 'read_file', call: callKey({ path: 'a.ts' }), at: { line: 12, column: 1 }, version: 't:abc', commit: 'f'.repeat(40) };

  it('round-trips everything a continuation needs, in a short opaque string', () => {
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^q1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(text.length).toBeLessThan(250);
    expect(decodeCursor(text, 'read_file', cursor.call)).toEqual(cursor);
  });

  it('refuses a cursor cut short, altered or made up with cursor_invalid', () => {
    const text = encodeCursor(cursor);
    for (const bad of [text.slice(0, -3), text.replace('q1.', 'q1.x'), `${text.slice(0, 10)}A${text.slice(11)}`, 'page-2', '']) {
      expect(() => decodeCursor(bad, 'read_file', cursor.call)).toThrow(expect.objectContaining({ kind: 'cursor_invalid' }));
    }
  });

  it('refuses a cursor of another tool, or of the same tool with other arguments', () => {
    const text = encodeCursor(cursor);
    expect(() => decodeCursor(text, 'search_text', cursor.call)).toThrow(expect.objectContaining({ kind: 'cursor_invalid', suggestion: expect.stringContaining('read_file') }));
    expect(() => decodeCursor(text, 'read_file', callKey({ path: 'b.ts' }))).toThrow(expect.objectContaining({ kind: 'cursor_invalid', message: expect.stringContaining('other arguments') }));
  });

  it('keys a call by its arguments, not their order, nor the budget or the cursor', () => {
    expect(callKey({ a: 1, b: { c: 2, d: 3 } })).toBe(callKey({ b: { d: 3, c: 2 }, a: 1, maxTokens: 9000, cursor: 'x' }));
    expect(callKey({ a: 1, b: undefined })).toBe(callKey({ a: 1 }));
    expect(callKey({ a: 1 })).not.toBe(callKey({ a: 2 }));
  });

  it('keys a sequence of items by every item and their order', () => {
    expect(itemsKey(['a', 'b'])).toBe(itemsKey(['a', 'b']));
    expect(itemsKey(['a', 'b'])).not.toBe(itemsKey(['b', 'a']));
    expect(itemsKey(['ab'])).not.toBe(itemsKey(['a', 'b']));
    expect(itemsKey([{ x: 1, y: 2 }])).toBe(itemsKey([{ y: 2, x: 1 }]));
  });
});
