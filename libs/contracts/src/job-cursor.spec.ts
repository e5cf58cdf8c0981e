import { decodeJobCursor, encodeJobCursor } from './job-cursor';
import { isQuarryError } from './errors';

const ID = '0b9d6f3e-7c1a-4c1e-9a55-0d4c2b9e8f10';
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

function refusal(cursor: string): string | undefined {
  try {
    decodeJobCursor(cursor);
    return undefined;
  } catch (error) {
    return isQuarryError(error) ? error.kind : 'not a QuarryError';
  }
}

describe('the job-list cursor', () => {
  it('reads back exactly what it wrote', () => {
    const createdAt = new Date('2026-11-30T12:34:56.789Z');
    expect(decodeJobCursor(encodeJobCursor(createdAt, ID))).toEqual({ createdAt, id: ID });
    expect(decodeJobCursor(encodeJobCursor(new Date('0001-01-01T00:00:00.000Z'), ID)).createdAt.getUTCFullYear()).toBe(1);
  });

  // Dates JavaScript parses but Postgres cannot hold, or spellings this server never writes.
  it.each([
    ['year 0', `0000-01-01T00:00:00.000Z|${ID}`],
    ['the earliest JavaScript date', `-271821-04-20T00:00:00.000Z|${ID}`],
    ['the latest JavaScript date', `+275760-09-13T00:00:00.000Z|${ID}`],
    ['a year past 9999', `+010000-01-01T00:00:00.000Z|${ID}`],
    ['a year BC', `-000100-01-01T00:00:00.000Z|${ID}`],
    ['a bare number', `1|${ID}`],
    ['a date without time', `2026-01-01|${ID}`],
    ['a day that does not exist', `2026-02-30T00:00:00.000Z|${ID}`],
    ['hour 24', `2026-01-01T24:00:00.000Z|${ID}`],
    ['an offset instead of Z', `2026-01-01T00:00:00.000+01:00|${ID}`],
    ['an invalid date', `nope|${ID}`],
    ['no id', '2026-01-01T00:00:00.000Z'],
    ['an id that is not a uuid', '2026-01-01T00:00:00.000Z|42'],
    ['a third part', `2026-01-01T00:00:00.000Z|${ID}|x`],
    ['a NUL after the id', `2026-01-01T00:00:00.000Z|${ID}\u0000`],
  ])('refuses %s as cursor_invalid', (_name, text) => {
    expect(refusal(cursorOf(text))).toBe('cursor_invalid');
  });

  it.each([
    ['characters outside base64url', 'a+b/c='],
    ['bytes that are not UTF-8', Buffer.from([0xff, 0xfe, 0x7c]).toString('base64url')],
    ['an empty cursor', ''],
    ['a cursor too long to be one of ours', 'A'.repeat(201)],
  ])('refuses %s as cursor_invalid', (_name, cursor) => {
    expect(refusal(cursor)).toBe('cursor_invalid');
  });
});
