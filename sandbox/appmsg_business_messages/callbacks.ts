import { createHmac } from 'node:crypto';
import type { OutboundRecord } from '../shared/outbound.js';
import type { JsonRecord } from '../shared/values.js';
import type { ResolvedAppmsgBusinessOptions } from './options.js';
import type { AbService, AppmsgBusinessState } from './state.js';

// Callbacks to the partner's URL in the shape public integrations of the partner API show (the
// vendor's own document is confidential): POST JSON without a signature (the platform knows the
// partner by the URL it was given). A status report carries `message_status` as a number per
// message token; a user's reply carries the reply's own token and a `message` object.
//   {"message_token": "…", "message_status": 0|1|2|4|5, "message_time": ms, "phone_number": "…", "service_id": n}
//   {"message_token": "…", "phone_number": "…", "message_time": ms, "service_id": n, "message": {"text", "tracking_data"}}
// A service given a callback secret also signs (hex HMAC-SHA256 of the raw body in a header): a
// relay in front of the service may do that; the platform itself is not known to.

/** `message_status` values of the status callback (a load-test emulator of the partner API). */
export const MESSAGE_STATUS = { delivered: 0, seen: 1, expired: 2, subscribe: 4, unsubscribe: 5 } as const;

export type CallbackOutcome = { sent: true; record: OutboundRecord } | { sent: false; reason: string };

export class BusinessCallbacks {
  constructor(
    private readonly state: AppmsgBusinessState,
    private readonly options: ResolvedAppmsgBusinessOptions,
  ) {}

  async send(service: AbService, kind: string, payload: JsonRecord): Promise<CallbackOutcome> {
    if (!service.callbackUrl) return { sent: false, reason: 'the service has no callback_url' };
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (service.callbackSecret) {
      headers[this.options.callbackSignatureHeaderName.toLowerCase()] = createHmac('sha256', service.callbackSecret).update(body).digest('hex');
    }
    const record = await this.state.webhooks.send({
      method: 'POST',
      url: service.callbackUrl,
      kind,
      body,
      headers,
      timeoutMs: this.options.webhookTimeoutMs,
    });
    return { sent: true, record };
  }
}
