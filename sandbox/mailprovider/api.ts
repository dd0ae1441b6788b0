import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { isParsedForm, type ParsedForm } from '../shared/form-body.js';
import { randomDigits, randomHex } from '../shared/ids.js';
import type { JsonRecord } from '../shared/values.js';
import { bareAddress, splitAddresses } from './addresses.js';
import { applyFault, checkAuth, MpError, type MpContext } from './context.js';
import { sendEvent } from './events.js';
import { matchRoutes } from './inbound.js';
import { WEBHOOK_IDS, type MpDomain, type MpMessage, type MpRoute, type WebhookId } from './state.js';

// /v3 API: messages (form/multipart), messages.mime, routes, domain webhooks.

const MAX_RECIPIENTS = 1000;
const MAX_OPTIONS_BYTES = 16 * 1024;
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

function form(req: FastifyRequest): ParsedForm {
  // The API takes form fields only; a JSON body reads as a request without parameters.
  return isParsedForm(req.body) ? req.body : { form: true, fields: {}, all: [], files: [] };
}

function values(f: ParsedForm, name: string): string[] {
  return f.all.filter(([k]) => k === name).map(([, v]) => v);
}

function domainOr404(ctx: MpContext, name: string): MpDomain {
  const domain = ctx.state.domains.get(name);
  if (!domain) throw new MpError(404, `Domain not found: ${name}`);
  return domain;
}

function messageIdFor(domain: string, nowMs: number): string {
  const d = new Date(nowMs);
  const stamp = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${stamp}.${randomDigits(5)}.${randomDigits(4)}@${domain}`;
}

function checkAddresses(list: string[], param: string): void {
  for (const entry of list) {
    if (bareAddress(entry) === undefined) throw new MpError(400, `${param} parameter is not a valid address. please check documentation`);
  }
}

function createMessage(ctx: MpContext, domain: MpDomain, f: ParsedForm, mime: boolean): MpMessage {
  const from = values(f, 'from')[0];
  const to = splitAddresses(values(f, 'to'));
  const cc = splitAddresses(values(f, 'cc'));
  const bcc = splitAddresses(values(f, 'bcc'));
  if (!mime && (from === undefined || from.trim() === '')) throw new MpError(400, "'from' parameter is missing");
  if (to.length === 0) throw new MpError(400, "'to' parameter is missing");
  if (from !== undefined) checkAddresses([from], 'from');
  checkAddresses(to, 'to');
  checkAddresses(cc, 'cc');
  checkAddresses(bcc, 'bcc');
  if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) throw new MpError(400, `Too many recipients; max is ${MAX_RECIPIENTS}`);
  const text = values(f, 'text')[0] ?? null;
  const html = values(f, 'html')[0] ?? null;
  const amp = values(f, 'amp-html')[0];
  const template = values(f, 'template')[0];
  const mimeFile = f.files.find((x) => x.field === 'message');
  if (mime && !mimeFile) throw new MpError(400, "'message' parameter is missing");
  if (!mime && text === null && html === null && amp === undefined && template === undefined) {
    throw new MpError(400, "Need at least one of 'text', 'html' or 'template' parameters specified");
  }
  const optionBytes = f.all.filter(([k]) => /^(o|h|v|t):/.test(k)).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (optionBytes > MAX_OPTIONS_BYTES) throw new MpError(400, 'Options (o:, h:, v:, t:) exceed 16KB');
  const size = f.files.reduce((n, x) => n + x.data.length, 0) + Buffer.byteLength(text ?? '') + Buffer.byteLength(html ?? '');
  if (size > MAX_MESSAGE_BYTES) throw new MpError(413, 'Message size exceeds the 25MB limit');

  const headers: Record<string, string> = {};
  const userVariables: Record<string, string> = {};
  const options: Record<string, string> = {};
  for (const [k, v] of f.all) {
    if (k.startsWith('h:')) headers[k.slice(2)] = v;
    else if (k.startsWith('v:')) userVariables[k.slice(2)] = v;
    else if (k.startsWith('o:') && k !== 'o:tag') options[k.slice(2)] = v;
  }
  const testMode = ['yes', 'true'].includes((options.testmode ?? '').toLowerCase());
  const message: MpMessage = {
    messageId: messageIdFor(domain.name, ctx.state.clock.now()),
    domain: domain.name,
    from: from ?? '',
    to,
    cc,
    bcc,
    subject: values(f, 'subject')[0] ?? '',
    text,
    html,
    tags: values(f, 'o:tag'),
    userVariables,
    headers,
    options,
    attachments: f.files.map((x) => ({ field: x.field, fileName: x.fileName, contentType: x.contentType, size: x.data.length })),
    testMode,
    createdAt: ctx.state.clock.now(),
    fields: f.all,
  };
  ctx.state.messages.push(message);
  // The provider reports acceptance by itself (if an `accepted` webhook is set).
  for (const recipient of [...to, ...cc, ...bcc]) {
    ctx.state.webhooks.dispatch(() => sendEvent(ctx, message, { event: 'accepted', recipient }));
  }
  return message;
}

function routeView(r: MpRoute): JsonRecord {
  return {
    id: r.id,
    priority: r.priority,
    description: r.description,
    expression: r.expression,
    actions: r.actions,
    created_at: new Date(r.createdAt).toUTCString(),
  };
}

function webhookId(raw: string | undefined): WebhookId {
  if (raw === undefined || !(WEBHOOK_IDS as readonly string[]).includes(raw)) {
    throw new MpError(400, `Invalid webhook id: ${raw ?? ''}. Must be one of ${WEBHOOK_IDS.join(', ')}`);
  }
  return raw as WebhookId;
}

/** A webhook as it is read back: the list of URLs, or the older single-URL form (the first URL). */
function webhookView(ctx: MpContext, urls: string[]): JsonRecord {
  return ctx.state.webhookReadForm === 'url' ? { url: urls[0] ?? '' } : { urls };
}

function validUrls(urls: string[]): string[] {
  if (urls.length === 0) throw new MpError(400, 'url parameter is missing');
  if (urls.length > 3) throw new MpError(400, 'At most 3 urls per webhook');
  for (const u of urls) {
    try {
      new URL(u);
    } catch {
      throw new MpError(400, `Invalid url: ${u}`);
    }
  }
  return urls;
}

export function registerApi(app: FastifyInstance, ctx: MpContext): void {
  const { state } = ctx;

  app.post<{ Params: { domain: string } }>('/v3/:domain/messages', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'messages');
    const message = createMessage(ctx, domainOr404(ctx, req.params.domain), form(req), false);
    return { id: `<${message.messageId}>`, message: 'Queued. Thank you.' };
  });

  app.post<{ Params: { domain: string } }>('/v3/:domain/messages.mime', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'messages');
    const message = createMessage(ctx, domainOr404(ctx, req.params.domain), form(req), true);
    return { id: `<${message.messageId}>`, message: 'Queued. Thank you.' };
  });

  app.post('/v3/routes', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'routes');
    const f = form(req);
    const expression = values(f, 'expression')[0];
    const actions = values(f, 'action');
    if (!expression) throw new MpError(400, "'expression' parameter is missing");
    if (actions.length === 0) throw new MpError(400, "'action' parameter is missing");
    const route: MpRoute = {
      id: randomHex(12),
      priority: Number(values(f, 'priority')[0] ?? 0) || 0,
      description: values(f, 'description')[0] ?? '',
      expression,
      actions,
      createdAt: state.clock.now(),
    };
    state.routes.push(route);
    return { message: 'Route has been created', route: routeView(route) };
  });

  app.get('/v3/routes', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'routes');
    return { total_count: state.routes.length, items: state.routes.map(routeView) };
  });

  app.get<{ Querystring: { address?: string } }>('/v3/routes/match', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'routes');
    const matched = matchRoutes(ctx, req.query.address ?? '', {});
    if (matched.length === 0) throw new MpError(404, 'Route not found');
    return { route: routeView((matched[0] as { route: MpRoute }).route) };
  });

  const routeOr404 = (id: string): MpRoute => {
    const route = state.routes.find((r) => r.id === id);
    if (!route) throw new MpError(404, 'Route not found');
    return route;
  };
  app.get<{ Params: { id: string } }>('/v3/routes/:id', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'routes');
    return { route: routeView(routeOr404(req.params.id)) };
  });
  app.put<{ Params: { id: string } }>('/v3/routes/:id', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'routes');
    const route = routeOr404(req.params.id);
    const f = form(req);
    const priority = values(f, 'priority')[0];
    if (priority !== undefined) route.priority = Number(priority) || 0;
    const description = values(f, 'description')[0];
    if (description !== undefined) route.description = description;
    const expression = values(f, 'expression')[0];
    if (expression !== undefined) route.expression = expression;
    const actions = values(f, 'action');
    if (actions.length > 0) route.actions = actions;
    return { message: 'Route has been updated', ...routeView(route) };
  });
  app.delete<{ Params: { id: string } }>('/v3/routes/:id', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'routes');
    const route = routeOr404(req.params.id);
    state.routes = state.routes.filter((r) => r !== route);
    return { message: 'Route has been deleted', id: route.id };
  });

  // The account's HTTP webhook signing key (the account API, /v5): read, or made anew.
  app.get('/v5/accounts/http_signing_key', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'account');
    if (!ctx.state.signingKeyReadable) throw new MpError(403, 'Forbidden');
    return { http_signing_key: ctx.state.webhookSigningKey };
  });
  app.post('/v5/accounts/http_signing_key', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'account');
    if (!ctx.state.signingKeyReadable) throw new MpError(403, 'Forbidden');
    ctx.state.webhookSigningKey = randomHex(16);
    return { message: 'success', http_signing_key: ctx.state.webhookSigningKey };
  });

  app.get<{ Params: { domain: string } }>('/v3/domains/:domain/webhooks', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'webhooks');
    const domain = domainOr404(ctx, req.params.domain);
    const webhooks: JsonRecord = {};
    for (const [id, urls] of domain.webhooks) webhooks[id] = webhookView(ctx, urls);
    return { webhooks };
  });
  app.post<{ Params: { domain: string } }>('/v3/domains/:domain/webhooks', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'webhooks');
    const domain = domainOr404(ctx, req.params.domain);
    const f = form(req);
    const id = webhookId(values(f, 'id')[0]);
    if (domain.webhooks.has(id)) throw new MpError(400, `Webhook with the ${id} id already exists`);
    const urls = validUrls(values(f, 'url'));
    domain.webhooks.set(id, urls);
    return { message: 'Webhook has been created', webhook: { urls } };
  });
  app.get<{ Params: { domain: string; id: string } }>('/v3/domains/:domain/webhooks/:id', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'webhooks');
    const urls = domainOr404(ctx, req.params.domain).webhooks.get(webhookId(req.params.id));
    if (!urls) throw new MpError(404, 'Webhook not found');
    return { webhook: webhookView(ctx, urls) };
  });
  app.put<{ Params: { domain: string; id: string } }>('/v3/domains/:domain/webhooks/:id', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'webhooks');
    const domain = domainOr404(ctx, req.params.domain);
    const id = webhookId(req.params.id);
    if (!domain.webhooks.has(id)) throw new MpError(404, 'Webhook not found');
    const urls = validUrls(values(form(req), 'url'));
    domain.webhooks.set(id, urls);
    return { message: 'Webhook has been updated', webhook: { urls } };
  });
  app.delete<{ Params: { domain: string; id: string } }>('/v3/domains/:domain/webhooks/:id', async (req) => {
    checkAuth(ctx, req);
    await applyFault(ctx, 'webhooks');
    const domain = domainOr404(ctx, req.params.domain);
    const id = webhookId(req.params.id);
    const urls = domain.webhooks.get(id);
    if (!urls) throw new MpError(404, 'Webhook not found');
    domain.webhooks.delete(id);
    return { message: 'Webhook has been deleted', webhook: { urls } };
  });

  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err as { statusCode?: number; message?: string };
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    const mp =
      err instanceof MpError
        ? err
        : new MpError(e.statusCode === 413 ? 413 : e.statusCode !== undefined && e.statusCode < 500 ? 400 : 500, e.message ?? 'error');
    if (mp.plain) return reply.code(mp.httpStatus).type('text/plain').send(mp.message);
    return reply.code(mp.httpStatus).send({ message: mp.message });
  });
  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    return reply.code(404).send({ message: 'Not Found' });
  });
}
