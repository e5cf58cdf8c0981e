import ipaddr from 'ipaddr.js';

/**
 * The address policy: the ONE function that decides whether Quarry may open a connection to an
 * IP address. It is called for IP literals in URLs, for every DNS answer of every hop, and for the
 * remote address of the socket actually connected, so a bypass in one place is a bypass nowhere.
 *
 * Addresses are parsed with ipaddr.js (never string prefixes, never the `ip`/`private-ip`
 * packages, which have had bypasses), so `0177.0.0.1`, `::ffff:7f00:1` and `127.0.0.1` are the
 * same address here. Ranges are listed explicitly with the rule that names them, because the
 * reason ends up in the user's error message ("resolves to 10.0.0.5, a private address").
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** Stable names of the rules, for tests and logs; the human reason is in `reason`. */
export type AddressRule =
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'metadata'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unique-local'
  | 'site-local'
  | 'ipv4-compatible'
  | 'ipv4-translated'
  | 'nat64'
  | '6to4'
  | 'teredo';

export type AddressVerdict =
  | { allowed: true; address: string; allowListed: boolean }
  | { allowed: false; address: string; rule: AddressRule; reason: string };

/** CIDRs the operator explicitly allows despite the policy (QUARRY_FETCH_ALLOW); empty by default. */
export interface AllowList {
  /** The entries as written, for messages. */
  readonly entries: readonly string[];
  readonly cidrs: readonly Cidr[];
}

export const EMPTY_ALLOW_LIST: AllowList = Object.freeze({ entries: Object.freeze([]), cidrs: Object.freeze([]) });

/**
 * Parses `QUARRY_FETCH_ALLOW` (comma-separated, or an array of entries). Each entry is a CIDR
 * (`10.1.0.0/16`, `fd00::/8`) or a bare address (taken as /32 or /128). Host names are not
 * accepted: a name's addresses can change under us, an address range cannot. Throws an Error
 * naming the bad entry.
 */
export function parseAllowList(value: string | readonly string[] | undefined | null): AllowList {
  const raw = value == null ? [] : typeof value === 'string' ? value.split(',') : [...value];
  const entries = raw.map((entry) => entry.trim()).filter((entry) => entry !== '');
  const cidrs: Cidr[] = entries.map((entry) => {
    try {
      if (entry.includes('/')) {
        const [address, bits] = entry.split('/');
        // ipaddr.parseCIDR accepts `0x7f.1/8`-style IPv4; an operator's list should be unambiguous.
        if (!isStrictIp(address) || !/^\d{1,3}$/.test(bits)) throw new Error('not canonical');
        return ipaddr.parseCIDR(entry) as Cidr;
      }
      if (!isStrictIp(entry)) throw new Error('not an address');
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as Cidr;
    } catch {
      throw new Error(`QUARRY_FETCH_ALLOW: "${entry}" is not a CIDR such as 127.0.0.1/32 or fd00::/8 (nor a single IP address)`);
    }
  });
  return Object.freeze({ entries: Object.freeze(entries), cidrs: Object.freeze(cidrs) });
}

function isStrictIp(value: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(value) || ipaddr.IPv6.isValid(value);
}

interface Rule {
  cidr: Cidr;
  rule: AddressRule;
  reason: string;
  /** For the IPv6 ranges that carry an IPv4 address: the embedded address(es) decide. */
  embedded?: (address: ipaddr.IPv6) => ipaddr.IPv4[];
}

const cidr = (text: string): Cidr => ipaddr.parseCIDR(text) as Cidr;

// Order matters: the first match wins, so single addresses come before the ranges holding them.
const IPV4_RULES: Rule[] = [
  { cidr: cidr('169.254.169.254/32'), rule: 'metadata', reason: 'a cloud metadata address' },
  { cidr: cidr('168.63.129.16/32'), rule: 'metadata', reason: 'a cloud metadata address (Azure)' },
  { cidr: cidr('100.100.100.200/32'), rule: 'metadata', reason: 'a cloud metadata address (Alibaba)' },
  { cidr: cidr('0.0.0.0/8'), rule: 'unspecified', reason: 'a "this network" address (0.0.0.0/8)' },
  { cidr: cidr('10.0.0.0/8'), rule: 'private', reason: 'a private address' },
  { cidr: cidr('100.64.0.0/10'), rule: 'cgnat', reason: 'a carrier-grade NAT address (100.64.0.0/10)' },
  { cidr: cidr('127.0.0.0/8'), rule: 'loopback', reason: 'a loopback address' },
  { cidr: cidr('169.254.0.0/16'), rule: 'link-local', reason: 'a link-local address' },
  { cidr: cidr('172.16.0.0/12'), rule: 'private', reason: 'a private address' },
  { cidr: cidr('192.0.0.0/24'), rule: 'reserved', reason: 'an IETF protocol-assignment address (192.0.0.0/24)' },
  { cidr: cidr('192.0.2.0/24'), rule: 'documentation', reason: 'a documentation address (TEST-NET-1)' },
  { cidr: cidr('192.88.99.0/24'), rule: 'reserved', reason: 'a deprecated 6to4 relay address (192.88.99.0/24)' },
  { cidr: cidr('192.168.0.0/16'), rule: 'private', reason: 'a private address' },
  { cidr: cidr('198.18.0.0/15'), rule: 'benchmarking', reason: 'a benchmarking address (198.18.0.0/15)' },
  { cidr: cidr('198.51.100.0/24'), rule: 'documentation', reason: 'a documentation address (TEST-NET-2)' },
  { cidr: cidr('203.0.113.0/24'), rule: 'documentation', reason: 'a documentation address (TEST-NET-3)' },
  { cidr: cidr('224.0.0.0/4'), rule: 'multicast', reason: 'a multicast address' },
  { cidr: cidr('255.255.255.255/32'), rule: 'broadcast', reason: 'the broadcast address' },
  { cidr: cidr('240.0.0.0/4'), rule: 'reserved', reason: 'a reserved address (240.0.0.0/4)' },
];

const low32 = (a: ipaddr.IPv6): ipaddr.IPv4 => {
  const p = a.parts;
  return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
};

const IPV6_RULES: Rule[] = [
  { cidr: cidr('::/128'), rule: 'unspecified', reason: 'the unspecified address' },
  { cidr: cidr('::1/128'), rule: 'loopback', reason: 'a loopback address' },
  // ::ffff:0:0/96 (IPv4-mapped) is unwrapped before these rules run: it IS the IPv4 address.
  { cidr: cidr('::/96'), rule: 'ipv4-compatible', reason: 'an IPv4-compatible IPv6 address (deprecated, never routable)' },
  { cidr: cidr('::ffff:0:0:0/96'), rule: 'ipv4-translated', reason: 'an IPv4-translated IPv6 address' },
  // NAT64 well-known prefix: legitimate on IPv6-only networks, so the embedded IPv4 decides.
  { cidr: cidr('64:ff9b::/96'), rule: 'nat64', reason: 'a NAT64 address', embedded: (a) => [low32(a)] },
  { cidr: cidr('64:ff9b:1::/48'), rule: 'nat64', reason: 'a local-use NAT64 address (64:ff9b:1::/48)' },
  { cidr: cidr('100::/64'), rule: 'reserved', reason: 'a discard-only address (100::/64)' },
  // Teredo: bits 32-63 are the server's IPv4, the last 32 bits the client's IPv4 XOR 0xffffffff.
  {
    cidr: cidr('2001::/32'),
    rule: 'teredo',
    reason: 'a Teredo address',
    embedded: (a) => {
      const p = a.parts;
      const server = new ipaddr.IPv4([p[2] >> 8, p[2] & 0xff, p[3] >> 8, p[3] & 0xff]);
      const c6 = p[6] ^ 0xffff;
      const c7 = p[7] ^ 0xffff;
      const client = new ipaddr.IPv4([c6 >> 8, c6 & 0xff, c7 >> 8, c7 & 0xff]);
      return [client, server];
    },
  },
  { cidr: cidr('2001:db8::/32'), rule: 'documentation', reason: 'a documentation address (2001:db8::/32)' },
  { cidr: cidr('2001::/23'), rule: 'reserved', reason: 'an IETF protocol-assignment address (2001::/23)' },
  // 6to4: bits 16-47 are the IPv4 address of the site.
  {
    cidr: cidr('2002::/16'),
    rule: '6to4',
    reason: 'a 6to4 address',
    embedded: (a) => [new ipaddr.IPv4([a.parts[1] >> 8, a.parts[1] & 0xff, a.parts[2] >> 8, a.parts[2] & 0xff])],
  },
  { cidr: cidr('3fff::/20'), rule: 'documentation', reason: 'a documentation address (3fff::/20)' },
  { cidr: cidr('5f00::/16'), rule: 'reserved', reason: 'a segment-routing address (5f00::/16)' },
  { cidr: cidr('fd00:ec2::254/128'), rule: 'metadata', reason: 'a cloud metadata address (AWS)' },
  { cidr: cidr('fc00::/7'), rule: 'unique-local', reason: 'a unique-local address (fc00::/7)' },
  { cidr: cidr('fe80::/10'), rule: 'link-local', reason: 'a link-local address' },
  { cidr: cidr('fec0::/10'), rule: 'site-local', reason: 'a site-local address (deprecated)' },
  { cidr: cidr('ff00::/8'), rule: 'multicast', reason: 'a multicast address' },
];

/** IANA has allocated only 2000::/3 for global unicast; everything else is special or unassigned. */
const GLOBAL_UNICAST = cidr('2000::/3');
const IPV4_MAPPED = cidr('::ffff:0:0/96');

/**
 * Decides whether `ip` may be connected to. `ip` is any textual IP address (a DNS answer, a URL's
 * IP literal with or without brackets, `socket.remoteAddress`); anything that does not parse is
 * refused. The operator's allow list is consulted first.
 */
export function checkAddress(ip: string, allow: AllowList = EMPTY_ALLOW_LIST): AddressVerdict {
  const address = parseIp(ip);
  if (!address) return { allowed: false, address: ip, rule: 'invalid', reason: 'not an IP address' };
  return judge(address, allow);
}

/**
 * Parses an address the way the network stack will read it. IPv6 text goes through the WHATWG
 * (RFC 4291) parser first, because ipaddr.js reads `::10.0.0.1` as IPv4-mapped and accepts hex
 * parts after `::ffff:` that inet_pton refuses: two parsers that disagree are how SSRF filters get
 * bypassed. The zone (`%eth0`) only exists on link-local addresses and is dropped.
 */
function parseIp(ip: string): Address | undefined {
  let text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  try {
    if (text.includes(':')) {
      text = text.replace(/%.*$/, '');
      const host = new URL(`http://[${text}]/`).hostname;
      return ipaddr.IPv6.parse(host.slice(1, -1));
    }
    // IPv4 text in the inet_aton forms (`0x7f.1`, `0177.0.0.1`, `2130706433`) means what it
    // means to inet_aton and to WHATWG URL parsing, which agree; ipaddr.js reads it the same way.
    return ipaddr.IPv4.parse(text);
  } catch {
    return undefined;
  }
}

function judge(address: Address, allow: AllowList): AddressVerdict {
  const shown = address.toString();
  if (allow.cidrs.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits))) {
    return { allowed: true, address: shown, allowListed: true };
  }
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    // IPv4-mapped is the IPv4 address itself as far as the kernel is concerned.
    if (v6.match(IPV4_MAPPED)) {
      const v4 = v6.toIPv4Address();
      const verdict = judge(v4, allow);
      return verdict.allowed
        ? { allowed: true, address: shown, allowListed: verdict.allowListed }
        : { ...verdict, address: shown, reason: `${verdict.reason} (IPv4-mapped ${v4.toString()})` };
    }
    for (const rule of IPV6_RULES) {
      if (!v6.match(rule.cidr)) continue;
      if (!rule.embedded) return refused(shown, rule);
      for (const inner of rule.embedded(v6)) {
        const verdict = judge(inner, allow);
        if (!verdict.allowed) return { allowed: false, address: shown, rule: rule.rule, reason: `${rule.reason} embedding ${inner.toString()}, ${verdict.reason}` };
      }
      return { allowed: true, address: shown, allowListed: false };
    }
    if (!v6.match(GLOBAL_UNICAST)) return { allowed: false, address: shown, rule: 'reserved', reason: 'a reserved address (outside the global unicast range 2000::/3)' };
    return { allowed: true, address: shown, allowListed: false };
  }
  const v4 = address as ipaddr.IPv4;
  for (const rule of IPV4_RULES) {
    if (v4.match(rule.cidr)) return refused(shown, rule);
  }
  return { allowed: true, address: shown, allowListed: false };
}

function refused(address: string, rule: Rule): AddressVerdict {
  return { allowed: false, address, rule: rule.rule, reason: rule.reason };
}

/** True when two textual addresses name the same endpoint (`::ffff:1.2.3.4` equals `1.2.3.4`). */
export function sameAddress(a: string, b: string): boolean {
  const x = parseIp(a);
  const y = parseIp(b);
  if (!x || !y) return false;
  const unmap = (address: Address) => (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address);
  return unmap(x).toNormalizedString() === unmap(y).toNormalizedString();
}
