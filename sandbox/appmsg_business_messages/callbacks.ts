import { createHmac } from 'node:crypto';
import type { OutboundRecord } from '../shared/outbound.js';
import type { JsonRecord } from '../shared/values.js';
import type { ResolvedAppmsgBusinessOptions } from './options.js';
import type { AbService, AppmsgBusinessState } from './state.js';

// Callbacks to the service in the sandbox's OWN documented format (the real one is partner-confidential):
// POST JSON {"event": "status"|"reply"|"subscribe"|"unsubscribe", …}, optionally signed with
// hex HMAC-SHA256(callback secret, raw body).

export type CallbackOutcome = { sent: true; record: OutboundRecord } | { sent: false; reason: string };

export class BusinessCallbacks {
  constructor(
    private readonly state: AppmsgBusinessState,
    private readonly options: ResolvedAppmsgBusinessOptions,
  ) {}

  async send(service: AbService, payload: JsonRecord): Promise<CallbackOutcome> {
    if (!service.callbackUrl) return { sent: false, reason: 'the service has no callback_url' };
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (service.callbackSecret) {
      headers[this.options.callbackSignatureHeaderName.toLowerCase()] = createHmac('sha256', service.callbackSecret).update(body).digest('hex');
    }
    const record = await this.state.webhooks.send({
      method: 'POST',
      url: service.callbackUrl,
      kind: String(payload.event),
      body,
      headers,
      timeoutMs: this.options.webhookTimeoutMs,
    });
    return { sent: true, record };
  }
}
