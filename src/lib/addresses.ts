import { BlockList, isIP } from 'node:net';

/**
 * Address ranges a webhook must not reach by default (SSRF guard): loopback, private, link-local
 * (which holds cloud metadata services), carrier-grade NAT, unspecified, multicast and reserved.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

function mappedV4(address: string): string | null {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? null;
}

export function isBlockedAddress(address: string): boolean {
  const v4 = mappedV4(address);
  if (v4) return blocked.check(v4, 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

/** Allowlist entries are host names, addresses or CIDR ranges ("127.0.0.1", "localhost", "10.0.0.0/8"). */
export function isAllowlisted(hostOrAddress: string, allowlist: readonly string[]): boolean {
  const host = hostOrAddress.toLowerCase().replace(/^\[|\]$/g, '');
  for (const entry of allowlist) {
    const e = entry.toLowerCase().trim();
    if (e === host) return true;
    const [net, bits] = e.split('/');
    if (bits !== undefined && net && isIP(host) !== 0 && isIP(net) === isIP(host)) {
      const list = new BlockList();
      const family = isIP(net) === 4 ? 'ipv4' : 'ipv6';
      list.addSubnet(net, Number(bits), family);
      if (list.check(host, family)) return true;
    }
  }
  return false;
}
