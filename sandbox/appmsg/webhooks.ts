import { createHmac } from 'node:crypto';
import { stringifyWithBigInts } from '../shared/big-json.js';
import type { OutboundRecord } from '../shared/outbound.js';
import type { JsonRecord } from '../shared/values.js';
import type { ResolvedAppmsgOptions } from './options.js';
import type { AmBot, AmUser, AppmsgState } from './state.js';

// Callbacks to the service, signed with hex HMAC-SHA256(bot token, raw body).

export const CHAT_HOSTNAME = 'SN-CHAT-05_';
export const FILTERABLE_EVENTS = ['delivered', 'seen', 'failed', 'subscribed', 'unsubscribed', 'conversation_started'];
/** Events that cannot be filtered out with event_types. */
const ALWAYS = ['message', 'subscribed', 'unsubscribed', 'webhook'];

export type CallbackOutcome = { sent: true; record: OutboundRecord } | { sent: false; reason: string };

export class AppmsgWebhooks {
  constructor(
    private readonly state: AppmsgState,
    private readonly options: ResolvedAppmsgOptions,
  ) {}

  nextToken(): bigint {
    this.state.nextToken += BigInt(1 + Math.floor(Math.random() * 1000));
    return this.state.nextToken;
  }

  sign(token: string, body: string): string {
    return createHmac('sha256', token).update(body, 'utf8').digest('hex');
  }

  /** User object of events, honouring send_name / send_photo. */
  userObject(bot: AmBot, user: AmUser): JsonRecord {
    const out: JsonRecord = { id: user.id };
    if (bot.webhook?.sendName !== false) out.name = user.name;
    if (bot.webhook?.sendPhoto !== false) out.avatar = user.avatar;
    out.language = user.language;
    out.country = user.country;
    out.api_version = user.apiVersion;
    return out;
  }

  async post(bot: AmBot, url: string, event: JsonRecord): Promise<OutboundRecord> {
    const body = stringifyWithBigInts(event);
    return this.state.webhooks.send({
      method: 'POST',
      url,
      kind: String(event.event),
      body,
      headers: { 'content-type': 'application/json', [this.options.signatureHeaderName.toLowerCase()]: this.sign(bot.token, body) },
      timeoutMs: this.options.webhookTimeoutMs,
    });
  }

  async send(bot: AmBot, event: JsonRecord): Promise<CallbackOutcome> {
    const hook = bot.webhook;
    if (!hook) return { sent: false, reason: 'no webhook set' };
    const name = String(event.event);
    if (!ALWAYS.includes(name) && !hook.eventTypes.includes(name)) return { sent: false, reason: `event ${name} is not in event_types` };
    return { sent: true, record: await this.post(bot, hook.url, event) };
  }
}
