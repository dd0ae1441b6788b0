import type { ColumnType } from 'kysely';

/**
 * Row types of every table, as Kysely sees them. Ids and times are integers (ms since the epoch)
 * in both dialects; JSON is stored as text so one query serves SQLite and PostgreSQL alike.
 */
export interface AccountsTable {
  id: number;
  name: string;
  plan: string;
  hourly_limit: number | null;
  concurrency_limit: number | null;
  created_at: number;
}

export interface AccessTokensTable {
  id: number;
  account_id: number;
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
  /** The token's first characters, for telling tokens apart (migration 008; null for older tokens). */
  prefix: string | null;
  /** When the token was last accepted, to within about a minute (migration 008). */
  last_used_at: number | null;
  /** What the account calls the token (migration 012; null for older tokens). */
  name?: string | null;
}

export interface ChannelsTable {
  id: number;
  account_id: number;
  type: string;
  name: string;
  mode: string;
  /** Public, type-specific fields (JSON). */
  config: string;
  /** Credentials (JSON), encrypted at rest. */
  secrets: string | null;
  webhook_id: number | null;
  webhook_url: string | null;
  /** Encrypted at rest. */
  webhook_secret: string | null;
  webhook_ssl_verification: number;
  /** Channel settings (JSON object). */
  settings: string;
  created_at: number;
  updated_at: number;
}

export interface ContactsTable {
  id: number;
  account_id: number;
  channel_id: number;
  external_id: string | null;
  phone_number: string | null;
  email: string | null;
  user_ref: string | null;
  name: string | null;
  /** Platform profile and other per-type fields (JSON). */
  profile: string;
  created_at: number;
  updated_at: number;
  /** When the contact's newest message was stored, 0 before its first (migration 018: a trigger on messages keeps it); optional: writers leave it out. */
  last_activity_at?: number;
}

export interface MessagesTable {
  id: number;
  account_id: number;
  channel_id: number;
  contact_id: number;
  direction: string;
  content: string;
  metadata: string | null;
  status: string;
  external_id: string | null;
  error: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  sent_at: number;
  delivered_at: number | null;
  read_at: number | null;
  created_at: number;
  /** How many parts the platform sends the message in (SMS), when the type counts them; optional: other writers leave it out. */
  part_count?: number | null;
  /** The parts' encoding (SMS: gsm7 or ucs2), with part_count. */
  part_encoding?: string | null;
  /** A received text's NLP result (JSON: intents and native_data), when its channel's engine answered in time. */
  nlp?: string | null;
  /** The correlation id of the request that sent the message (migration 016); optional: other writers leave it out. */
  correlation_id?: string | null;
}

/** A channel's NLP integration (one per channel). */
export interface NlpIntegrationsTable {
  channel_id: number;
  account_id: number;
  /** `builtin` or `external`. */
  kind: string;
  /** JSON: the training data (builtin) or the server's URL (external). */
  config: string;
  /** The external server's auth token, encrypted at rest. */
  secret: string | null;
  /** Null: the server's default. */
  time_budget_ms: number | null;
  /** Raised by every change of the training data; the model of the newest version is trained. */
  training_version: number;
  /** `queued`, `training`, `ready` or `failed` (builtin only). */
  training_status: string | null;
  training_error: string | null;
  /** The version of the model in nlp_models (null: none trained yet). */
  model_version: number | null;
  trained_at: number | null;
  classified: number;
  failed: number;
  timed_out: number;
  last_failure_at: number | null;
  last_failure: string | null;
  created_at: number;
  updated_at: number;
}

/** The trained model of a built-in integration, as the library exports it. */
export interface NlpModelsTable {
  channel_id: number;
  version: number;
  model: string;
  created_at: number;
}

export interface EventsTable {
  id: number;
  account_id: number;
  channel_id: number;
  /** The contact of an event that is not about one message (an event about a message reaches its contact through it). */
  contact_id: number | null;
  /** The message an event is about (message_echo, message_received); deleted with the message's contact. */
  message_id: number | null;
  type: string;
  /** The exact JSON body sent to the webhook, so every retry signs the same bytes. */
  body: string;
  created_at: number;
  /** The platform's identity of an inbound event (`kind:key`), unique per channel, so a replay makes no second event (migration 007). */
  inbound_key: string | null;
  /** The correlation id of the request or platform call that made the event, sent with its webhook deliveries (migration 016). */
  correlation_id: string | null;
}

export interface DeliveriesTable {
  id: number;
  event_id: number;
  account_id: number;
  channel_id: number;
  webhook_id: number;
  status: string;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** Token of the claim that holds the lease (migration 002). */
  lease_id: number | null;
  /** Instance number of the process that claimed the row last (migration 002). */
  locked_by: number | null;
}

export interface DeliveryAttemptsTable {
  id: number;
  delivery_id: number;
  attempted_at: number;
  url: string;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/** A column the database fills with null (or its default) when an insert leaves it out. */
type Optional<T> = ColumnType<T, T | undefined, T>;

/**
 * A row of the job queue (migration 010): a send job or other background work, claimed by the
 * workers of the task kinds registered for `kind` (store/job-queue.ts).
 */
export interface JobsTable {
  id: number;
  account_id: number;
  channel_id: number;
  /** The message a job is about (a send job); at most one job per message and kind. */
  message_id: Optional<number | null>;
  kind: string;
  /** The task's input (JSON), read by the handler of its kind. */
  payload: string;
  /** `pending`, `running` (leased), `done`, `failed` or `expired`. */
  status: string;
  /** Attempts started (counted when claimed); the job is not claimed again after `max_attempts`. */
  attempts: number;
  max_attempts: Optional<number>;
  /** When the job is due (injected clock). */
  run_at: number;
  /** A job not run by then ends `expired` (injected clock); null: no expiry. */
  expires_at: Optional<number | null>;
  /** Token of the claim that holds the job, its wall-clock end, and the claiming process's instance number. */
  lease_id: Optional<number | null>;
  leased_until: Optional<number | null>;
  instance_id: Optional<number | null>;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** A Send Message with fallbacks (migration 020): the chain, keyed by its first message. */
export interface FailoversTable {
  id: number;
  account_id: number;
  /** The index of the step now running (0: the first message). */
  step: number;
  /** `running` while its job watches it (a step may still start or be cancelled), else `ended`. */
  state: string;
  /** The steps after the first as requested (JSON). */
  plan: string;
  created_at: number;
  updated_at: number;
}

/** One started step of a failover chain: its message, and why it ended. */
export interface FailoverStepsTable {
  message_id: number;
  failover_id: number;
  step: number;
  channel_id: number;
  contact_id: number;
  started_at: number;
  /** When the condition that moves on runs out (not delivered or not read within); null: only a failure moves on. */
  deadline_at: number | null;
  ended_at: number | null;
  /** Why the step ended: `failed`, `not_delivered`, `not_read` (moved on), `delivered`, `read` (the chain stops), `cancelled`. */
  outcome: string | null;
}

export interface RateCountersTable {
  account_id: number;
  window_start: number;
  count: number;
}

export interface FilesTable {
  id: string;
  account_id: number;
  channel_id: number;
  contact_id: number | null;
  name: string;
  mime_type: string;
  size: number;
  storage_key: string;
  created_at: number;
  /** When an unreferenced web chat upload may be removed; null (or absent) for files kept. */
  expires_at?: number | null;
}

export interface ChatSessionsTable {
  /** SHA-256 (hex) of the session token the browser holds. */
  token_hash: string;
  account_id: number;
  channel_id: number;
  contact_id: number;
  created_at: number;
  last_seen_at: number;
}

/** A person who signs in to the administration app (migration 012). */
export interface AdminUsersTable {
  id: number;
  account_id: number;
  /** As given. */
  email: string;
  /** Lower case, trimmed: unique, what sign-in looks up. */
  email_key: string;
  role: string;
  /** `scrypt$N$r$p$salt$hash`; null until a setup link sets one. */
  password_hash: string | null;
  must_change_password: number;
  created_at: number;
}

export interface AdminSessionsTable {
  /** SHA-256 (hex) of the id in the session cookie. */
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  /** The absolute end of the session. */
  expires_at: number;
}

export interface AdminSetupTokensTable {
  /** SHA-256 (hex) of the token in the setup link. */
  token_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** One failed sign-in under a throttle key (`email:<e>`, `addr:<address>`). */
export interface AdminSignInFailuresTable {
  id: number;
  key: string;
  at: number;
}

/** A body bound to a signature that does not cover it (migration 014): the same signature over another body is a forgery. */
export interface InboundSignatureBindingsTable {
  binding: string;
  body_digest: string;
  expires_at: number;
}

/** A fact about the installation every instance checks at start (migration 016): written once, by the first. */
export interface ServiceMetaTable {
  name: string;
  value: string;
  created_at: number;
}

export interface Database {
  accounts: AccountsTable;
  access_tokens: AccessTokensTable;
  channels: ChannelsTable;
  contacts: ContactsTable;
  messages: MessagesTable;
  events: EventsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  jobs: JobsTable;
  nlp_integrations: NlpIntegrationsTable;
  nlp_models: NlpModelsTable;
  rate_counters: RateCountersTable;
  files: FilesTable;
  chat_sessions: ChatSessionsTable;
  admin_users: AdminUsersTable;
  admin_sessions: AdminSessionsTable;
  admin_setup_tokens: AdminSetupTokensTable;
  admin_sign_in_failures: AdminSignInFailuresTable;
  inbound_signature_bindings: InboundSignatureBindingsTable;
  service_meta: ServiceMetaTable;
  failovers: FailoversTable;
  failover_steps: FailoverStepsTable;
}
