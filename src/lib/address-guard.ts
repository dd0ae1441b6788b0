import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { isAllowlisted, isBlockedAddress } from './addresses.js';

/**
 * The SSRF guard of every call whose address comes from outside (webhook URLs, media URLs in
 * platform payloads). A host name is resolved by the guard's lookup and the connection goes only
 * to an address that passed the check, so a name cannot be checked against one address and then
 * connect to another (DNS rebinding). Literal addresses never reach a lookup; they are checked
 * before connecting.
 */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
}

/** Resolves a host name to all its addresses (tests swap in a fixed table). */
export type Resolver = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

export interface GuardOptions {
  /** Hosts, addresses and CIDR ranges (each optionally with a port) let through although private. */
  allowlist: readonly string[];
  /** The setting that holds the allowlist, named in refusals (e.g. WEBHOOK_ALLOWLIST). */
  setting: string;
  /** Replaces DNS resolution (tests). */
  resolve?: Resolver;
}

/**
 * Names the host as the caller wrote it and never the address it resolved to: the message ends
 * up in logs the account can read, and internal DNS is none of its business.
 */
export function refusalMessage(host: string, setting: string): string {
  return `Refused to call ${host}: a loopback, private, link-local or reserved address. An operator can allow it with ${setting}.`;
}

/** Whether a call to `address`, reached through the name `host` on `port`, may go out. */
export function addressAllowed(host: string, address: string, allowlist: readonly string[], port?: number): boolean {
  return !isBlockedAddress(address) || isAllowlisted(address, allowlist, port) || isAllowlisted(host, allowlist, port);
}

/** The port a URL reaches (its default when it names none). */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** A refusal message when the URL names a literal address the guard does not let through. */
export function literalRefusal(url: URL, allowlist: readonly string[], setting = 'WEBHOOK_ALLOWLIST'): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return null;
  return addressAllowed(host, host, allowlist, portOf(url)) ? null : refusalMessage(host, setting);
}

/** A `lookup` for net/tls connect that keeps only the addresses the guard allows for `port`. */
export function guardedLookup(options: GuardOptions, port?: number): LookupFunction {
  const resolve = options.resolve ?? systemResolver;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, lookupOptions).then(
      (addresses) => {
        const usable = addresses.filter((a) => addressAllowed(hostname, a.address, options.allowlist, port));
        const first = usable[0];
        if (!first) callback(new AddressRefusedError(refusalMessage(hostname, options.setting)), '', 0);
        else if (lookupOptions.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

export interface GuardedConnectOptions extends GuardOptions {
  /** Verify the server's TLS certificate. */
  rejectUnauthorized: boolean;
  /** Connect (and TLS handshake) deadline. */
  timeoutMs: number;
}

const MAX_PORTS = 64;

/**
 * An undici `connect` that applies the guard to every new connection: a literal address is
 * checked before connecting, a name through the guarded lookup. The lookup is bound to the port
 * of the connection, so allowlist entries with a port open only that port.
 */
export function guardedConnector(options: GuardedConnectOptions): buildConnector.connector {
  const byPort = new Map<number, buildConnector.connector>();
  return (target, callback) => {
    const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !addressAllowed(host, host, options.allowlist, port)) {
      callback(new AddressRefusedError(refusalMessage(host, options.setting)), null);
      return;
    }
    let connect = byPort.get(port);
    if (!connect) {
      if (byPort.size >= MAX_PORTS) byPort.clear();
      connect = buildConnector({ lookup: guardedLookup(options, port), rejectUnauthorized: options.rejectUnauthorized, timeout: options.timeoutMs });
      byPort.set(port, connect);
    }
    connect(target, callback);
  };
}
