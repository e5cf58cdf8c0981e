import { AddressRule, checkAddress, EMPTY_ALLOW_LIST, parseAllowList, sameAddress } from './address-policy';

type Case = [ip: string, rule: AddressRule];

describe('checkAddress refuses', () => {
  const ipv4: Case[] = [
    // loopback, in every spelling inet_aton (and WHATWG URL parsing) accepts
    ['127.0.0.1', 'loopback'],
    ['127.0.0.0', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0x7F.0x0.0x0.0x1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0177.0.0.01', 'loopback'],
    ['017700000001', 'loopback'],
    ['127.1', 'loopback'],
    ['127.0.1', 'loopback'],
    // "this network"
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    // private, with edges
    ['10.0.0.0', 'private'],
    ['10.0.0.5', 'private'],
    ['10.255.255.255', 'private'],
    ['0xa.0.0.1', 'private'],
    ['172.16.0.0', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.0', 'private'],
    ['192.168.1.1', 'private'],
    ['192.168.255.255', 'private'],
    ['3232235777', 'private'],
    // carrier-grade NAT
    ['100.64.0.0', 'cgnat'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    // link-local and cloud metadata
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['169.254.170.2', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['100.100.100.200', 'metadata'],
    // IETF, documentation, benchmarking, relay
    ['192.0.0.0', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.0.255', 'reserved'],
    ['192.0.2.0', 'documentation'],
    ['192.0.2.1', 'documentation'],
    ['192.0.2.255', 'documentation'],
    ['198.51.100.0', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.0', 'documentation'],
    ['203.0.113.255', 'documentation'],
    ['198.18.0.0', 'benchmarking'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', 'reserved'],
    // multicast, reserved, broadcast
    ['224.0.0.0', 'multicast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['250.1.2.3', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ];
  const ipv6: Case[] = [
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    // IPv4-mapped, in dotted and hex notation: judged as the IPv4 address they are
    ['::ffff:127.0.0.1', 'loopback'],
    ['::FFFF:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:0.0.0.0', 'unspecified'],
    // IPv4-compatible (deprecated): refused whatever it embeds
    ['::10.0.0.1', 'ipv4-compatible'],
    ['::a00:1', 'ipv4-compatible'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::8.8.8.8', 'ipv4-compatible'],
    ['::ffff:0:a00:1', 'ipv4-translated'],
    // NAT64, 6to4 and Teredo embedding refused IPv4 addresses
    ['64:ff9b::a00:1', 'nat64'],
    ['64:ff9b::10.0.0.1', 'nat64'],
    ['64:ff9b::7f00:1', 'nat64'],
    ['64:ff9b::a9fe:a9fe', 'nat64'],
    ['64:ff9b:1::1', 'nat64'],
    ['2002:a00:1::', '6to4'],
    ['2002:0a00:0001::1', '6to4'],
    ['2002:7f00:1::', '6to4'],
    ['2002:c0a8:101::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo'], // client 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'], // client 127.0.0.1
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'teredo'], // server 10.0.0.1
    // link-local, unique-local, site-local, metadata
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00::1', 'unique-local'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fec0::1', 'site-local'],
    // multicast, documentation, other special or unassigned space
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['ff00::', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['100::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['2001:1ff:ffff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['1::1', 'reserved'],
    ['e000::1', 'reserved'],
  ];
  const invalid: string[] = ['not-an-ip', 'example.com', '', '1.2.3.4.5', '256.1.1.1', '::ffff:0x7f.0.0.1', '::ffff:127.1', '1::2::3', '[::1', '127.0.0.1 '];

  it.each(ipv4)('IPv4 %s (%s)', (ip, rule) => {
    const verdict = checkAddress(ip);
    expect(verdict).toMatchObject({ allowed: false, rule });
  });

  it.each(ipv6)('IPv6 %s (%s)', (ip, rule) => {
    expect(checkAddress(ip)).toMatchObject({ allowed: false, rule });
  });

  it.each(invalid)('unparseable %p', (ip) => {
    expect(checkAddress(ip)).toMatchObject({ allowed: false, rule: 'invalid' });
  });

  it('names the rule in words, with the embedded address where there is one', () => {
    expect(checkAddress('10.0.0.5')).toMatchObject({ address: '10.0.0.5', reason: 'a private address' });
    expect(checkAddress('::ffff:7f00:1')).toMatchObject({ reason: 'a loopback address (IPv4-mapped 127.0.0.1)' });
    expect(checkAddress('2002:a00:1::')).toMatchObject({ reason: 'a 6to4 address embedding 10.0.0.1, a private address' });
    expect(checkAddress('2001:0:4136:e378:8000:63bf:f5ff:fffe')).toMatchObject({ reason: 'a Teredo address embedding 10.0.0.1, a private address' });
    expect(checkAddress('0x7f.1')).toMatchObject({ address: '127.0.0.1' });
  });
});

describe('checkAddress allows public addresses', () => {
  it.each([
    // edges of refused ranges
    '172.15.255.255',
    '172.32.0.0',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '198.17.255.255',
    '198.20.0.0',
    '198.51.99.255',
    '198.51.101.0',
    '203.0.112.255',
    '203.0.114.0',
    '223.255.255.255',
    '1.0.0.0',
    // well-known public hosts
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '151.101.1.69',
    '140.82.112.3',
    '192.31.196.1',
    '192.52.193.1',
    '1.2.3', // inet_aton: 1.2.0.3
    // IPv6
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '2620:fe::fe',
    '2001:db7::1',
    '2001:db9::1',
    '2001:200::1',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo: public server and client 8.8.8.8
  ])('%s', (ip) => {
    expect(checkAddress(ip)).toMatchObject({ allowed: true, allowListed: false });
  });
});

describe('checkAddress with an operator allow list', () => {
  it.each([
    ['127.0.0.1/32', '127.0.0.1', true],
    ['127.0.0.1/32', '::ffff:127.0.0.1', true],
    ['127.0.0.1/32', '127.0.0.2', false],
    ['127.0.0.1/32', '::1', false],
    ['10.0.0.0/8', '10.1.2.3', true],
    ['10.0.0.0/8', '11.0.0.1', true], // public anyway
    ['10.0.0.0/8', '172.16.0.1', false],
    ['10.0.0.0/8', '64:ff9b::a00:1', true], // the embedded address is allowed
    ['::1/128', '::1', true],
    ['::1/128', '127.0.0.1', false],
    ['fd00::/8', 'fd12::1', true],
    ['fd00::/8', 'fc00::1', false],
    ['192.168.1.5', '192.168.1.5', true],
    ['192.168.1.5', '192.168.1.6', false],
  ])('allow %s: %s → %s', (allow, ip, allowed) => {
    expect(checkAddress(ip, parseAllowList(allow)).allowed).toBe(allowed);
  });

  it('marks addresses that pass only because of the list', () => {
    expect(checkAddress('127.0.0.1', parseAllowList('127.0.0.1/32'))).toEqual({ allowed: true, address: '127.0.0.1', allowListed: true });
    expect(checkAddress('127.0.0.1', EMPTY_ALLOW_LIST).allowed).toBe(false);
  });
});

describe('parseAllowList', () => {
  it.each([
    ['', []],
    ['127.0.0.1/32', ['127.0.0.1/32']],
    [' 127.0.0.1/32 , ::1/128 ,', ['127.0.0.1/32', '::1/128']],
    ['192.168.1.5', ['192.168.1.5']],
  ])('%p', (value, entries) => {
    expect(parseAllowList(value).entries).toEqual(entries);
  });

  it('accepts an array (as config passes it)', () => {
    expect(parseAllowList(['10.0.0.0/8', 'fd00::/8']).cidrs).toHaveLength(2);
    expect(parseAllowList(undefined).cidrs).toHaveLength(0);
  });

  it.each(['10.0.0.0/99', '10.0.0/8', 'example.com', '1.2.3.4/', '/8', '::1/129', 'fd00::/8x', '0x7f.1/32', '127.1', '127.0.0.1/32,nope'])('refuses %p with a clear error', (value) => {
    expect(() => parseAllowList(value)).toThrow(/QUARRY_FETCH_ALLOW: ".*" is not a CIDR/);
  });
});

describe('sameAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', true],
    ['::ffff:127.0.0.1', '127.0.0.1', true],
    ['::ffff:7f00:1', '127.0.0.1', true],
    ['2606:4700::1111', '2606:4700:0:0:0:0:0:1111', true],
    ['127.0.0.1', '127.0.0.2', false],
    ['::1', '127.0.0.1', false],
    ['junk', 'junk', false],
  ])('%s ≡ %s: %s', (a, b, same) => {
    expect(sameAddress(a, b)).toBe(same);
  });
});
