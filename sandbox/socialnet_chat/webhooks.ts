import { createHmac, randomInt } from 'node:crypto';
import type { OutboundRecord } from '../shared/outbound.js';
import type { JsonRecord } from '../shared/values.js';
import type { ResolvedSocialnetChatOptions } from './options.js';
import type { SocialnetChatState } from './state.js';

// Webhook calls to the service: envelope, signature and the subscription handshake.

export const WEBHOOK_FIELDS = [
  'messages',
  'messaging_postbacks',
  'messaging_optins',
  'message_deliveries',
  'message_reads',
  'message_echoes',
  'messaging_referrals',
  'messaging_handovers',
  'standby',
] as const;

export type WebhookField = (typeof WEBHOOK_FIELDS)[number];

/** JSON with non-ASCII characters and "/" escaped, the way the platform writes its webhook bodies. */
export function escapedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');
}

export function signatureHeaders(appSecret: string, body: string): Record<string, string> {
  return {
    'x-hub-signature-256': `sha256=${createHmac('sha256', appSecret).update(body, 'utf8').digest('hex')}`,
    'x-hub-signature': `sha1=${createHmac('sha1', appSecret).update(body, 'utf8').digest('hex')}`,
  };
}

export type DeliveryOutcome = { delivered: true; record: OutboundRecord } | { delivered: false; reason: string };

export class SocialnetWebhooks {
  constructor(
    private readonly state: SocialnetChatState,
    private readonly options: ResolvedSocialnetChatOptions,
  ) {}

  /** Why an event of this field for this page would not be sent, or null when it would. */
  blockedReason(pageId: string, field: WebhookField): string | null {
    const sub = this.state.app.subscription;
    if (!sub || !sub.active) return 'the app has no active webhook subscription';
    if (!sub.fields.includes(field)) return `the app subscription does not include field ${field}`;
    const page = this.state.pages.get(pageId);
    if (!page) return 'unknown page';
    if (!page.connected) return 'the page is disconnected';
    if (!page.subscribedFields.includes(field)) return `the page has not subscribed the app to field ${field}`;
    return null;
  }

  /**
   * Sends one messaging event in the standard envelope and waits for the service's answer. Events
   * of a thread another app owns (handover protocol) come under `standby` instead of `messaging`.
   */
  async deliver(pageId: string, field: WebhookField, event: JsonRecord): Promise<DeliveryOutcome> {
    const reason = this.blockedReason(pageId, field);
    const sub = this.state.app.subscription;
    if (reason !== null || !sub) return { delivered: false, reason: reason ?? 'no subscription' };
    const envelope = {
      object: 'page',
      entry: [{ id: pageId, time: this.state.clock.now(), [field === 'standby' ? 'standby' : 'messaging']: [event] }],
    };
    const body = this.options.escapeWebhookJson ? escapedJson(envelope) : JSON.stringify(envelope);
    const record = await this.state.webhooks.send({
      method: 'POST',
      url: sub.callbackUrl,
      kind: field,
      body,
      headers: { 'content-type': 'application/json', ...signatureHeaders(this.state.app.secret, body) },
      timeoutMs: this.options.webhookTimeoutMs,
    });
    return { delivered: true, record };
  }

  /** GET handshake: the service must answer 200 with the challenge as body. */
  async verify(callbackUrl: string, verifyToken: string): Promise<{ ok: boolean; challenge: string; record: OutboundRecord }> {
    const challenge = String(randomInt(100_000_000, 2_000_000_000));
    const url = new URL(callbackUrl);
    url.searchParams.set('hub.mode', 'subscribe');
    url.searchParams.set('hub.challenge', challenge);
    url.searchParams.set('hub.verify_token', verifyToken);
    const record = await this.state.webhooks.send({
      method: 'GET',
      url: url.toString(),
      kind: 'handshake',
      timeoutMs: this.options.webhookTimeoutMs,
    });
    return { ok: record.status === 200 && record.body.trim() === challenge, challenge, record };
  }
}
