import type { ModelInput } from './model.js';

// Options of the NLU server stand-in. The greeting of `GET /` names the product on the real server,
// so the name is an option with a neutral default.

export interface NluserverOptions {
  /** The auth token (`?token=`) the parse and status routes require; none = open, as without `--auth-token`. */
  token?: string | null;
  /** A model loaded at start (same shape as `PUT /_sandbox/model`); none = no model loaded (409). */
  model?: ModelInput;
  /** Version reported by `GET /` and `GET /version`, and in error bodies. */
  version?: string;
  minimumCompatibleVersion?: string;
  /** The name in the `GET /` greeting. */
  serverName?: string;
  /** How many intents `intent_ranking` lists at most (the server's classifier keeps 10). */
  rankingLength?: number;
  webhookTimeoutMs?: number;
  publicBaseUrl?: string;
  userAgent?: string;
  logger?: boolean;
  now?: () => number;
}

export interface ResolvedNluserverOptions {
  version: string;
  minimumCompatibleVersion: string;
  serverName: string;
  rankingLength: number;
  webhookTimeoutMs: number;
  publicBaseUrl: string | undefined;
  userAgent: string;
  logger: boolean;
  now: () => number;
}

export function resolveOptions(o: NluserverOptions): ResolvedNluserverOptions {
  const ranking = o.rankingLength ?? 10;
  if (!Number.isInteger(ranking) || ranking < 1) throw new Error('rankingLength must be a positive integer');
  return {
    version: o.version ?? '3.6.20',
    minimumCompatibleVersion: o.minimumCompatibleVersion ?? '3.5.0',
    serverName: o.serverName ?? 'NLU server',
    rankingLength: ranking,
    webhookTimeoutMs: o.webhookTimeoutMs ?? 20_000,
    publicBaseUrl: o.publicBaseUrl,
    userAgent: o.userAgent ?? 'nluserver-sandbox/1.0',
    logger: o.logger ?? false,
    now: o.now ?? Date.now,
  };
}
