/**
 * @quarry/fetch — SSRF-safe URL fetching: URL gate, address policy, guarded undici agent, capped
 * decoding, text extraction, per-domain politeness and the document cache interface.
 */
export { SafeFetcher, safeFetcherOptionsSchema, DEFAULT_USER_AGENT, type SafeFetcherOptions, type FetchOptions, type FetchResult } from './safe-fetcher';
export { gateUrl, normalizeHost, MAX_URL_LENGTH, type GateOptions } from './url-gate';
export { checkAddress, parseAllowList, sameAddress, EMPTY_ALLOW_LIST, type AllowList, type AddressVerdict, type AddressRule } from './address-policy';
export {
  createGuardedAgent,
  createGuardedConnector,
  createNetDialer,
  guardedConnect,
  systemResolver,
  type Resolver,
  type ResolvedAddress,
  type Dialer,
  type DialTarget,
  type GuardOptions,
  type GuardedAgentOptions,
  type NetDialerOptions,
} from './guarded-agent';
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
