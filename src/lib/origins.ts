/**
 * Whitelisted page origins (`domains_whitelist`): each entry is a full origin, protocol and host,
 * with a port only when it is not the protocol's standard one (80 for http, 443 for https).
 * `localhost` is an ordinary host here: it must be listed to run a page locally.
 */
const STANDARD_PORTS: Record<string, string> = { http: '80', https: '443' };

/** protocol://host[:port], nothing after it. Host: DNS name, IPv4 or bracketed IPv6. */
const ORIGIN = /^(https?):\/\/((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?$/i;

/** Why an entry is not a whitelistable origin, or null when it is one. */
export function originProblem(entry: string): string | null {
  const m = ORIGIN.exec(entry);
  if (!m) return 'must be an origin: protocol and domain, and the port when it is not standard, e.g. https://shop.example.com or http://localhost:8080';
  const [, protocol, , port] = m;
  if (port !== undefined) {
    const n = Number(port);
    if (n < 1 || n > 65535) return 'has a port outside 1..65535';
    if (STANDARD_PORTS[(protocol ?? '').toLowerCase()] === String(n)) return `must leave out the standard port ${n}`;
  }
  return null;
}

/** The form browsers send in the Origin header: lower case, no default port. */
export function normalizeOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether a page origin may connect. A missing or empty whitelist refuses every origin. */
export function originAllowed(whitelist: unknown, origin: string | undefined): boolean {
  if (!origin || !Array.isArray(whitelist) || whitelist.length === 0) return false;
  const wanted = normalizeOrigin(origin);
  if (wanted === null) return false;
  return whitelist.some((entry) => typeof entry === 'string' && normalizeOrigin(entry) === wanted);
}
