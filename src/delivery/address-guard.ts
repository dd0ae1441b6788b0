import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isAllowlisted, isBlockedAddress } from '../lib/addresses.js';

/**
 * The SSRF guard at delivery time. A webhook URL's host is resolved by this lookup, and the
 * connection goes only to an address that passed the check, so a name cannot be checked against
 * one address and then connect to another (DNS rebinding). Literal addresses never reach a
 * lookup; `literalRefusal` checks them before connecting.
 */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

/** Resolves a host name to all its addresses (tests swap in a fixed table). */
export type Resolver = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

function refusal(host: string, address: string): string {
  const what = host === address ? address : `${host} (${address})`;
  return `Refused to call ${what}: a loopback, private, link-local or reserved address. An operator can allow it with WEBHOOK_ALLOWLIST.`;
}

/** Whether a call to `address`, reached through the name `host`, may go out. */
export function addressAllowed(host: string, address: string, allowlist: readonly string[]): boolean {
  return !isBlockedAddress(address) || isAllowlisted(address, allowlist) || isAllowlisted(host, allowlist);
}

/** A refusal message when the URL names a literal address the guard does not let through. */
export function literalRefusal(url: URL, allowlist: readonly string[]): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return null;
  return addressAllowed(host, host, allowlist) ? null : refusal(host, host);
}

/** A `lookup` for net/tls connect that keeps only the addresses the guard allows. */
export function guardedLookup(allowlist: readonly string[], resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options).then(
      (addresses) => {
        const usable = addresses.filter((a) => addressAllowed(hostname, a.address, allowlist));
        const first = usable[0];
        if (!first) {
          const shown = addresses[0]?.address ?? 'no address';
          callback(new AddressRefusedError(refusal(hostname, shown)), '', 0);
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
