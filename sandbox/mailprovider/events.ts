import { randomAlnum } from '../shared/ids.js';
import type { OutboundRecord } from '../shared/outbound.js';
import type { JsonRecord } from '../shared/values.js';
import { bareAddress, domainOf } from './addresses.js';
import type { MpContext } from './context.js';
import { signBody } from './signing.js';
import type { MpMessage, WebhookId } from './state.js';

// Event webhooks: {"signature":{timestamp,token,signature},"event-data":{…}} POSTed as JSON to every
// URL registered for the event's webhook id on the message's domain.

export type EventName = 'accepted' | 'delivered' | 'failed' | 'opened' | 'clicked' | 'unsubscribed' | 'complained';

export interface EventInput {
  event: EventName;
  recipient: string;
  severity?: 'permanent' | 'temporary';
  reason?: string;
  code?: number;
  description?: string;
  url?: string;
}

export function webhookIdFor(input: EventInput): WebhookId {
  if (input.event === 'failed') return input.severity === 'temporary' ? 'temporary_fail' : 'permanent_fail';
  return input.event;
}

export function eventData(ctx: MpContext, message: MpMessage, input: EventInput): JsonRecord {
  const now = ctx.state.clock.now();
  const recipient = bareAddress(input.recipient) ?? input.recipient;
  const data: JsonRecord = {
    id: randomAlnum(22),
    timestamp: now / 1000,
    'log-level': input.event === 'failed' ? (input.severity === 'temporary' ? 'warn' : 'error') : 'info',
    event: input.event,
    recipient,
    'recipient-domain': domainOf(recipient),
    flags: { 'is-routed': false, 'is-authenticated': true, 'is-test-mode': message.testMode },
    envelope: { transport: 'smtp', sender: bareAddress(message.from) ?? message.from, 'sending-ip': '127.0.0.1', targets: recipient },
    message: {
      headers: { to: message.to.join(', '), 'message-id': message.messageId, from: message.from, subject: message.subject },
      attachments: message.attachments.map((a) => ({ filename: a.fileName, 'content-type': a.contentType, size: a.size })),
      size: (message.text?.length ?? 0) + (message.html?.length ?? 0),
    },
    tags: message.tags,
    'user-variables': message.userVariables,
    account: { id: 'sandbox-account' },
    domain: { name: message.domain },
  };
  if (input.event === 'delivered') {
    data['delivery-status'] = {
      tls: true,
      'mx-host': `mx.${domainOf(recipient)}`,
      code: 250,
      description: '',
      'session-seconds': 0.43,
      'attempt-no': 1,
      message: 'OK',
      'certificate-verified': true,
    };
  }
  if (input.event === 'failed') {
    const permanent = input.severity !== 'temporary';
    data.severity = permanent ? 'permanent' : 'temporary';
    data.reason = input.reason ?? (permanent ? 'bounce' : 'generic');
    data['delivery-status'] = {
      code: input.code ?? (permanent ? 550 : 421),
      message: permanent ? '5.1.1 The email account that you tried to reach does not exist.' : '4.2.1 Try again later',
      description: input.description ?? '',
      'attempt-no': 1,
    };
  }
  if (input.event === 'opened' || input.event === 'clicked' || input.event === 'unsubscribed' || input.event === 'complained') {
    data.ip = '127.0.0.1';
    data.geolocation = { country: 'CZ', region: 'Prague', city: 'Prague' };
    data['client-info'] = {
      'client-type': 'browser',
      'client-os': 'Linux',
      'device-type': 'desktop',
      'client-name': 'Sandbox',
      'user-agent': 'Mozilla/5.0 (sandbox)',
    };
  }
  if (input.event === 'clicked') data.url = input.url ?? 'https://example.com/';
  return data;
}

export async function sendEvent(
  ctx: MpContext,
  message: MpMessage,
  input: EventInput,
): Promise<{ data: JsonRecord; records: OutboundRecord[]; urls: string[] }> {
  const data = eventData(ctx, message, input);
  const urls = ctx.state.domains.get(message.domain)?.webhooks.get(webhookIdFor(input)) ?? [];
  const records: OutboundRecord[] = [];
  for (const url of urls) {
    const body = JSON.stringify({ signature: signBody(ctx.state.webhookSigningKey, ctx.state.clock.now()), 'event-data': data });
    records.push(
      await ctx.state.webhooks.send({
        method: 'POST',
        url,
        kind: String(input.event),
        body,
        headers: { 'content-type': 'application/json' },
        timeoutMs: ctx.options.webhookTimeoutMs,
      }),
    );
  }
  return { data, records, urls };
}
