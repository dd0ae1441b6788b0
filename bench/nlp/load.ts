/**
 * The load of the NLP benchmark: botmsg updates posted straight to a channel's inbound URL with
 * the secret-token header, as the platform would, each a new message of a user of the bot.
 *
 * Every text is a held-out phrase with a reference number after it (`#123`), new for each
 * message: the engine remembers the words of each text it prepared, and real messages rarely
 * repeat; a number is a word no training phrase has, so it does not move the classification. The
 * number also tells which send an arriving event belongs to. The users write /start first, which
 * makes their contacts before the measurement.
 */
import type { Pool } from 'undici';
import type { HeldOutPhrase } from './model.js';
import { arrivalKey, type EventReceiver } from './receiver.js';
import { percentile } from '../shared/process.js';

export interface ChannelTarget {
  /** The receiver's path of its webhook: 'a' or 'b'. */
  name: string;
  id: string;
  inboundUrl: string;
  secretToken: string;
}

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface PhaseOptions {
  rate: number;
  seconds: number;
  warmupSeconds: number;
  users: readonly number[];
  phrases: readonly HeldOutPhrase[];
  /** The server's CPU time so far (ms), or null when it cannot be read. */
  serverCpuMs: () => number | null;
}

/** One phase's figures (times in ms, from performance.now() in this process). */
export interface PhaseResult {
  channel: string;
  offeredRate: number;
  achievedRate: number;
  sent: number;
  seconds: number;
  warmupSeconds: number;
  statuses: Record<string, number>;
  /** Updates not answered 200 (another status or no answer). */
  errors: number;
  /** Every update answered 200 had its event within the wait. */
  complete: boolean;
  /** Updates after the warm-up. */
  measured: number;
  /** Measured updates whose event arrived. */
  arrived: number;
  missing: number;
  callbackMs: LatencySummary;
  endToEndMs: LatencySummary;
  withNlp: number;
  withoutNlp: number;
  nlpShare: number;
  topIntentExpected: number;
  topIntentShare: number;
  topIntentShareByLanguage: Record<string, number>;
  serverCpuMsPerMessage: number | null;
}

interface Sent {
  n: number;
  text: string;
  phrase: HeldOutPhrase;
  startedAt: number;
  answeredAt: number;
  status: number | 'error';
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function summary(values: number[]): LatencySummary {
  const sorted = [...values].sort((x, y) => x - y);
  return { p50: round1(percentile(sorted, 50)), p95: round1(percentile(sorted, 95)), p99: round1(percentile(sorted, 99)), max: round1(sorted.at(-1) ?? 0) };
}

export class BotmsgLoad {
  /** update_id and message_id of the next update: new for every message. */
  private next = 1;

  constructor(
    private readonly pool: Pool,
    private readonly secretHeader: string,
    private readonly receiver: EventReceiver,
  ) {}

  private async post(target: ChannelTarget, chat: number, text: string): Promise<Omit<Sent, 'n' | 'text' | 'phrase'>> {
    const id = this.next++;
    const user = { id: chat, is_bot: false, first_name: 'Ana', language_code: 'en' };
    const body = JSON.stringify({
      update_id: 100_000 + id,
      message: { message_id: id, from: user, chat: { id: chat, first_name: 'Ana', type: 'private' }, date: Math.floor(Date.now() / 1000), text },
    });
    const headers = { 'content-type': 'application/json', [this.secretHeader]: target.secretToken };
    const startedAt = performance.now();
    try {
      const res = await this.pool.request({ path: new URL(target.inboundUrl).pathname, method: 'POST', headers, body });
      const answeredAt = performance.now();
      await res.body.dump();
      return { startedAt, answeredAt, status: res.statusCode };
    } catch {
      return { startedAt, answeredAt: performance.now(), status: 'error' };
    }
  }

  /** Each user writes /start (16 at a time); resolves once every event arrived. */
  async prime(target: ChannelTarget, users: readonly number[]): Promise<void> {
    const before = this.receiver.count(target.name);
    let i = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (i < users.length) {
          const chat = users[i++]!;
          const sent = await this.post(target, chat, `/start #${this.next}`);
          if (sent.status !== 200) throw new Error(`priming channel ${target.name}: answered ${sent.status}`);
        }
      }),
    );
    if (!(await this.receiver.waitFor(target.name, before + users.length, 30_000))) throw new Error(`priming channel ${target.name}: events missing`);
  }

  /** One phase: open loop at `rate` for warm-up plus `seconds`; the figures cover the messages after the warm-up. */
  async phase(target: ChannelTarget, o: PhaseOptions): Promise<PhaseResult> {
    const total = Math.round(o.rate * (o.seconds + o.warmupSeconds));
    const warmup = Math.round(o.rate * o.warmupSeconds);
    const before = this.receiver.count(target.name);
    const sent: Sent[] = [];
    const inflight = new Set<Promise<void>>();
    const started = performance.now();
    let cpuAtMeasure: number | null = null;
    // Open loop: requests leave on a fixed schedule whatever the answers' latency.
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / o.rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (n === warmup) cpuAtMeasure = o.serverCpuMs();
      const chat = o.users[n % o.users.length]!;
      const phrase = o.phrases[n % o.phrases.length]!;
      const text = `${phrase.text} #${this.next}`;
      const p = this.post(target, chat, text).then((r) => void sent.push({ n, text, phrase, ...r }));
      const tracked = p.finally(() => inflight.delete(tracked));
      inflight.add(tracked);
    }
    const offeredSeconds = (performance.now() - started) / 1000;
    await Promise.all(inflight);
    const answered = sent.filter((s) => s.status === 200).length;
    const complete = await this.receiver.waitFor(target.name, before + answered, 30_000);
    const cpuAtEnd = o.serverCpuMs();

    const statuses: Record<string, number> = {};
    for (const s of sent) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    const measured = sent.filter((s) => s.n >= warmup);
    const callback: number[] = [];
    const endToEnd: number[] = [];
    let missing = 0;
    let withNlp = 0;
    let expected = 0;
    const byLanguage: Record<string, { messages: number; expected: number }> = {};
    for (const s of measured) {
      if (s.status !== 200) continue;
      callback.push(s.answeredAt - s.startedAt);
      const arrival = this.receiver.arrivals.get(arrivalKey(target.name, s.text));
      if (!arrival) {
        missing += 1;
        continue;
      }
      endToEnd.push(arrival.at - s.startedAt);
      if (arrival.nlp) withNlp += 1;
      const lang = (byLanguage[s.phrase.language] ??= { messages: 0, expected: 0 });
      lang.messages += 1;
      if (arrival.topIntent === s.phrase.intent) {
        expected += 1;
        lang.expected += 1;
      }
    }
    const errors = sent.length - answered;
    return {
      channel: target.name,
      offeredRate: o.rate,
      achievedRate: Math.round(total / offeredSeconds),
      sent: total,
      seconds: o.seconds,
      warmupSeconds: o.warmupSeconds,
      statuses,
      errors,
      complete,
      measured: measured.length,
      arrived: endToEnd.length,
      missing,
      callbackMs: summary(callback),
      endToEndMs: summary(endToEnd),
      withNlp,
      withoutNlp: endToEnd.length - withNlp,
      nlpShare: endToEnd.length > 0 ? round3(withNlp / endToEnd.length) : 0,
      topIntentExpected: expected,
      topIntentShare: endToEnd.length > 0 ? round3(expected / endToEnd.length) : 0,
      topIntentShareByLanguage: Object.fromEntries(Object.entries(byLanguage).map(([l, v]) => [l, round3(v.expected / v.messages)])),
      serverCpuMsPerMessage:
        cpuAtMeasure !== null && cpuAtEnd !== null && measured.length > 0 ? Math.round(((cpuAtEnd - cpuAtMeasure) / measured.length) * 100) / 100 : null,
    };
  }
}
