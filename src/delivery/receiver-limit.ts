/**
 * How many webhook calls one receiver gets at once, learned from its answers: an AIMD limit
 * between 1 and the configured ceiling (WEBHOOK_ENDPOINT_CONCURRENCY).
 *
 * - A receiver starts at a few calls and, while it answers well, gains one call per answer
 *   (doubling each round trip, like a transport's slow start) until the first sign of trouble,
 *   then one call per round trip.
 * - A failure that says "too much" (no answer, a timeout, 408, 429, 5xx) halves the limit; an
 *   answer much slower than the receiver's usual one takes a fifth off. At most one cut per round
 *   trip, so one burst of failures counts once.
 * - Other answers (2xx, 3xx, other 4xx) say nothing about load beyond their latency.
 * - The limit grows only while the receiver is using most of it: an idle receiver keeps the
 *   limit it proved, not the ceiling.
 *
 * "Usual" is the fastest recent answer: the least latency seen, drifting a little towards each
 * new answer so that a receiver whose normal latency rose is not cut forever.
 */
export type AnswerSignal = 'ok' | 'overload' | 'neutral';

/** Calls a new receiver starts with (or the ceiling, when lower). */
export const INITIAL_RECEIVER_LIMIT = 4;

/**
 * An answer this much slower than the usual one (and by at least SLOW_MARGIN_MS) is a sign of
 * load. The margin is wide because the latency is measured in this process: a busy event loop
 * (a long claim, a GC) makes every call in flight look slower by the same amount.
 */
const SLOW_FACTOR = 3;
const SLOW_MARGIN_MS = 200;
/** How far the usual latency moves towards a slower answer, per answer. */
const USUAL_DRIFT = 0.01;

export class ReceiverLimit {
  private limit: number;
  private slowStart = true;
  private usualMs: number | null = null;
  private lastCutAt = -Infinity;

  constructor(readonly ceiling: number) {
    this.limit = Math.min(ceiling, INITIAL_RECEIVER_LIMIT);
  }

  /** Calls the receiver may have at once now. */
  get current(): number {
    return Math.max(1, Math.min(this.ceiling, Math.floor(this.limit)));
  }

  /**
   * One call ended at `now` (ms) after `latencyMs`; `inFlight` calls (this one included) were
   * running to the receiver when it ended.
   */
  observe(now: number, latencyMs: number, signal: AnswerSignal, inFlight: number): void {
    if (signal === 'overload') {
      this.cut(now, 0.5);
      return;
    }
    const usual = this.usualMs === null || latencyMs < this.usualMs ? latencyMs : this.usualMs + (latencyMs - this.usualMs) * USUAL_DRIFT;
    this.usualMs = usual;
    if (latencyMs > Math.max(usual * SLOW_FACTOR, usual + SLOW_MARGIN_MS)) {
      this.cut(now, 0.8);
      return;
    }
    if (signal !== 'ok') return;
    // Grow only on evidence: the receiver answered well while holding most of its limit.
    if (inFlight * 2 < this.current) return;
    this.limit = Math.min(this.ceiling, this.slowStart ? this.limit + 1 : this.limit + 1 / this.limit);
  }

  private cut(now: number, factor: number): void {
    this.slowStart = false;
    const window = Math.max(this.usualMs ?? 0, 10);
    if (now - this.lastCutAt < window) return;
    this.lastCutAt = now;
    this.limit = Math.max(1, this.limit * factor);
  }
}

/** What an answer says about the receiver's load: null status is no answer at all (or a timeout). */
export function answerSignal(statusCode: number | null): AnswerSignal {
  if (statusCode === null || statusCode === 408 || statusCode === 429 || statusCode >= 500) return 'overload';
  if (statusCode >= 200 && statusCode < 300) return 'ok';
  return 'neutral';
}
