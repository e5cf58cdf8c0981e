/**
 * The fetch cache interface (rule 7). The fetcher reads it before any network I/O and writes every
 * successful fetch; the shared implementation lives in Postgres (libs/db), `MemoryDocumentCache`
 * serves the CLI and tests. Keep this interface small and stable: it is implemented elsewhere.
 *
 * Semantics, as SafeFetcher applies them:
 *   - keyed by the requested URL after the URL gate's normalization (`url`);
 *   - fresh (`now < expiresAt`) and not forced: returned as is, no network, no rate limit;
 *   - stale: a conditional GET (`If-None-Match: etag`, `If-Modified-Since: lastModified`); a 304
 *     keeps the text and pushes `expiresAt` out again;
 *   - `force: true`: neither read nor used for a conditional GET, but the new result is stored.
 */

export interface CachedDocument {
  /** The requested URL, normalized: the cache key. */
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  title?: string;
  /** The extracted text, as returned to callers. */
  text: string;
  /** Decoded body bytes that were read (≤ the size cap). */
  bytes: number;
  truncated: boolean;
  etag?: string;
  lastModified?: string;
  /** When the origin last sent or confirmed (304) this content. */
  fetchedAt: Date;
  expiresAt: Date;
  /** SHA-256 (hex) of `text` as UTF-8. */
  sha256: string;
  redirects: string[];
}

export interface DocumentCache {
  get(url: string): Promise<CachedDocument | null>;
  put(document: CachedDocument): Promise<void>;
}

/** An in-process cache holding the most recently written `maxEntries` documents. */
export class MemoryDocumentCache implements DocumentCache {
  private readonly documents = new Map<string, CachedDocument>();

  constructor(private readonly maxEntries = 1_000) {}

  async get(url: string): Promise<CachedDocument | null> {
    const document = this.documents.get(url);
    // A copy, so a caller editing its result cannot edit the cache.
    return document ? { ...document, redirects: [...document.redirects] } : null;
  }

  async put(document: CachedDocument): Promise<void> {
    this.documents.delete(url(document));
    this.documents.set(url(document), { ...document, redirects: [...document.redirects] });
    // Map iteration order is insertion order: the first key is the least recently written.
    while (this.documents.size > this.maxEntries) this.documents.delete(this.documents.keys().next().value as string);
  }

  get size(): number {
    return this.documents.size;
  }

  clear(): void {
    this.documents.clear();
  }
}

const url = (document: CachedDocument) => document.url;
