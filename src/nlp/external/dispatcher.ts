import { Agent, type Dispatcher } from 'undici';
import { guardedConnector, literalRefusal, type Resolver } from '../../lib/address-guard.js';

/** The setting that lets the NLU server be a private address, named in refusals. */
export const NLP_ALLOWLIST_SETTING = 'NLP_ALLOWLIST';

export interface NlpDispatcherOptions {
  /** NLP_ALLOWLIST: hosts, addresses and CIDR ranges (optionally with a port) the address guard lets through. */
  allowlist: readonly string[];
  /** Replaces DNS resolution (tests). */
  resolve?: Resolver;
}

/** Backstops only: every call is cut off earlier by its time budget (at most 10 s). */
const CONNECT_TIMEOUT_MS = 10_000;
const ANSWER_TIMEOUT_MS = 30_000;

const allowlists = new WeakMap<Dispatcher, readonly string[]>();

/**
 * The connection pool of the external NLP engines: keep-alive connections per NLU server, each new
 * connection through the address guard (a host name is resolved and checked before connecting, so
 * an integration's URL cannot reach the service's own network unless NLP_ALLOWLIST says so). TLS
 * certificates are always verified.
 */
export function nlpDispatcher(options: NlpDispatcherOptions): Agent {
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    headersTimeout: ANSWER_TIMEOUT_MS,
    bodyTimeout: ANSWER_TIMEOUT_MS,
    connect: guardedConnector({
      allowlist: options.allowlist,
      setting: NLP_ALLOWLIST_SETTING,
      rejectUnauthorized: true,
      timeoutMs: CONNECT_TIMEOUT_MS,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    }),
  });
  allowlists.set(agent, options.allowlist);
  return agent;
}

/**
 * Why a URL naming a literal address would be refused by this dispatcher, or null: checked before
 * any call, so a refused address costs no connection attempt. Null for a dispatcher not made by
 * nlpDispatcher (its own connector decides).
 */
export function literalRefusalOf(dispatcher: Dispatcher, url: URL): string | null {
  const allowlist = allowlists.get(dispatcher);
  return allowlist ? literalRefusal(url, allowlist, NLP_ALLOWLIST_SETTING) : null;
}
