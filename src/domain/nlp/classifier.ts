import type { Store } from '../../store/store.js';
import type { NlpIntegrationHead } from '../../store/repos/nlp.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Logger } from '../../lib/logger.js';
import type { Content } from '../../schemas/content.js';
import { NLP_LIMITS, type NlpField } from '../../schemas/nlp.js';
import type { NlpEngine, NlpOutcome } from '../../nlp/engine.js';
import { externalConfigOf } from './view.js';
import { NlpStats } from './stats.js';

/** How the classifier gets an engine: the runtime builds them from the engines of src/nlp. */
export interface NlpEngines {
  /** A built-in engine from a stored model. */
  builtin(model: string): Promise<NlpEngine>;
  /** An external NLU server's client. */
  external(options: { url: string; authToken: string | null }): NlpEngine;
}

export interface ReceivedTextClassifierDeps {
  store: Store;
  box: SecretBox;
  engines: NlpEngines;
  /** Wall time (ms): budgets and cache lifetimes are real time. */
  now(): number;
  /** How long what is known of a channel's integration is used before it is read again (changes made by another instance). */
  cacheMs: number;
  /** NLP_TIME_BUDGET_MS: an integration's budget unless it sets its own. */
  defaultBudgetMs: number;
  /** How often the counts are added to the integrations' rows. */
  statsFlushMs: number;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/** An attempt's outcome, or `not_ready`: a built-in integration without a trained model yet. */
export type TryOutcome = NlpOutcome | { ok: false; reason: 'not_ready'; message: string };

interface Entry {
  /** When the integration is read again. */
  expires: number;
  head: NlpIntegrationHead | null;
  /** What the engine depends on: the same key after a new read keeps the engine (and a loaded model). */
  key: string;
  /** Null: a built-in integration with no model yet. */
  engine: Promise<NlpEngine | null> | null;
}

/** How often one channel's failures are logged at most (each is counted). */
const LOG_EVERY_MS = 10_000;

/**
 * NLP on received text (messaging-api.md, Events, detail 1), never in the way of the message: the
 * engine of the channel's integration gets the text with a time budget, and an engine that fails,
 * answers late or has no model yet leaves the message without `nlp` (counted, and logged at most
 * every ten seconds per channel). It never throws. What it knows of a channel (no integration
 * included) is kept for `cacheMs`, and dropped at once when this process changes the integration
 * or its training job stores a model; a built-in model is loaded once per version.
 */
export class ReceivedTextClassifier {
  private readonly entries = new Map<number, Entry>();
  private readonly reading = new Map<number, Promise<Entry>>();
  /** Raised by every forget: a read that started before it is used once, not kept. */
  private epoch = 0;
  private readonly lastLogged = new Map<number, number>();
  readonly stats: NlpStats;

  constructor(private readonly deps: ReceivedTextClassifierDeps) {
    this.stats = new NlpStats(() => deps.store.nlp, deps.statsFlushMs, deps.logger);
  }

  get defaultBudgetMs(): number {
    return this.deps.defaultBudgetMs;
  }

  forget(channelId: number): void {
    this.epoch++;
    this.entries.delete(channelId);
    this.reading.delete(channelId);
  }

  flushStats(): Promise<void> {
    return this.stats.flush();
  }

  /**
   * The `nlp` of a received message: for text only, on a channel with an integration whose engine
   * answered within the budget; otherwise undefined.
   */
  async classify(channelId: number, content: Content): Promise<NlpField | undefined> {
    if (content.type !== 'text' || content.payload.trim() === '') return undefined;
    const started = this.deps.now();
    let outcome: TryOutcome;
    try {
      const entry = await this.entry(channelId);
      if (!entry.head) return undefined;
      // A long text (an e-mail) is classified by its start, as a try through the API may be: the
      // built-in engine runs on the event loop, and intents are about what a message opens with.
      outcome = await this.run(entry, content.payload.slice(0, NLP_LIMITS.parseTextLength), started);
    } catch (error) {
      outcome = { ok: false, reason: 'failed', message: `The NLP integration could not be read: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (outcome.ok) {
      this.stats.classified(channelId);
      return outcome.result;
    }
    this.stats.failed(channelId, outcome.reason === 'timeout' ? 'timed_out' : 'failed', this.deps.now(), outcome.message);
    this.log(channelId, outcome);
    return undefined;
  }

  /** One classification now, for the API (the model in use, not loaded again); not counted. */
  async tryText(channelId: number, text: string): Promise<TryOutcome> {
    const entry = await this.entry(channelId);
    if (!entry.head) return { ok: false, reason: 'failed', message: 'The channel has no NLP integration.' };
    return this.run(entry, text, this.deps.now());
  }

  private async run(entry: Entry, text: string, started: number): Promise<TryOutcome> {
    const budget = entry.head!.time_budget_ms ?? this.deps.defaultBudgetMs;
    const controller = new AbortController();
    const late: TryOutcome = { ok: false, reason: 'timeout', message: `The NLP engine did not answer within the time budget of ${budget} ms.` };
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<TryOutcome>((resolve) => {
      timer = setTimeout(
        () => {
          controller.abort();
          resolve(late);
        },
        Math.max(0, budget - (this.deps.now() - started)),
      );
    });
    const work = (async (): Promise<TryOutcome> => {
      const engine = await entry.engine;
      if (!engine) return { ok: false, reason: 'not_ready', message: 'The built-in integration has no trained model yet.' };
      return engine.parse(text, controller.signal);
    })().catch((error: unknown): TryOutcome => ({ ok: false, reason: 'failed', message: error instanceof Error ? error.message : String(error) }));
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  private log(channelId: number, outcome: Exclude<TryOutcome, { ok: true }>): void {
    const now = this.deps.now();
    if (now - (this.lastLogged.get(channelId) ?? -Infinity) < LOG_EVERY_MS) return;
    this.lastLogged.set(channelId, now);
    this.deps.logger.warn(
      { channel: String(channelId), reason: outcome.reason, message: outcome.message },
      "NLP result left out of a received message (counted in the integration's stats; logged at most every 10 s per channel)",
    );
  }

  /** What is known of the channel's integration, read again after `cacheMs`; messages that find it stale at once share one read. */
  private entry(channelId: number): Promise<Entry> {
    const held = this.entries.get(channelId);
    if (held && held.expires > this.deps.now()) return Promise.resolve(held);
    const pending = this.reading.get(channelId);
    if (pending) return pending;
    const reading = this.read(channelId, held).finally(() => {
      if (this.reading.get(channelId) === reading) this.reading.delete(channelId);
    });
    this.reading.set(channelId, reading);
    return reading;
  }

  private async read(channelId: number, held: Entry | undefined): Promise<Entry> {
    const now = this.deps.now();
    const epoch = this.epoch;
    const head = (await this.deps.store.nlp.head(channelId)) ?? null;
    const key = head === null ? '' : head.kind === 'builtin' ? `builtin:${head.model_version}` : `external:${head.config}:${head.secret}`;
    const entry: Entry =
      held && held.key === key
        ? { ...held, head, expires: now + this.deps.cacheMs }
        : { head, key, expires: now + this.deps.cacheMs, engine: this.engineFor(channelId, head) };
    if (this.entries.size > 10_000) this.entries.clear();
    if (this.deps.cacheMs > 0 && epoch === this.epoch) this.entries.set(channelId, entry);
    // A model that cannot be loaded is not kept: the next message tries again.
    entry.engine?.catch(() => {
      if (this.entries.get(channelId) === entry) this.entries.delete(channelId);
    });
    return entry;
  }

  private engineFor(channelId: number, head: NlpIntegrationHead | null): Promise<NlpEngine | null> | null {
    if (!head) return null;
    if (head.kind === 'external') {
      const config = externalConfigOf(head)!;
      return Promise.resolve(this.deps.engines.external({ url: config.url, authToken: head.secret === null ? null : this.deps.box.decrypt(head.secret) }));
    }
    if (head.model_version === null) return Promise.resolve(null);
    return (async () => {
      const stored = await this.deps.store.nlp.model(channelId);
      return stored ? this.deps.engines.builtin(stored.model) : null;
    })();
  }
}
