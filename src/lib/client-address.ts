import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';

/**
 * The address of the client behind a request: the TCP peer, or, when the peer is one of the
 * configured trusted proxies, the nearest address in X-Forwarded-For that is not (so a client
 * cannot name itself by sending the header). Without trusted proxies the header is ignored.
 */
export function clientAddressOf(trustedProxies: readonly string[]): (req: IncomingMessage) => string {
  if (trustedProxies.length === 0) return (req) => req.socket.remoteAddress ?? 'unknown';
  const trust = proxyAddr.compile([...trustedProxies]);
  return (req) => (req.socket.remoteAddress === undefined ? 'unknown' : proxyAddr(req, trust));
}

/** Checks a trusted-proxy list the way clientAddressOf will use it; throws on an invalid entry. */
export function checkTrustedProxies(list: readonly string[]): void {
  proxyAddr.compile([...list]);
}

/**
 * The key limits count a client under: an IPv4 address (also when written IPv4-mapped), or the
 * /64 of an IPv6 address, as one IPv6 host is usually given a whole /64 to pick addresses from.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
