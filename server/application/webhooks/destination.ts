// Where a webhook may be sent (SPEC §14): an https URL whose host resolves only to public addresses,
// checked at creation and again before every attempt (a name may resolve elsewhere later). The resolver
// is a dependency, so tests stub it; WEBHOOK_ALLOW_PRIVATE=true lifts the address rule and allows http.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (as the operating system's resolver answers it). */
export type HostResolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Loopback, private, shared (CGNAT), link-local (cloud metadata at 169.254.169.254), multicast, reserved, unspecified. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
/** Metadata services outside the link-local range (Alibaba Cloud). */
FORBIDDEN.addAddress('100.100.100.200', 'ipv4');

/** An IPv4 address carried inside an IPv6 one (mapped, compatible, NAT64, 6to4), which routes to that IPv4 address. */
function embeddedIpv4(v6: string): string | null {
  const lower = v6.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  const m = hex ?? sixToFour;
  if (!m) return null;
  const hi = parseInt(m[1], 16);
  const lo = parseInt(m[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether a webhook may be sent to this address (when private destinations are not allowed). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIpv4(address.replace(/%.*$/, ''));
  if (inner) return isIP(inner) === 4 && !FORBIDDEN.check(inner, 'ipv4');
  return !FORBIDDEN.check(address.replace(/%.*$/, ''), 'ipv6');
}

export interface DestinationRules {
  allowPrivate: boolean;
  resolve: HostResolver;
}

export type Destination = { ok: true; url: URL; address: ResolvedAddress } | { ok: false; reason: string };

/** The URL's host name as a resolver takes it (IPv6 literals without brackets). */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The syntax rules alone (no resolution): an absolute http(s) URL without credentials, https unless private ones are allowed. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return allowPrivate ? 'must be an http or https URL' : 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (!url.hostname) return 'must name a host';
  return null;
}

/**
 * Resolves the URL's host and answers the address to connect to, or why it may not be sent to: every
 * address the name resolves to must be public (one private answer is enough to refuse, since a client
 * may connect to any of them). The caller connects to the address answered, not to a fresh resolution,
 * so the check and the connection see the same address.
 */
export async function checkDestination(raw: string, rules: DestinationRules): Promise<Destination> {
  const problem = urlProblem(raw, rules.allowPrivate);
  if (problem) return { ok: false, reason: problem };
  const url = new URL(raw);
  const host = hostOf(url);
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await rules.resolve(host);
    } catch {
      return { ok: false, reason: `its host ${host} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `its host ${host} does not resolve` };
  if (!rules.allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) return { ok: false, reason: `its host resolves to ${bad.address}, a loopback, private, link-local, multicast or metadata address` };
  }
  return { ok: true, url, address: addresses[0] };
}
