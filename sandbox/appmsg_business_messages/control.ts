import type { FastifyInstance } from 'fastify';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { randomDigits } from '../shared/ids.js';
import { summarize } from '../shared/outbound.js';
import { asArray, asRecord, optBoolean, optNumber, optString, phoneDigits, type JsonRecord } from '../shared/values.js';
import type { AbContext } from './api.js';
import { MESSAGE_STATUS, type BusinessCallbacks, type CallbackOutcome } from './callbacks.js';
import type { AbService, AbUser } from './state.js';

// Control API: services (service id + IP whitelist + callback), app users, templates, receipts and replies.

const LOCAL_IPS = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

function answer(outcome: CallbackOutcome, payload: JsonRecord): JsonRecord {
  if (outcome.sent) return { payload, webhook: summarize(outcome.record) };
  return { payload, webhook: null, webhook_skipped: outcome.reason };
}

function serviceView(s: AbService): JsonRecord {
  return {
    service_id: s.serviceId,
    allowed_ips: s.allowedIps,
    callback_url: s.callbackUrl,
    callback_secret: s.callbackSecret,
    blocked: s.blocked,
    billing_permitted: s.billingPermitted,
    plain_text_allowed: s.plainTextAllowed,
  };
}

function userView(u: AbUser): JsonRecord {
  return { phone: u.phone, registered: u.registered, suitable_device: u.suitableDevice, blocked_services: [...u.blockedServices] };
}

export function registerControl(app: FastifyInstance, ctx: AbContext, callbacks: BusinessCallbacks): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;

  const applyServiceFields = (s: AbService, body: JsonRecord): void => {
    const ips = asArray(body.allowed_ips);
    if (ips) s.allowedIps = ips.map(String);
    if (body.callback_url !== undefined) s.callbackUrl = optString(body.callback_url) ?? null;
    if (body.callback_secret !== undefined) s.callbackSecret = optString(body.callback_secret) ?? null;
    const blocked = optBoolean(body.blocked);
    if (blocked !== undefined) s.blocked = blocked;
    const billing = optBoolean(body.billing_permitted);
    if (billing !== undefined) s.billingPermitted = billing;
    const plain = optBoolean(body.plain_text_allowed);
    if (plain !== undefined) s.plainTextAllowed = plain;
  };

  app.post(`${p}/services`, async (req, reply) => {
    const body = asRecord(req.body);
    const serviceId = optNumber(body.service_id) ?? Number(randomDigits(4));
    if (state.services.has(serviceId)) return controlError(reply, 400, 'service_id in use');
    const service: AbService = {
      serviceId,
      allowedIps: [...LOCAL_IPS],
      callbackUrl: null,
      callbackSecret: null,
      blocked: false,
      billingPermitted: true,
      plainTextAllowed: false,
    };
    applyServiceFields(service, body);
    state.services.set(serviceId, service);
    return reply.code(201).send({ service: serviceView(service) });
  });
  app.patch<{ Params: { id: string } }>(`${p}/services/:id`, async (req, reply) => {
    const service = state.services.get(Number(req.params.id));
    if (!service) return controlError(reply, 404, 'no such service');
    applyServiceFields(service, asRecord(req.body));
    return { service: serviceView(service) };
  });
  app.get(`${p}/services`, async () => ({ services: [...state.services.values()].map(serviceView) }));

  app.post(`${p}/users`, async (req, reply) => {
    const body = asRecord(req.body);
    const phone = phoneDigits(optString(body.phone) ?? '');
    if (phone.length < 7) return controlError(reply, 400, 'phone is required');
    const user: AbUser = {
      phone,
      registered: optBoolean(body.registered) ?? true,
      suitableDevice: optBoolean(body.suitable_device) ?? true,
      blockedServices: new Set((asArray(body.blocked_services) ?? []).map(Number)),
      lastReplyAt: new Map(),
    };
    state.users.set(phone, user);
    return reply.code(201).send({ user: userView(user) });
  });

  app.post(`${p}/templates`, async (req, reply) => {
    const body = asRecord(req.body);
    const templateId = optString(body.template_id);
    if (!templateId) return controlError(reply, 400, 'template_id is required');
    const template = { templateId, lang: optString(body.lang) ?? 'en', params: (asArray(body.params) ?? []).map(String) };
    state.templates.set(templateId, template);
    return reply.code(201).send({ template });
  });

  const serviceAndUser = (serviceId: string, phone: string): { service: AbService; user: AbUser } | string => {
    const service = state.services.get(Number(serviceId));
    const user = state.users.get(phoneDigits(phone));
    if (!service) return 'no such service';
    if (!user) return 'no such user';
    return { service, user };
  };

  // The user blocks / unblocks the service (later sends answer SRVC_USER_BLOCKED) and the callback.
  for (const [route, event] of [
    ['block', 'unsubscribe'],
    ['unblock', 'subscribe'],
  ] as const) {
    app.post<{ Params: { id: string; phone: string } }>(`${p}/services/:id/users/:phone/${route}`, async (req, reply) => {
      const found = serviceAndUser(req.params.id, req.params.phone);
      if (typeof found === 'string') return controlError(reply, 404, found);
      if (route === 'block') found.user.blockedServices.add(found.service.serviceId);
      else found.user.blockedServices.delete(found.service.serviceId);
      // A status callback without a message: the user's subscription changed (status 4 or 5).
      const payload = {
        message_status: MESSAGE_STATUS[event],
        message_time: state.clock.now(),
        phone_number: found.user.phone,
        service_id: found.service.serviceId,
      };
      return answer(await callbacks.send(found.service, event, payload), payload);
    });
  }

  // A reply from the user (opens a session for session message types).
  app.post<{ Params: { id: string; phone: string } }>(`${p}/services/:id/users/:phone/reply`, async (req, reply) => {
    const found = serviceAndUser(req.params.id, req.params.phone);
    if (typeof found === 'string') return controlError(reply, 404, found);
    const body = asRecord(req.body);
    const text = optString(body.text);
    if (!text) return controlError(reply, 400, 'text is required');
    const now = state.clock.now();
    found.user.lastReplyAt.set(found.service.serviceId, now);
    const token = optString(body.message_token);
    const original = [...state.messages]
      .reverse()
      .find((m) => m.serviceId === found.service.serviceId && m.dest === found.user.phone && (token === undefined || m.token === token));
    // The reply's own token (a callback the platform repeats names the same reply) and, where the
    // user answered a message, its tracking data (which the partner set when sending it).
    const payload: JsonRecord = {
      message_token: randomDigits(19),
      phone_number: found.user.phone,
      message_time: now,
      service_id: found.service.serviceId,
      message: { text, ...(original?.trackingData ? { tracking_data: original.trackingData } : {}) },
    };
    return answer(await callbacks.send(found.service, 'reply', payload), payload);
  });

  // Delivery report for a sent message: delivered, seen or expired.
  app.post<{ Params: { token: string } }>(`${p}/messages/:token/status`, async (req, reply) => {
    const message = state.messages.find((m) => m.token === req.params.token);
    if (!message) return controlError(reply, 404, 'no such message');
    const status = optString(asRecord(req.body).status) ?? 'delivered';
    if (status !== 'delivered' && status !== 'seen' && status !== 'expired') return controlError(reply, 400, 'status must be delivered, seen or expired');
    message.status = status;
    const service = state.services.get(message.serviceId);
    if (!service) return controlError(reply, 409, 'service was removed');
    const payload = {
      message_token: message.token,
      message_status: MESSAGE_STATUS[status],
      message_time: state.clock.now(),
      phone_number: message.dest,
      service_id: message.serviceId,
    };
    return answer(await callbacks.send(service, status, payload), payload);
  });

  app.get<{ Querystring: { service_id?: string } }>(`${p}/messages`, async (req) => ({
    messages: state.messages.filter((m) => req.query.service_id === undefined || m.serviceId === Number(req.query.service_id)),
  }));

  app.get(`${p}/state`, async () => ({
    services: [...state.services.values()].map(serviceView),
    users: [...state.users.values()].map(userView),
    templates: [...state.templates.values()],
    messages: state.messages.length,
    faults: state.faults.list(),
  }));
  app.post(`${p}/reset`, async () => {
    state.services.clear();
    state.users.clear();
    state.templates.clear();
    state.messages.length = 0;
    state.faults.clear();
    state.requests.clear();
    state.webhooks.clear();
    return { reset: true };
  });
}
