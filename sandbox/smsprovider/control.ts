import type { FastifyInstance } from 'fastify';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { randomAlnum, randomHex } from '../shared/ids.js';
import { summarize } from '../shared/outbound.js';
import { asArray, asRecord, optNumber, optString, phoneDigits, type JsonRecord } from '../shared/values.js';
import { originOf, type SpContext } from './context.js';
import { messageView } from './format.js';
import type { RecipientStatus, SpMessage, SpRecipient } from './state.js';
import { JWT_ALGORITHMS, type JwtAlgorithm } from './signing.js';
import { inboundFields, shortcodeFields } from './webhooks.js';

// Control API: account, keys, numbers, delivery outcomes, inbound SMS.

const STATUSES: readonly RecipientStatus[] = ['scheduled', 'sent', 'buffered', 'delivered', 'expired', 'delivery_failed'];

function accountView(ctx: SpContext): JsonRecord {
  const { state } = ctx;
  return {
    access_keys: [...state.accessKeys.entries()].map(([key, mode]) => ({ key, mode })),
    signing_key: state.signingKey,
    jwt_algorithm: state.jwtAlgorithm,
    sign_status_reports: state.signStatusReports,
    status_report_url: state.statusReportUrl,
    balance: state.balance,
    numbers: [...state.numbers.values()].map((n) => ({ number: n.number, receive_url: n.receiveUrl })),
  };
}

async function report(
  ctx: SpContext,
  message: SpMessage,
  r: SpRecipient,
  status: RecipientStatus,
  reason: string | null,
  code: number | null,
): Promise<JsonRecord> {
  r.status = status;
  r.statusReason = reason;
  r.statusErrorCode = code;
  r.statusDatetime = ctx.state.clock.now();
  const skipped = ctx.webhooks.reportSkipped(message);
  const record = skipped === null ? await ctx.webhooks.statusReport(message, r) : null;
  const out: JsonRecord = { recipient: r.recipient, status, webhook: record ? summarize(record) : null };
  if (!record) out.webhook_skipped = skipped ?? 'not sent';
  return out;
}

export function registerControlRoutes(app: FastifyInstance, ctx: SpContext): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;

  app.get(`${p}/account`, async () => accountView(ctx));

  app.patch(`${p}/account`, async (req, reply) => {
    const body = asRecord(req.body);
    const key = optString(body.signing_key);
    if (key) state.signingKey = key;
    const alg = optString(body.jwt_algorithm);
    if (alg !== undefined) {
      if (!(JWT_ALGORITHMS as readonly string[]).includes(alg)) return controlError(reply, 400, `jwt_algorithm must be one of ${JWT_ALGORITHMS.join(', ')}`);
      state.jwtAlgorithm = alg as JwtAlgorithm;
    }
    if (typeof body.sign_status_reports === 'boolean') state.signStatusReports = body.sign_status_reports;
    if (body.status_report_url !== undefined) state.statusReportUrl = optString(body.status_report_url) ?? null;
    if (body.balance !== undefined) state.balance = optNumber(body.balance) ?? null;
    return accountView(ctx);
  });

  app.post(`${p}/access_keys`, async (req, reply) => {
    const mode = optString(asRecord(req.body).mode) ?? 'live';
    if (mode !== 'live' && mode !== 'test') return controlError(reply, 400, 'mode must be live or test');
    const key = `${mode === 'test' ? 'test_' : 'live_'}${randomAlnum(25)}`;
    state.accessKeys.set(key, mode);
    return reply.code(201).send({ access_key: key, mode });
  });

  app.delete<{ Params: { key: string } }>(`${p}/access_keys/:key`, async (req, reply) => {
    if (!state.accessKeys.delete(req.params.key)) return controlError(reply, 404, 'unknown access key');
    return { revoked: true };
  });

  // A number (or sender) of the account and where its inbound messages are posted.
  app.put<{ Params: { number: string } }>(`${p}/numbers/:number`, async (req) => {
    const number = phoneDigits(req.params.number) || req.params.number;
    const receiveUrl = optString(asRecord(req.body).receive_url) ?? null;
    state.numbers.set(number, { number, receiveUrl });
    return { number, receive_url: receiveUrl };
  });

  app.get(`${p}/messages`, async (req) => ({
    messages: state.messages.map((m) => ({ ...messageView(m, originOf(ctx, req)), test: m.test, params: m.params, deleted: m.deleted })),
  }));

  // Outcome for one recipient (or all): sends the status report GET and returns the service's answer.
  app.post<{ Params: { id: string } }>(`${p}/messages/:id/status`, async (req, reply) => {
    const message = state.messages.find((m) => m.id === req.params.id);
    if (!message) return controlError(reply, 404, 'no such message');
    const body = asRecord(req.body);
    const status = optString(body.status) ?? 'delivered';
    if (!(STATUSES as readonly string[]).includes(status)) return controlError(reply, 400, `status must be one of ${STATUSES.join(', ')}`);
    const only = optString(body.recipient);
    const targets = message.recipients.filter((r) => only === undefined || String(r.recipient) === phoneDigits(only));
    if (targets.length === 0) return controlError(reply, 404, 'no such recipient in this message');
    const defaultReason = status === 'delivered' ? 'successfully delivered' : status === 'delivery_failed' ? 'unknown' : null;
    const reason = optString(body.status_reason) ?? defaultReason;
    const code = optNumber(body.status_error_code) ?? (status === 'delivery_failed' || status === 'expired' ? 1 : null);
    const reports: JsonRecord[] = [];
    for (const r of targets) reports.push(await report(ctx, message, r, status as RecipientStatus, reason, code));
    return { reports };
  });

  // The user replied STOP: an inbound "STOP" (when the number has a receive URL); later sends fail with 103.
  app.post<{ Params: { msisdn: string } }>(`${p}/recipients/:msisdn/stop`, async (req, reply) => {
    const msisdn = phoneDigits(req.params.msisdn);
    if (msisdn === '') return controlError(reply, 400, 'msisdn must be a phone number');
    state.optedOut.add(msisdn);
    const to = optString(asRecord(req.body).recipient);
    const number = to === undefined ? undefined : state.numbers.get(phoneDigits(to) || to);
    if (!number?.receiveUrl) return { opted_out: msisdn, webhook: null };
    const id = randomHex(16);
    const fields = inboundFields(id, msisdn, number.number, 'STOP', state.clock.now());
    state.inbound.push({ id, originator: msisdn, recipient: number.number, body: 'STOP', at: state.clock.now() });
    return { opted_out: msisdn, webhook: summarize(await ctx.webhooks.inbound(number.receiveUrl, fields)) };
  });

  // An SMS (or MMS with media_urls) from a user to one of the account's numbers.
  app.post(`${p}/inbound`, async (req, reply) => {
    const body = asRecord(req.body);
    const originator = phoneDigits(optString(body.originator) ?? '');
    const to = optString(body.recipient) ?? [...state.numbers.keys()][0];
    const text = optString(body.body);
    if (originator === '' || to === undefined || text === undefined) return controlError(reply, 400, 'originator, recipient and body are required');
    const number = state.numbers.get(phoneDigits(to) || to);
    if (!number) return controlError(reply, 404, `number ${to} is not registered (PUT /_sandbox/numbers/:number)`);
    if (!number.receiveUrl) return controlError(reply, 409, `number ${number.number} has no receive_url`);
    const id = randomHex(16);
    // `form: "shortcode"`: the fields a short code's inbound flow posts instead.
    const fields =
      optString(body.form) === 'shortcode'
        ? shortcodeFields(id, originator, number.number, text, state.clock.now())
        : inboundFields(id, originator, number.number, text, state.clock.now(), optString(body.reference));
    const media = asArray(body.media_urls);
    if (media && media.length > 0) {
      fields.mms = 'true';
      fields.mediaUrls = media.map(String).join(',');
    }
    if (text.trim().toUpperCase() === 'STOP') state.optedOut.add(originator);
    state.inbound.push({ id, originator, recipient: number.number, body: text, at: state.clock.now() });
    const record = await ctx.webhooks.inbound(number.receiveUrl, fields);
    return { fields, webhook: summarize(record) };
  });

  app.get(`${p}/state`, async (req) => ({
    account: accountView(ctx),
    messages: state.messages.map((m) => messageView(m, originOf(ctx, req))),
    inbound: state.inbound,
    opted_out: [...state.optedOut],
    faults: state.faults.list(),
  }));

  app.post(`${p}/reset`, async () => {
    state.messages.length = 0;
    state.inbound.length = 0;
    state.optedOut.clear();
    state.numbers.clear();
    state.statusReportUrl = null;
    state.balance = null;
    state.faults.clear();
    state.requests.clear();
    state.webhooks.clear();
    return { reset: true, account: accountView(ctx) };
  });
}
