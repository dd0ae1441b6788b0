import type { FastifyInstance } from 'fastify';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { randomHex } from '../shared/ids.js';
import { summarize } from '../shared/outbound.js';
import { asArray, asRecord, isRecord, optString, type JsonRecord } from '../shared/values.js';
import { bareAddress } from './addresses.js';
import type { MpContext } from './context.js';
import { sendEvent, type EventName } from './events.js';
import { deliverInbound, type InboundMail } from './inbound.js';
import type { MpMessage } from './state.js';

// Control API: account, domains, outcomes of sent mail (event webhooks), inbound mail.

const EVENTS: readonly EventName[] = ['accepted', 'delivered', 'failed', 'opened', 'clicked', 'unsubscribed', 'complained'];

function messageView(m: MpMessage): JsonRecord {
  return {
    id: `<${m.messageId}>`,
    message_id: m.messageId,
    domain: m.domain,
    from: m.from,
    to: m.to,
    cc: m.cc,
    bcc: m.bcc,
    subject: m.subject,
    text: m.text,
    html: m.html,
    tags: m.tags,
    user_variables: m.userVariables,
    headers: m.headers,
    options: m.options,
    attachments: m.attachments,
    test_mode: m.testMode,
    created_at: m.createdAt,
    fields: m.fields,
  };
}

export function registerControl(app: FastifyInstance, ctx: MpContext): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;
  const account = (): JsonRecord => ({
    api_keys: [...state.apiKeys],
    webhook_signing_key: state.webhookSigningKey,
    webhook_read_form: state.webhookReadForm,
    signing_key_readable: state.signingKeyReadable,
    domains: [...state.domains.values()].map((d) => ({ name: d.name, webhooks: Object.fromEntries(d.webhooks) })),
    routes: state.routes,
  });

  app.get(`${p}/account`, async () => account());
  app.patch(`${p}/account`, async (req) => {
    const body = asRecord(req.body);
    const key = optString(body.webhook_signing_key);
    if (key) state.webhookSigningKey = key;
    if (body.webhook_read_form === 'url' || body.webhook_read_form === 'urls') state.webhookReadForm = body.webhook_read_form;
    if (typeof body.signing_key_readable === 'boolean') state.signingKeyReadable = body.signing_key_readable;
    return account();
  });
  app.post(`${p}/api_keys`, async (_req, reply) => {
    const key = `key-${randomHex(16)}`;
    state.apiKeys.add(key);
    return reply.code(201).send({ api_key: key });
  });
  app.delete<{ Params: { key: string } }>(`${p}/api_keys/:key`, async (req, reply) => {
    if (!state.apiKeys.delete(req.params.key)) return controlError(reply, 404, 'unknown api key');
    return { revoked: true };
  });
  app.post(`${p}/domains`, async (req, reply) => {
    const name = optString(asRecord(req.body).name)?.toLowerCase();
    if (!name || !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(name)) return controlError(reply, 400, 'name must be a domain name');
    if (!state.domains.has(name)) state.domains.set(name, { name, webhooks: new Map() });
    return reply.code(201).send({ domain: { name } });
  });

  app.get<{ Querystring: { domain?: string } }>(`${p}/messages`, async (req) => ({
    messages: state.messages.filter((m) => req.query.domain === undefined || m.domain === req.query.domain).map(messageView),
  }));

  // What happened to a sent message: one event per recipient (default: every recipient).
  app.post<{ Params: { id: string } }>(`${p}/messages/:id/events`, async (req, reply) => {
    const id = decodeURIComponent(req.params.id).replace(/^<|>$/g, '');
    const message = state.messages.find((m) => m.messageId === id);
    if (!message) return controlError(reply, 404, 'no such message');
    const body = asRecord(req.body);
    const event = optString(body.event) ?? 'delivered';
    if (!(EVENTS as readonly string[]).includes(event)) return controlError(reply, 400, `event must be one of ${EVENTS.join(', ')}`);
    const only = optString(body.recipient);
    const all = [...message.to, ...message.cc, ...message.bcc];
    const recipients = only === undefined ? all : all.filter((r) => bareAddress(r) === bareAddress(only));
    if (recipients.length === 0) return controlError(reply, 404, 'no such recipient');
    const severity = optString(body.severity) === 'temporary' ? 'temporary' : 'permanent';
    const results: JsonRecord[] = [];
    for (const recipient of recipients) {
      const input = { event: event as EventName, recipient, severity: severity as 'permanent' | 'temporary' } as Parameters<typeof sendEvent>[2];
      const reason = optString(body.reason);
      if (reason !== undefined) input.reason = reason;
      if (typeof body.code === 'number') input.code = body.code;
      const url = optString(body.url);
      if (url !== undefined) input.url = url;
      const description = optString(body.description);
      if (description !== undefined) input.description = description;
      const sent = await sendEvent(ctx, message, input);
      const out: JsonRecord = { recipient, event_data: sent.data, webhooks: sent.records.map(summarize) };
      if (sent.urls.length === 0) out.webhook_skipped = `no ${event === 'failed' ? `${severity}_fail` : event} webhook on domain ${message.domain}`;
      results.push(out);
    }
    return { results };
  });

  // Mail arriving at the provider: routes decide where it is forwarded.
  app.post(`${p}/inbound`, async (req, reply) => {
    const body = asRecord(req.body);
    const recipient = optString(body.recipient);
    const from = optString(body.from);
    if (!recipient || !from) return controlError(reply, 400, 'recipient and from are required');
    const subject = optString(body.subject) ?? '';
    const headers: Record<string, string> = {
      From: from,
      To: optString(body.to) ?? recipient,
      Subject: subject,
      Date: new Date(state.clock.now()).toUTCString().replace('GMT', '+0000'),
      'Message-Id': `<${randomHex(10)}@${(bareAddress(from) ?? 'x@sandbox.invalid').split('@')[1] ?? 'sandbox.invalid'}>`,
    };
    // `headers`: an object, or a list of [name, value] pairs for repeated headers (all are posted).
    const extra = body.headers;
    const pairs: Array<[string, string]> = isRecord(extra)
      ? Object.entries(extra).map(([k, v]) => [k, String(v)])
      : (asArray(extra) ?? []).flatMap((p) => (Array.isArray(p) && p.length === 2 ? [[String(p[0]), String(p[1])] as [string, string]] : []));
    const headerList: Array<[string, string]> = Object.entries(headers).filter(([k]) => !pairs.some(([n]) => n.toLowerCase() === k.toLowerCase()));
    for (const [k, v] of pairs) {
      headers[k] = v;
      headerList.push([k, v]);
    }
    const mail: InboundMail = {
      recipient,
      sender: optString(body.sender) ?? bareAddress(from) ?? from,
      from,
      to: headers.To ?? recipient,
      subject,
      text: optString(body.text) ?? '',
      html: optString(body.html) ?? null,
      headers,
      headerList,
      attachments: (asArray(body.attachments) ?? []).map((a, i) => {
        const r = asRecord(a);
        return {
          field: `attachment-${i + 1}`,
          fileName: optString(r.file_name) ?? `file${i + 1}.txt`,
          contentType: optString(r.content_type) ?? 'application/octet-stream',
          data: Buffer.from(optString(r.content_base64) ?? '', 'base64'),
        };
      }),
    };
    const results = await deliverInbound(ctx, mail);
    if (results.length === 0) return { routed: false, note: 'no route matched', forwards: [] };
    return {
      routed: true,
      forwards: results.map((r) => ({ route: r.route, action: r.action, webhook: r.record ? summarize(r.record) : null, ...(r.note ? { note: r.note } : {}) })),
    };
  });

  app.get(`${p}/state`, async () => ({ ...account(), messages: state.messages.map(messageView), faults: state.faults.list() }));
  app.post(`${p}/reset`, async () => {
    state.messages.length = 0;
    state.routes = [];
    for (const d of state.domains.values()) d.webhooks.clear();
    state.faults.clear();
    state.requests.clear();
    state.webhooks.clear();
    return { reset: true };
  });
}
