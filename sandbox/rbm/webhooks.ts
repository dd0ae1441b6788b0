import { createHmac, randomUUID } from 'node:crypto';
import type { OutboundRecord } from '../shared/outbound.js';
import { randomDigits } from '../shared/ids.js';
import type { JsonRecord } from '../shared/values.js';
import type { ResolvedRbmOptions } from './options.js';
import type { RbAgent, RbmState } from './state.js';

// Push-subscription style webhook calls: {"message":{"data":base64(JSON),…},"subscription":…},
// signed with base64 HMAC-SHA512(client token, decoded data); and the clientToken/secret handshake.

export type PushOutcome = { sent: true; record: OutboundRecord } | { sent: false; reason: string };

export class RbmWebhooks {
  constructor(
    private readonly state: RbmState,
    private readonly options: ResolvedRbmOptions,
  ) {}

  async push(agent: RbAgent, payload: JsonRecord): Promise<PushOutcome> {
    if (!agent.webhook) return { sent: false, reason: 'the agent has no webhook' };
    const decoded = JSON.stringify(payload);
    const data = Buffer.from(decoded, 'utf8').toString('base64');
    const envelope = {
      message: { data, messageId: randomDigits(16), publishTime: new Date(this.state.clock.now()).toISOString(), attributes: {} },
      subscription: `projects/rbm-${agent.id}/subscriptions/rbm-agent-subscription`,
    };
    const body = JSON.stringify(envelope);
    const signature = createHmac('sha512', agent.webhook.clientToken).update(Buffer.from(decoded, 'utf8')).digest('base64');
    const record = await this.state.webhooks.send({
      method: 'POST',
      url: agent.webhook.url,
      kind: typeof payload.eventType === 'string' ? `event:${payload.eventType}` : 'message',
      body,
      headers: { 'content-type': 'application/json', [this.options.signatureHeaderName.toLowerCase()]: signature },
      timeoutMs: this.options.webhookTimeoutMs,
    });
    return { sent: true, record };
  }

  /** POST {clientToken, secret}; the service must answer 200 with the secret (raw or {"secret":…}). */
  async handshake(url: string, clientToken: string): Promise<{ ok: boolean; record: OutboundRecord }> {
    const secret = randomDigits(10);
    const record = await this.state.webhooks.send({
      method: 'POST',
      url,
      kind: 'handshake',
      body: JSON.stringify({ clientToken, secret }),
      headers: { 'content-type': 'application/json' },
      timeoutMs: this.options.webhookTimeoutMs,
    });
    let echoed = record.body.trim();
    try {
      const parsed = JSON.parse(echoed) as unknown;
      if (typeof parsed === 'object' && parsed !== null && 'secret' in parsed) echoed = String((parsed as { secret: unknown }).secret);
      else if (typeof parsed === 'string' || typeof parsed === 'number') echoed = String(parsed);
    } catch {
      // raw text
    }
    return { ok: record.status === 200 && echoed === secret, record };
  }
}

export const newId = (): string => randomUUID();
