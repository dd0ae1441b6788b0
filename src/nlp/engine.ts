/**
 * What every NLP engine gives the service: the intents of one received text, best first, and the
 * engine's own answer as JSON (messaging-api.md, `nlp` of message_received).
 */
export interface NlpIntent {
  id: string;
  confidence: number;
}

export interface NlpResult {
  /** Ordered by confidence, highest first. */
  intents: NlpIntent[];
  /** The engine's full answer, JSON-safe. */
  native_data: Record<string, unknown>;
}

export type NlpOutcome = { ok: true; result: NlpResult } | { ok: false; reason: 'timeout' | 'failed'; message: string };

export interface NlpEngine {
  /** One classification; never throws: failures and an aborted signal (budget over) are values. */
  parse(text: string, signal: AbortSignal): Promise<NlpOutcome>;
}

/** Intents ordered by confidence, highest first (a stable sort keeps the engine's order on ties). */
export function byConfidence(intents: NlpIntent[]): NlpIntent[] {
  return [...intents].sort((a, b) => b.confidence - a.confidence);
}

export function timedOut(message = 'The NLP engine did not answer within the time budget.'): NlpOutcome {
  return { ok: false, reason: 'timeout', message };
}

export function failed(message: string): NlpOutcome {
  return { ok: false, reason: 'failed', message };
}
