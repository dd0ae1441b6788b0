import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Items due in one queue and how long the oldest of them has been due, read from the store. */
export interface QueueDepth {
  queue: string;
  /** Due items, counted up to the store's bound (QUEUE_DEPTH_BOUND). */
  due: number;
  /** When the oldest due item came due (ms since the epoch); null when none is due. */
  oldestDueAt: number | null;
}

/** The query pool's connections (PostgreSQL; SQLite has one connection and no pool). */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** What the metrics read when scraped rather than counted as things happen. */
export interface ScrapeSources {
  now: () => number;
  queueDepths?: () => Promise<readonly QueueDepth[]>;
  pool?: () => PoolUse | null;
  /** Each queue runner's claims so far and the time spent in their store queries (ms). */
  claims?: () => readonly { queue: string; claims: number; claimMs: number }[];
  /** Totals of the NLP outcomes of this process since it started. */
  nlp?: () => { classified: number; failed: number; timedOut: number };
}

export type SendOutcome = 'sent' | 'retry' | 'failed' | 'dropped';
export type WebhookOutcome = 'delivered' | 'retry' | 'failed' | 'dropped';
export type InboundVerdict = 'accepted' | 'refused' | 'not_found' | 'unavailable' | 'failed';

/** Latency buckets in seconds: from a quick local answer to a platform or receiver that takes its time. */
const REQUEST_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DELIVERY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600];
/** The route label of a request that matched no route (its URL would make the labels unbounded). */
const UNMATCHED = 'unmatched';

let processMetrics: Registry | null = null;

/**
 * The client library's default metrics (CPU, memory, heap, event-loop lag, GC): of the process,
 * so made once however many runtimes it holds (its monitors cannot be stopped).
 */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/**
 * The process's metrics in the Prometheus text format, on a registry of its own (several
 * runtimes in one test process do not share counters). Every label is from a closed set or the
 * service's own configuration: route templates, channel types, modes, outcomes, queue names,
 * status classes; never an id or a URL.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Children of httpDuration by route, method and status: the request path looks up, never allocates labels. */
  private readonly httpChildren = new Map<string, Map<string, Map<number, Histogram.Internal<'method' | 'route' | 'status'>>>>();
  private readonly accepted: Counter<'type' | 'mode'>;
  private readonly acceptedChildren = new Map<string, Map<string, Counter.Internal>>();
  /** The webhook outcome counter's children, one per outcome (a delivery is counted on the worker's hot path). */
  private readonly webhookChildren = new Map<WebhookOutcome, Counter.Internal>();
  private readonly sendJobs: Counter<'type' | 'outcome'>;
  private readonly sendLatency: Histogram<'type'>;
  private readonly sendRateLimited: Counter<'type'>;
  private readonly sendRateLimitWait: Counter<'type'>;
  private readonly webhooks: Counter<'outcome'>;
  private readonly webhookLatency: Histogram;
  private readonly platformCalls: Counter<'platform' | 'status_class'>;
  private readonly platformDuration: Histogram<'platform'>;
  private readonly inboundCalls: Counter<'type' | 'verdict'>;
  private readonly chatSessions: Gauge;
  /** The queue depths of the scrape under way (empty when the store did not answer). */
  private depths: Promise<readonly QueueDepth[]> | null = null;

  constructor(sources: ScrapeSources) {
    // Started with the runtime, so the event-loop and GC numbers cover the time before the first scrape.
    processRegistry();
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'parley_http_request_duration_seconds',
      help: 'HTTP requests by route template, method and status, with their duration.',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.accepted = new Counter({
      name: 'parley_messages_accepted_total',
      help: 'Messages Send Message accepted (stored queued or sent), by channel type and mode.',
      labelNames: ['type', 'mode'],
      registers,
    });
    this.sendJobs = new Counter({
      name: 'parley_send_jobs_total',
      help: 'Send job attempts by channel type and outcome (sent, retry, failed, dropped).',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.sendLatency = new Histogram({
      name: 'parley_send_latency_seconds',
      help: 'From the commit of a queued message to the platform taking it.',
      labelNames: ['type'],
      buckets: DELIVERY_BUCKETS,
      registers,
    });
    this.sendRateLimited = new Counter({
      name: 'parley_send_rate_limited_total',
      help: 'Send attempts a platform refused with a wait (429 or Retry-After), by channel type.',
      labelNames: ['type'],
      registers,
    });
    this.sendRateLimitWait = new Counter({
      name: 'parley_send_rate_limit_wait_seconds_total',
      help: 'How long platforms asked send jobs to wait, in total, by channel type.',
      labelNames: ['type'],
      registers,
    });
    this.webhooks = new Counter({
      name: 'parley_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry, failed after the last try, dropped).',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookLatency = new Histogram({
      name: 'parley_webhook_latency_seconds',
      help: 'From the commit of an event to its receiver accepting it.',
      buckets: DELIVERY_BUCKETS,
      registers,
    });
    this.platformCalls = new Counter({
      name: 'parley_platform_calls_total',
      help: 'HTTP calls to platforms by platform and status class (2xx..5xx, or error when none answered).',
      labelNames: ['platform', 'status_class'],
      registers,
    });
    this.platformDuration = new Histogram({
      name: 'parley_platform_call_duration_seconds',
      help: 'HTTP calls to platforms by platform, with their duration.',
      labelNames: ['platform'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.inboundCalls = new Counter({
      name: 'parley_inbound_calls_total',
      help: 'Platform callbacks by channel type and verdict (accepted, refused, not_found, unavailable, failed).',
      labelNames: ['type', 'verdict'],
      registers,
    });
    this.chatSessions = new Gauge({
      name: 'parley_webchat_sessions_connected',
      help: 'Web chat connections open on this process.',
      registers,
    });

    const { queueDepths, pool, nlp, claims, now } = sources;
    if (claims) {
      // The runners keep the totals; read on scrape, nothing is timed here.
      new Counter({
        name: 'parley_queue_claims_total',
        help: "Claims this process's queue runners made (each one store query).",
        labelNames: ['queue'],
        registers,
        collect() {
          this.reset();
          for (const c of claims()) this.inc({ queue: c.queue }, c.claims);
        },
      });
      new Counter({
        name: 'parley_queue_claim_seconds_total',
        help: 'Time the claims waited for the store, in total: divided by the claims, the latency of the claim query.',
        labelNames: ['queue'],
        registers,
        collect() {
          this.reset();
          for (const c of claims()) this.inc({ queue: c.queue }, c.claimMs / 1000);
        },
      });
    }
    if (queueDepths) {
      // One bounded read of the store per scrape, shared by both gauges (text() starts a new one).
      const read = () => (this.depths ??= queueDepths().catch(() => []));
      new Gauge({
        name: 'parley_queue_due_items',
        help: 'Items due and waiting in each queue (counted up to a bound), read from the store on scrape.',
        labelNames: ['queue'],
        registers,
        async collect() {
          this.reset();
          for (const q of await read()) this.set({ queue: q.queue }, q.due);
        },
      });
      new Gauge({
        name: 'parley_queue_oldest_due_age_seconds',
        help: 'How long the oldest due item of each queue has been due (0 when none is).',
        labelNames: ['queue'],
        registers,
        async collect() {
          this.reset();
          const at = now();
          for (const q of await read()) this.set({ queue: q.queue }, q.oldestDueAt === null ? 0 : Math.max(0, at - q.oldestDueAt) / 1000);
        },
      });
    }
    if (pool) {
      new Gauge({
        name: 'parley_store_pool_connections',
        help: "The store's query pool: connections by state (total, idle, waiting: queries waiting for one).",
        labelNames: ['state'],
        registers,
        collect() {
          const use = pool();
          if (!use) return;
          this.set({ state: 'total' }, use.total);
          this.set({ state: 'idle' }, use.idle);
          this.set({ state: 'waiting' }, use.waiting);
        },
      });
    }
    if (nlp) {
      new Counter({
        name: 'parley_nlp_calls_total',
        help: 'NLP calls on received text by outcome (classified, failed, timed_out).',
        labelNames: ['outcome'],
        registers,
        collect() {
          // The classifier keeps the totals; a counter only ever moves up by what they added.
          const totals = nlp();
          this.reset();
          this.inc({ outcome: 'classified' }, totals.classified);
          this.inc({ outcome: 'failed' }, totals.failed);
          this.inc({ outcome: 'timed_out' }, totals.timedOut);
        },
      });
    }
  }

  /** One finished HTTP request (the only metric call on the request path). */
  request(method: string, route: string | undefined, status: number, seconds: number): void {
    const template = route ?? UNMATCHED;
    let byMethod = this.httpChildren.get(template);
    if (!byMethod) this.httpChildren.set(template, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = this.httpDuration.labels(method, template, String(status))));
    child.observe(seconds);
  }

  /** A message Send Message stored to be sent (queued) or sent. */
  messageAccepted(type: string, mode: string): void {
    let byMode = this.acceptedChildren.get(type);
    if (!byMode) this.acceptedChildren.set(type, (byMode = new Map()));
    let child = byMode.get(mode);
    if (!child) byMode.set(mode, (child = this.accepted.labels(type, mode)));
    child.inc();
  }

  /** One run of a send job; `latencyMs` from the message's commit when the platform took it. */
  sendJob(type: string, outcome: SendOutcome, latencyMs: number | null, retryAfterMs?: number): void {
    this.sendJobs.inc({ type, outcome });
    if (latencyMs !== null) this.sendLatency.observe({ type }, Math.max(0, latencyMs) / 1000);
    if (retryAfterMs !== undefined) {
      this.sendRateLimited.inc({ type });
      this.sendRateLimitWait.inc({ type }, retryAfterMs / 1000);
    }
  }

  /** One webhook delivery attempt's outcome; `latencyMs` from the event's commit when delivered. */
  webhook(outcome: WebhookOutcome, latencyMs: number | null): void {
    let child = this.webhookChildren.get(outcome);
    if (!child) this.webhookChildren.set(outcome, (child = this.webhooks.labels(outcome)));
    child.inc();
    if (latencyMs !== null) this.webhookLatency.observe(Math.max(0, latencyMs) / 1000);
  }

  /** One HTTP call to a platform; `status` null when none answered. */
  platformCall(platform: string, status: number | null, ms: number): void {
    this.platformCalls.inc({ platform, status_class: status === null ? 'error' : `${Math.floor(status / 100)}xx` });
    this.platformDuration.observe({ platform }, ms / 1000);
  }

  inbound(type: string, verdict: InboundVerdict): void {
    this.inboundCalls.inc({ type, verdict });
  }

  chatConnected(): void {
    this.chatSessions.inc();
  }

  chatDisconnected(): void {
    this.chatSessions.dec();
  }

  get contentType(): string {
    return Registry.PROMETHEUS_CONTENT_TYPE;
  }

  text(): Promise<string> {
    this.depths = null;
    return Registry.merge([processRegistry(), this.registry]).metrics();
  }
}
