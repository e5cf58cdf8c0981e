/**
 * @quarry/fetch/policy — the URL gate, the address policy and the guarded connect, without the
 * fetcher: no undici, no HTML extraction. For code that only opens guarded connections or checks
 * URLs (the git snapshot), so a process or thread that never fetches a page loads neither.
 */
export { gateUrl, normalizeHost, MAX_URL_LENGTH, type GateOptions } from './url-gate';
export { checkAddress, parseAllowList, sameAddress, EMPTY_ALLOW_LIST, type AllowList, type AddressVerdict, type AddressRule } from './address-policy';
export {
  createNetDialer,
  guardedConnect,
  systemResolver,
  type Resolver,
  type ResolvedAddress,
  type Dialer,
  type DialTarget,
  type GuardOptions,
  type NetDialerOptions,
} from './guarded-connect';
