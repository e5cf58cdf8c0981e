import type { CachedDocument, DocumentCache } from '@quarry/fetch';
import type { Prisma, PrismaClient } from './prisma-client';

/** The fetch cache in Postgres, shared by every worker: one row per requested URL. */
export class FetchedDocumentRepository implements DocumentCache {
  constructor(private readonly prisma: PrismaClient) {}

  async get(url: string): Promise<CachedDocument | null> {
    const row = await this.prisma.fetchedDocument.findUnique({ where: { url } });
    if (!row) return null;
    return {
      url: row.url,
      finalUrl: row.finalUrl,
      status: row.status,
      contentType: row.contentType,
      title: row.title ?? undefined,
      text: row.text,
      bytes: row.bytes,
      truncated: row.truncated,
      etag: row.etag ?? undefined,
      lastModified: row.lastModified ?? undefined,
      fetchedAt: row.fetchedAt,
      expiresAt: row.expiresAt,
      sha256: row.sha256,
      redirects: Array.isArray(row.redirects) ? (row.redirects as string[]) : [],
    };
  }

  async put(document: CachedDocument): Promise<void> {
    const data = {
      finalUrl: document.finalUrl,
      status: document.status,
      contentType: document.contentType,
      title: document.title ?? null,
      text: document.text,
      bytes: document.bytes,
      truncated: document.truncated,
      etag: document.etag ?? null,
      lastModified: document.lastModified ?? null,
      redirects: document.redirects as Prisma.InputJsonValue,
      sha256: document.sha256,
      fetchedAt: document.fetchedAt,
      expiresAt: document.expiresAt,
    };
    await this.prisma.fetchedDocument.upsert({ where: { url: document.url }, create: { url: document.url, ...data }, update: data });
  }

  /** Drops documents expired for longer than `graceMs` (they are no use even for a conditional GET). */
  async prune(graceMs: number): Promise<number> {
    const result = await this.prisma.fetchedDocument.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - graceMs) } } });
    return result.count;
  }
}
