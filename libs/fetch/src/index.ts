/**
 * @quarry/fetch — SSRF-safe URL fetching: URL gate, address policy, guarded undici agent, capped
 * decoding, text extraction, per-domain politeness and the document cache interface.
 */
export { SafeFetcher, safeFetcherOptionsSchema, DEFAULT_USER_AGENT, type SafeFetcherOptions, type FetchOptions, type FetchResult } from './safe-fetcher';
export * from './policy';
export { createGuardedAgent, createGuardedConnector, type GuardedAgentOptions } from './guarded-agent';
export { extractText, extractTitle, type ExtractedText } from './text-extraction';
export { detectCharset, canonicalCharset } from './charset';
export { parseContentType, documentFormat, type ContentType, type DocumentFormat } from './content-types';
export {
  LocalDomainLimiter,
  registrableDomain,
  DEFAULT_DOMAIN_LIMITS,
  type DomainLimiter,
  type DomainLimits,
  type Release,
} from './domain-limiter';
export { RedisDomainLimiter, type RedisDomainLimiterOptions } from './redis-domain-limiter';
export { MemoryDocumentCache, type CachedDocument, type DocumentCache } from './document-cache';
export { parseRetryAfter, retryDelayMs } from './retry-after';
