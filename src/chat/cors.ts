import type { IncomingMessage, ServerResponse } from 'node:http';
import cors, { type CorsOptions } from 'cors';
import type { Logger } from '../lib/logger.js';

/** Whether a page origin is on the channel's whitelist. */
export type OriginCheck = (channelId: string | undefined, origin: string) => Promise<boolean>;

const DECISION_TTL_MS = 5000;
const DECISIONS_MAX = 10_000;
const METHODS = ['GET', 'POST'];
/** Browsers may keep a preflight answer this long (seconds). */
const PREFLIGHT_MAX_AGE = 600;

function channelOf(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? '/', 'http://chat.invalid').searchParams.get('channel_id') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * CORS for the chat transport (every polling request, preflights and websocket upgrades).
 * A page on a whitelisted origin of the channel named in the query string gets its exact origin
 * back with credentials allowed: socket.io-client 2.x polls with credentials, and the browser
 * drops such answers without `Access-Control-Allow-Credentials: true` (and never accepts `*`
 * with it). Other pages get their origin back without credentials, so a client that polls
 * without credentials can still read connection_rejected and tell the visitor why.
 * Decisions are kept a few seconds: a polling client asks again every few seconds, and the
 * handshake itself always checks the whitelist as it is now.
 */
export function chatCors(check: OriginCheck, logger: Logger): (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void {
  const decisions = new Map<string, { allowed: boolean; expires: number }>();

  async function allowed(channelId: string | undefined, origin: string): Promise<boolean> {
    const key = `${channelId ?? ''} ${origin}`;
    const now = Date.now();
    const hit = decisions.get(key);
    if (hit && hit.expires > now) return hit.allowed;
    let verdict = false;
    try {
      verdict = await check(channelId, origin);
    } catch (error) {
      // Without the answer the browser gets no credentials header; the handshake reports the failure.
      logger.error({ err: error }, 'chat origin check failed');
      return false;
    }
    if (decisions.size >= DECISIONS_MAX) decisions.clear();
    decisions.set(key, { allowed: verdict, expires: now + DECISION_TTL_MS });
    return verdict;
  }

  return cors((req, done: (error: Error | null, options?: CorsOptions) => void) => {
    const origin = req.headers.origin;
    // Same-origin requests carry no Origin: nothing to answer.
    if (!origin) return done(null, { origin: false });
    void allowed(channelOf(req as IncomingMessage), origin).then((ok) =>
      done(
        null,
        ok ? { origin: true, credentials: true, methods: METHODS, maxAge: PREFLIGHT_MAX_AGE } : { origin: true, methods: METHODS, maxAge: PREFLIGHT_MAX_AGE },
      ),
    );
  });
}
