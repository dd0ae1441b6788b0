import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { isParsedForm, mergedParams } from '../shared/form-body.js';
import { randomHex } from '../shared/ids.js';
import { asArray, asRecord, maybeJson, optNumber, optString, phoneDigits, type JsonRecord } from '../shared/values.js';
import { applyFault, originOf, type SpContext } from './context.js';
import { apiNotFound, invalid, missing, noBalance, noRecipients, notAllowed, notFound, renderSpError, SpError } from './errors.js';
import { messageView } from './format.js';
import { datacodingFor, MAX_BODY, partCount } from './sms-parts.js';
import type { SpMessage } from './state.js';

// POST /messages, GET /messages[/{id}], DELETE /messages/{id}, GET /balance.

function authenticate(ctx: SpContext, req: FastifyRequest): 'live' | 'test' {
  const header = req.headers.authorization ?? '';
  const m = /^AccessKey\s+(\S+)$/i.exec(header.trim());
  const mode = m?.[1] === undefined ? undefined : ctx.state.accessKeys.get(m[1]);
  if (!mode) throw notAllowed();
  return mode;
}

function recipientsOf(raw: unknown): string[] {
  const value = maybeJson(raw);
  const list = asArray(value) ?? (typeof value === 'string' || typeof value === 'number' ? String(value).split(',') : []);
  return list.map((v) => String(v).trim()).filter((v) => v !== '');
}

function validOriginator(o: string): boolean {
  if (/^\+?\d{1,17}$/.test(o)) return true;
  return /^[A-Za-z0-9 ]{1,11}$/.test(o) && /[A-Za-z]/.test(o);
}

/** The parameters once checked; every failure is collected, as the provider reports them all at once. */
interface CheckedParams {
  originator: string;
  body: string;
  recipients: string[];
  type: string;
  requestedCoding: string;
  mclass: number;
  validity: number | null;
  reportUrl: string | null;
  scheduled: string | null;
  scheduledAt: number | null;
}

function checkParams(params: Record<string, unknown>): CheckedParams {
  const errors: SpError[] = [];
  // Recipients first: "no (correct) recipients found" (code 9) leads the list.
  const rawRecipients = recipientsOf(params.recipients);
  const recipients = [...new Set(rawRecipients.map(phoneDigits).filter((d) => d.length >= 6 && d.length <= 15))];
  if (rawRecipients.length === 0) errors.push(missing('recipients'));
  else if (recipients.length === 0) errors.push(noRecipients());
  const originator = optString(params.originator) ?? '';
  if (originator === '') errors.push(missing('originator'));
  else if (!validOriginator(originator)) errors.push(invalid('originator'));
  const body = optString(params.body) ?? '';
  if (body === '') errors.push(missing('body'));
  else if (body.length > MAX_BODY) errors.push(invalid('body', `is too long (max ${MAX_BODY} characters)`));
  const type = optString(params.type) ?? 'sms';
  if (!['sms', 'binary', 'flash'].includes(type)) errors.push(invalid('type'));
  const requestedCoding = optString(params.datacoding) ?? 'plain';
  if (!['plain', 'unicode', 'auto'].includes(requestedCoding)) errors.push(invalid('datacoding'));
  const mclass = optNumber(params.mclass) ?? 1;
  if (mclass !== 0 && mclass !== 1) errors.push(invalid('mclass'));
  const validity = params.validity === undefined ? null : optNumber(params.validity);
  if (validity === undefined || (validity !== null && validity < 1)) errors.push(invalid('validity'));
  const reportUrl = optString(params.reportUrl) ?? null;
  if (reportUrl !== null && !URL.canParse(reportUrl)) errors.push(invalid('reportUrl'));
  const scheduled = optString(params.scheduledDatetime) ?? null;
  const scheduledAt = scheduled === null ? null : Date.parse(scheduled);
  if (scheduledAt !== null && Number.isNaN(scheduledAt)) errors.push(invalid('scheduledDatetime'));
  const [first, ...more] = errors;
  if (first) throw new SpError(first.httpStatus, first.code, first.description, first.parameter, more);
  return { originator, body, recipients, type, requestedCoding, mclass, validity: validity ?? null, reportUrl, scheduled, scheduledAt };
}

async function createMessage(ctx: SpContext, mode: 'live' | 'test', params: Record<string, unknown>): Promise<SpMessage> {
  const { state } = ctx;
  const { originator, body, recipients, type, requestedCoding, mclass, validity, reportUrl, scheduled, scheduledAt } = checkParams(params);

  const coding = datacodingFor(body, requestedCoding);
  const parts = partCount(body, coding);
  const cost = recipients.length * parts * ctx.options.pricePerPart;
  if (mode === 'live' && state.balance !== null) {
    if (state.balance < cost) throw noBalance();
    state.balance = Math.round((state.balance - cost) * 1000) / 1000;
  }
  const now = state.clock.now();
  const isScheduled = scheduledAt !== null && scheduledAt > now;
  const stored: JsonRecord = {};
  for (const [k, v] of Object.entries(params)) stored[k] = maybeJson(v);
  const message: SpMessage = {
    id: randomHex(16),
    direction: 'mt',
    type,
    originator,
    body,
    reference: optString(params.reference) ?? null,
    reportUrl,
    validity,
    gateway: optNumber(params.gateway) ?? 10,
    typeDetails: asRecord(maybeJson(params.typeDetails)),
    datacoding: coding,
    mclass,
    scheduledDatetime: scheduled,
    createdAt: now,
    recipients: recipients.map((d) => ({
      recipient: Number(d),
      status: isScheduled ? 'scheduled' : 'sent',
      statusDatetime: now,
      statusReason: null,
      statusErrorCode: null,
      messagePartCount: parts,
      price: { amount: mode === 'live' ? parts * ctx.options.pricePerPart : 0, currency: 'EUR' },
    })),
    test: mode === 'test',
    params: stored,
    deleted: false,
  };
  state.messages.push(message);

  // Recipients who replied STOP: the provider reports the failure on its own.
  for (const r of message.recipients) {
    if (!message.test && state.optedOut.has(String(r.recipient))) {
      state.webhooks.dispatch(async () => {
        r.status = 'delivery_failed';
        r.statusReason = 'unknown subscriber';
        r.statusErrorCode = 103;
        r.statusDatetime = state.clock.now();
        await ctx.webhooks.statusReport(message, r);
      });
    }
  }
  return message;
}

/** An RFC 3339 time of a list filter; a value that is not one is refused (code 10), as the provider does with bad parameters. */
function filterTime(query: Record<string, string | undefined>, name: string): number | null {
  const value = query[name];
  if (value === undefined || value === '') return null;
  const at = Date.parse(value.replace(/ (\d\d:?\d\d)$/, '+$1'));
  if (Number.isNaN(at)) throw invalid(name);
  return at;
}

/**
 * The list's filters, applied on the server as the provider's reference names them: `originator`,
 * `recipient` (a number, compared as digits), `direction` (`mt`; received messages are not in this
 * list here), `type`, `status` (any recipient's), and `from` / `until` (RFC 3339, on the time the
 * message was created, both inclusive). The list stays newest first.
 */
function listFilter(query: Record<string, string | undefined>): (m: SpMessage) => boolean {
  const from = filterTime(query, 'from');
  const until = filterTime(query, 'until');
  const { originator, recipient, direction, type, status } = query;
  const digits = recipient === undefined || recipient === '' ? null : phoneDigits(recipient);
  return (m) =>
    (from === null || m.createdAt >= from) &&
    (until === null || m.createdAt <= until) &&
    (!originator || m.originator === originator) &&
    (digits === null || m.recipients.some((r) => String(r.recipient) === digits)) &&
    (!direction || m.direction === direction) &&
    (!type || m.type === type) &&
    (!status || m.recipients.some((r) => r.status === status));
}

/** Messages the API can read back: not deleted, and not sent with a test key (those answer 404, code 20). */
function readable(m: SpMessage): boolean {
  return !m.deleted && !m.test;
}

function find(ctx: SpContext, id: string): SpMessage {
  const message = ctx.state.messages.find((m) => m.id === id && readable(m));
  if (!message) throw notFound();
  return message;
}

export function registerMessagesApi(app: FastifyInstance, ctx: SpContext): void {
  app.post('/messages', async (req, reply) => {
    const mode = authenticate(ctx, req);
    const holdAnswerMs = await applyFault(ctx, 'messages');
    const params = mergedParams({}, req.body);
    if (isParsedForm(req.body)) {
      // Form posts may repeat `recipients` or use `recipients[]`.
      const all = req.body.all.filter(([k]) => k === 'recipients' || k === 'recipients[]').map(([, v]) => v);
      if (all.length > 0) params.recipients = all.join(',');
    }
    const message = await createMessage(ctx, mode, params);
    if (holdAnswerMs > 0) await ctx.sleeper.sleep(holdAnswerMs);
    return reply.code(201).send(messageView(message, originOf(ctx, req)));
  });

  app.get<{ Querystring: Record<string, string | undefined> }>('/messages', async (req) => {
    authenticate(ctx, req);
    await applyFault(ctx, 'messages');
    const limit = Math.min(200, Math.max(1, Number(req.query.limit ?? 20) || 20));
    const offset = Math.max(0, Number(req.query.offset ?? 0) || 0);
    const filter = listFilter(req.query);
    const all = ctx.state.messages.filter((m) => readable(m) && filter(m)).reverse();
    const origin = originOf(ctx, req);
    return {
      offset,
      limit,
      count: Math.min(limit, Math.max(0, all.length - offset)),
      totalCount: all.length,
      links: { first: `${origin}/messages?offset=0&limit=${limit}`, previous: null, next: null, last: null },
      items: all.slice(offset, offset + limit).map((m) => messageView(m, origin)),
    };
  });

  app.get<{ Params: { id: string } }>('/messages/:id', async (req) => {
    authenticate(ctx, req);
    await applyFault(ctx, 'message');
    return messageView(find(ctx, req.params.id), originOf(ctx, req));
  });

  app.delete<{ Params: { id: string } }>('/messages/:id', async (req, reply) => {
    authenticate(ctx, req);
    await applyFault(ctx, 'message');
    find(ctx, req.params.id).deleted = true;
    return reply.code(204).send();
  });

  app.get('/balance', async (req) => {
    authenticate(ctx, req);
    return { payment: 'prepaid', type: 'euros', amount: ctx.state.balance ?? 1000 };
  });

  app.setErrorHandler((err: unknown, req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) {
      const e = err as { statusCode?: number; message?: string };
      return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    }
    const e = err as { statusCode?: number; message?: string };
    const spErr =
      err instanceof SpError
        ? err
        : new SpError(
            e.statusCode !== undefined && e.statusCode < 500 ? 400 : 500,
            e.statusCode !== undefined && e.statusCode < 500 ? 21 : 99,
            e.message ?? 'error',
          );
    const { status, body, headers } = renderSpError(spErr);
    return reply.code(status).headers(headers).send(body);
  });

  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    const { status, body } = renderSpError(apiNotFound());
    return reply.code(status).send(body);
  });
}
