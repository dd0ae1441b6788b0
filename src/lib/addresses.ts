import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Address ranges the service must not call by default (SSRF guard): loopback, private, link-local
 * (which holds cloud metadata services), carrier-grade NAT, unspecified, broadcast, multicast,
 * documentation and reserved. Only plain unicast addresses pass.
 */
const BLOCKED_V4 = new Set<string>(['unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'carrierGradeNat', 'private', 'reserved']);

/** IPv6 ranges refused outright (deprecated site-local fec0::/10 included). */
const BLOCKED_V6 = new Set<string>([
  'unspecified',
  'linkLocal',
  'multicast',
  'loopback',
  'uniqueLocal',
  'deprecatedSiteLocal',
  'discard',
  'reserved',
  'benchmarking',
]);

const v6 = (cidr: string): [IPv6, number] => ipaddr.IPv6.parseCIDR(cidr);

/** The local-use NAT64 prefix (RFC 8215): where the IPv4 sits depends on the local network, so it is refused whole. */
const NAT64_LOCAL = v6('64:ff9b:1::/48');
const NAT64 = v6('64:ff9b::/96');
const MAPPED = v6('::ffff:0:0/96');
const TRANSLATED = v6('::ffff:0:0:0/96');
const COMPATIBLE = v6('::/96');
const SIX_TO_FOUR = v6('2002::/16');
const TEREDO = v6('2001::/32');

function v4(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, which is where a packet to it ends up: the last
 * 32 bits of NAT64, IPv4-mapped, -translated and -compatible forms; bits 16-47 of 6to4; and for
 * Teredo the server (bits 32-63) and the client (the last 32 bits, inverted).
 */
function embeddedV4(address: IPv6): IPv4[] {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  if (address.match(NAT64) || address.match(MAPPED) || address.match(TRANSLATED) || address.match(COMPATIBLE)) return [v4(p[6], p[7])];
  if (address.match(SIX_TO_FOUR)) return [v4(p[1], p[2])];
  if (address.match(TEREDO)) return [v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff)];
  return [];
}

function blockedV4(address: IPv4): boolean {
  return BLOCKED_V4.has(address.range());
}

/** Whether the guard refuses an address by default. Anything that is not an IP address is refused. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) return true;
  let parsed: IPv4 | IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return blockedV4(parsed as IPv4);
  const six = parsed as IPv6;
  if (six.match(NAT64_LOCAL)) return true;
  const carried = embeddedV4(six);
  if (carried.length > 0) return carried.some(blockedV4);
  return BLOCKED_V6.has(six.range());
}

/** One parsed allowlist entry: a host name, an address or a CIDR range, with or without a port. */
interface Entry {
  host: string | null;
  range: [IPv4 | IPv6, number] | null;
  port: number | null;
}

function parseEntry(raw: string): Entry | null {
  let text = raw.trim().toLowerCase();
  if (text === '') return null;
  let port: number | null = null;
  // "[v6]:port", "host:port" and "v4:port"; a bare IPv6 address has more than one colon.
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) {
    text = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else {
    const hostPort = /^([^:]+):(\d{1,5})$/.exec(text);
    if (hostPort) {
      text = hostPort[1]!;
      port = Number(hostPort[2]);
    }
  }
  if (text.includes('/')) {
    try {
      return { host: null, range: ipaddr.parseCIDR(text), port };
    } catch {
      return null;
    }
  }
  if (isIP(text) !== 0) return { host: null, range: [ipaddr.parse(text), text.includes(':') ? 128 : 32], port };
  return { host: text, range: null, port };
}

const parsedLists = new WeakMap<readonly string[], Entry[]>();

function entriesOf(allowlist: readonly string[]): Entry[] {
  let entries = parsedLists.get(allowlist);
  if (!entries) {
    entries = allowlist.map(parseEntry).filter((e): e is Entry => e !== null);
    parsedLists.set(allowlist, entries);
  }
  return entries;
}

/**
 * Allowlist entries are host names, addresses or CIDR ranges ("localhost", "127.0.0.1",
 * "10.0.0.0/8"), each optionally with a port ("127.0.0.1:9101", "[::1]:9101"), which then opens
 * only that port. Without a `port` argument only the entries without a port apply.
 */
export function isAllowlisted(hostOrAddress: string, allowlist: readonly string[], port?: number): boolean {
  const host = hostOrAddress.toLowerCase().replace(/^\[|\]$/g, '');
  let address: IPv4 | IPv6 | null = null;
  if (isIP(host) !== 0) {
    try {
      address = ipaddr.parse(host);
    } catch {
      address = null;
    }
  }
  for (const entry of entriesOf(allowlist)) {
    if (entry.port !== null && entry.port !== port) continue;
    if (entry.host !== null && entry.host === host) return true;
    if (entry.range && address && address.kind() === entry.range[0].kind() && address.match(entry.range)) return true;
  }
  return false;
}
