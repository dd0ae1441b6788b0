import type { RouteOptions } from 'fastify';
import FindMyWay from 'find-my-way';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/** The kinds of caller, one scope each (scopes.ts). */
export type ScopeName = 'public' | 'token' | 'admin';

/**
 * Every route of the app, by method and path, with the scope it is mounted in, kept beside
 * Fastify's router for requests that match no route: which other methods the path allows (405),
 * and whether all of them are public (then an unmatched method needs no token to be told so).
 */
export class RouteTable {
  private readonly router = FindMyWay();

  /** Called from each scope's onRoute hook. */
  add(route: RouteOptions, scope: ScopeName): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if ((METHODS as readonly string[]).includes(m)) this.router.on(m as Method, route.url, () => undefined, { scope });
    }
  }

  /** The routes the URL matches under other methods than the one asked. */
  others(method: string, url: string): Array<{ method: Method; scope: ScopeName }> {
    const out: Array<{ method: Method; scope: ScopeName }> = [];
    for (const m of METHODS) {
      if (m === method) continue;
      const found = this.router.find(m, url);
      if (found) out.push({ method: m, scope: (found.store as { scope: ScopeName }).scope });
    }
    return out;
  }
}
