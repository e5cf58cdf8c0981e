import { QuarryError } from './errors';

/**
 * The `cursor` of `GET /v1/jobs`: base64url of `<createdAt ISO>|<id>`, the keyset of the last job
 * of a page. Only the exact form this server writes is read back: a date JavaScript accepts but
 * Postgres cannot hold (year 0, −271821, 275760) must be refused here, not by the database as a 500.
 */
export interface JobCursor {
  createdAt: Date;
  id: string;
}

const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;
/** What `Date#toISOString` writes for years 0001–9999: the years both JavaScript and Postgres hold. */
const ISO_INSTANT = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeJobCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeJobCursor(cursor: string): JobCursor {
  const decoded = BASE64URL.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const [at = '', id = '', ...rest] = decoded.split('|');
  const year = ISO_INSTANT.exec(at)?.[1];
  const createdAt = new Date(at);
  // The round trip refuses impossible days (02-30 would roll over to March) as well as other spellings.
  const canonical = year !== undefined && Number(year) >= 1 && !Number.isNaN(createdAt.getTime()) && createdAt.toISOString() === at;
  if (!canonical || rest.length > 0 || !UUID.test(id)) {
    throw new QuarryError('cursor_invalid', 'The cursor is not one this server handed out.', {
      suggestion: 'Use the nextCursor value from the previous page, or leave cursor out for the first page.',
    });
  }
  return { createdAt, id };
}
