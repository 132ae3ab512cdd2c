import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { embeddedIPv4Addresses } from './embedded-ipv4';

/** Where webhooks may go: the two development switches (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** dns.lookup with every address; injectable so a test can play a rebinding resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

/** Why a URL or an address is refused; the message is safe to show an admin and to log. */
export class UnsafeUrlError extends Error {}

/**
 * Addresses no webhook may reach: loopback, private, shared (CGNAT), link-local (cloud metadata),
 * unique-local, unspecified, multicast, broadcast, documentation and benchmarking ranges. An IPv6
 * address that carries an IPv4 one (mapped, compatible, translated, NAT64, 6to4, Teredo) is also
 * judged by what it carries: see embedded-ipv4.ts.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  const withoutZone = address.replace(/%.*$/, '');
  return (
    FORBIDDEN.check(withoutZone, 'ipv6') ||
    embeddedIPv4Addresses(withoutZone).some((embedded) => FORBIDDEN.check(embedded, 'ipv4'))
  );
}

/** The URL's own rules, before any DNS: scheme, no credentials, a host. Returns the parsed URL. */
export function checkUrlShape(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('must be an absolute URL');
  }
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new UnsafeUrlError(policy.allowHttp ? 'must use https or http' : 'must use https');
  }
  if (url.username !== '' || url.password !== '') throw new UnsafeUrlError('must not carry credentials');
  if (url.hostname === '') throw new UnsafeUrlError('must name a host');
  return url;
}

/**
 * Resolves the URL's host and returns the address to connect to. Every address the name
 * resolves to must be allowed, not just the first: a name with one public and one private
 * address could otherwise reach the private one on another attempt. The caller connects to
 * exactly this address, so a second, rebinding DNS answer is never consulted.
 */
export async function vetDestination(url: URL, policy: UrlPolicy, resolve: Resolver): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const addresses: ResolvedAddress[] =
    literal !== 0 ? [{ address: host, family: literal === 6 ? 6 : 4 }] : await resolveHost(host, resolve);
  if (addresses.length === 0) throw new UnsafeUrlError(`host ${host} does not resolve`);
  if (!policy.allowPrivateNetworks) {
    const refused = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (refused) {
      throw new UnsafeUrlError(
        `host ${host} resolves to ${refused.address}, a loopback, private, link-local or reserved address`,
      );
    }
  }
  return addresses[0];
}

async function resolveHost(host: string, resolve: Resolver): Promise<ResolvedAddress[]> {
  try {
    return await resolve(host);
  } catch {
    throw new UnsafeUrlError(`host ${host} does not resolve`);
  }
}
