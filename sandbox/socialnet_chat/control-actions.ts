import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { randomAlnum } from '../shared/ids.js';
import { guessContentType } from '../shared/media-store.js';
import { colorFor, makePng } from '../shared/png.js';
import { summarize } from '../shared/outbound.js';
import { asArray, asRecord, isRecord, optNumber, optString, phoneDigits, type JsonRecord } from '../shared/values.js';
import { originOf, type SnContext } from './context.js';
import { pageOr404, userOr404, userView } from './control-setup.js';
import { echoEvent } from './events.js';
import { createUser } from './model.js';
import { deliverUpTo, readUpTo } from './receipts.js';
import { newMid } from './send-api.js';
import type { SnPage, SnUser } from './state.js';
import type { DeliveryOutcome } from './webhooks.js';

// Control API: act as an end user. Each call returns after the webhook call to the service ended,
// with the service's answer, so tests stay deterministic.

type UserReq = FastifyRequest<{ Params: { pageId: string; psid: string } }>;
type PageReq = FastifyRequest<{ Params: { pageId: string } }>;

function answer(outcome: DeliveryOutcome, event: JsonRecord, extra: JsonRecord = {}): JsonRecord {
  if (outcome.delivered) return { ...extra, event, webhook: summarize(outcome.record) };
  return { ...extra, event, webhook: null, webhook_skipped: outcome.reason };
}

function base(user: SnUser, now: number): JsonRecord {
  return { sender: { id: user.psid }, recipient: { id: user.pageId }, timestamp: now };
}

/** Anything a user does in the thread opens (or renews) the 24-hour window. */
function touch(user: SnUser, now: number): void {
  user.started = true;
  user.lastInboundAt = now;
}

async function userMessage(ctx: SnContext, user: SnUser, message: JsonRecord, extraEvent: JsonRecord = {}): Promise<JsonRecord> {
  const now = ctx.state.clock.now();
  touch(user, now);
  const mid = newMid();
  const full = { mid, ...message };
  ctx.state.inboundMessages.push({ mid, pageId: user.pageId, psid: user.psid, at: now, message: full });
  const event = { ...base(user, now), message: full, ...extraEvent };
  return answer(await ctx.webhooks.deliver(user.pageId, 'messages', event), event, { mid });
}

function findSent(ctx: SnContext, page: SnPage, mid: string | undefined): JsonRecord | undefined {
  if (mid === undefined) return undefined;
  return ctx.state.sentMessages.find((m) => m.pageId === page.id && m.mid === mid)?.message;
}

/** Postback buttons of a sent message: button template buttons or a generic element's buttons. */
function buttonsOf(message: JsonRecord, elementIndex: number): unknown[] {
  const payload = asRecord(asRecord(message.attachment).payload);
  if (payload.template_type === 'generic') return asArray(asRecord(asArray(payload.elements)?.[elementIndex]).buttons) ?? [];
  return asArray(payload.buttons) ?? [];
}

export function registerActionRoutes(app: FastifyInstance, ctx: SnContext): void {
  const p = `${CONTROL_PREFIX}/pages/:pageId/users/:psid`;
  const { state } = ctx;

  const userRoute = (name: string, run: (req: UserReq, reply: FastifyReply, page: SnPage, user: SnUser) => Promise<unknown>): void => {
    app.post<{ Params: { pageId: string; psid: string } }>(`${p}/${name}`, async (req, reply) => {
      const found = userOr404(ctx, req, reply);
      if (!found) return reply;
      return run(req, reply, found.page, found.user);
    });
  };

  userRoute('messages', async (req, reply, _page, user) => {
    const body = asRecord(req.body);
    const text = optString(body.text);
    if (text === undefined || text === '') return controlError(reply, 400, 'text is required');
    const message: JsonRecord = { text };
    const replyTo = optString(body.reply_to);
    if (replyTo) message.reply_to = { mid: replyTo };
    return userMessage(ctx, user, message);
  });

  // The user sends a file; the URL in the event is served by the stand-in.
  userRoute('attachments', async (req, reply, _page, user) => {
    const body = asRecord(req.body);
    const type = optString(body.type) ?? 'image';
    if (!['image', 'video', 'audio', 'file'].includes(type)) return controlError(reply, 400, 'type must be image, video, audio or file');
    const defaults: Record<string, { name: string; type: string }> = {
      image: { name: 'photo.png', type: 'image/png' },
      video: { name: 'clip.mp4', type: 'video/mp4' },
      audio: { name: 'voice.mp3', type: 'audio/mpeg' },
      file: { name: 'document.pdf', type: 'application/pdf' },
    };
    const fallback = defaults[type] ?? { name: 'file.bin', type: 'application/octet-stream' };
    const fileName = optString(body.file_name) ?? fallback.name;
    const base64 = optString(body.content_base64);
    const data =
      base64 !== undefined
        ? Buffer.from(base64, 'base64')
        : type === 'image'
          ? makePng(64, 48, colorFor(fileName))
          : Buffer.from(`sandbox ${type} ${fileName}\n`);
    const contentType = optString(body.content_type) ?? (base64 !== undefined ? guessContentType(fileName, fallback.type) : fallback.type);
    const media = state.media.put(data, contentType, fileName);
    const url = originOf(ctx, req) + state.media.pathOf(media);
    return userMessage(ctx, user, { attachments: [{ type, payload: { url } }] });
  });

  // Legacy location attachment.
  userRoute('location', async (req, reply, _page, user) => {
    const body = asRecord(req.body);
    const lat = optNumber(body.lat ?? body.latitude);
    const long = optNumber(body.long ?? body.longitude);
    if (lat === undefined || long === undefined) return controlError(reply, 400, 'lat and long are required');
    const title = optString(body.title) ?? `${user.firstName}'s Location`;
    const url = `${originOf(ctx, req)}/_media/map?lat=${lat}&long=${long}`;
    return userMessage(ctx, user, { attachments: [{ type: 'location', title, url, payload: { coordinates: { lat, long } } }] });
  });

  // Tap a quick reply: either {payload, title} or {message_id, index} of a message the page sent.
  userRoute('quick_reply', async (req, reply, page, user) => {
    const body = asRecord(req.body);
    let title = optString(body.title);
    let payload = optString(body.payload);
    const sent = findSent(ctx, page, optString(body.message_id));
    if (optString(body.message_id) !== undefined) {
      if (!sent) return controlError(reply, 404, 'no such sent message on this page');
      const qr = asRecord(asArray(sent.quick_replies)?.[optNumber(body.index) ?? 0]);
      const contentType = optString(qr.content_type);
      if (contentType === undefined) return controlError(reply, 400, 'that message has no quick reply at this index');
      if (contentType === 'user_phone_number') {
        title = user.phoneNumber ?? optString(body.phone_number) ?? '+15555550100';
        payload = title;
      } else if (contentType === 'user_email') {
        title = optString(body.email) ?? `${user.firstName}.${user.lastName}@example.com`.toLowerCase();
        payload = title;
      } else {
        title = optString(qr.title) ?? '';
        payload = optString(qr.payload) ?? '';
      }
    }
    if (payload === undefined) return controlError(reply, 400, 'payload (or message_id and index) is required');
    return userMessage(ctx, user, { text: title ?? payload, quick_reply: { payload } });
  });

  // Press a postback button: {payload, title} or {message_id, button_index, element_index?}.
  userRoute('postback', async (req, reply, page, user) => {
    const body = asRecord(req.body);
    let title = optString(body.title) ?? '';
    let payload = optString(body.payload);
    const messageId = optString(body.message_id);
    if (messageId !== undefined) {
      const sent = findSent(ctx, page, messageId);
      if (!sent) return controlError(reply, 404, 'no such sent message on this page');
      const button = asRecord(buttonsOf(sent, optNumber(body.element_index) ?? 0)[optNumber(body.button_index) ?? 0]);
      if (button.type !== 'postback') return controlError(reply, 400, 'no postback button at that index');
      title = optString(button.title) ?? '';
      payload = optString(button.payload) ?? '';
    }
    if (payload === undefined) return controlError(reply, 400, 'payload (or message_id and button_index) is required');
    return postback(ctx, user, title, payload, optString(body.ref));
  });

  userRoute('get_started', async (req, reply, page, user) => {
    const getStarted = asRecord(page.profile.get_started);
    const payload = optString(getStarted.payload);
    if (payload === undefined) return controlError(reply, 409, 'the page has no get_started button set');
    return postback(ctx, user, 'Get Started', payload, optString(asRecord(req.body).ref));
  });

  // Press a persistent-menu item: {index} (top level) of the menu for `locale` (default "default").
  userRoute('menu', async (req, reply, page, user) => {
    const body = asRecord(req.body);
    const locale = optString(body.locale) ?? 'default';
    const menus = asArray(page.profile.persistent_menu) ?? [];
    const menu = asRecord(menus.find((m) => isRecord(m) && m.locale === locale) ?? menus.find((m) => isRecord(m) && m.locale === 'default'));
    const item = asRecord(asArray(menu.call_to_actions)?.[optNumber(body.index) ?? 0]);
    if (item.type !== 'postback') return controlError(reply, 400, 'no postback menu item at that index');
    return postback(ctx, user, optString(item.title) ?? '', optString(item.payload) ?? '');
  });

  userRoute('referral', async (req, reply, _page, user) => {
    const body = asRecord(req.body);
    const ref = optString(body.ref);
    if (ref === undefined) return controlError(reply, 400, 'ref is required');
    const now = state.clock.now();
    touch(user, now);
    const event = { ...base(user, now), referral: { ref, source: optString(body.source) ?? 'SHORTLINK', type: optString(body.type) ?? 'OPEN_THREAD' } };
    return answer(await ctx.webhooks.deliver(user.pageId, 'messaging_referrals', event), event);
  });

  // The user writes while another app (e.g. the page inbox) owns the thread: the app gets it on standby.
  userRoute('standby', async (req, reply, _page, user) => {
    const text = optString(asRecord(req.body).text);
    if (text === undefined) return controlError(reply, 400, 'text is required');
    const now = state.clock.now();
    touch(user, now);
    const event = { ...base(user, now), message: { mid: newMid(), text } };
    return answer(await ctx.webhooks.deliver(user.pageId, 'standby', event), event);
  });

  userRoute('deliver', async (req, _reply, _page, user) => {
    const watermark = optNumber(asRecord(req.body).watermark) ?? state.clock.now();
    const result = await deliverUpTo(ctx, user, watermark);
    return answer(result.outcome, lastEvent(result.outcome), { mids: result.mids, watermark });
  });

  userRoute('read', async (req, _reply, _page, user) => {
    const watermark = optNumber(asRecord(req.body).watermark) ?? state.clock.now();
    const result = await readUpTo(ctx, user, watermark);
    return answer(result.outcome, lastEvent(result.outcome), { mids: result.mids, watermark });
  });

  registerOptinRoute(app, ctx);

  // A page admin types in the page inbox (not through the API): the service sees only the echo.
  app.post<{ Params: { pageId: string } }>(`${CONTROL_PREFIX}/pages/:pageId/inbox_messages`, async (req: PageReq, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const body = asRecord(req.body);
    const user = state.users.get(optString(body.psid) ?? '');
    const text = optString(body.text);
    if (!user || user.pageId !== page.id || text === undefined) return controlError(reply, 400, 'psid of a user of this page and text are required');
    const sent = {
      mid: newMid(),
      pageId: page.id,
      recipient: { psid: user.psid },
      messagingType: null,
      tag: null,
      notificationType: 'REGULAR',
      message: { text },
      sentAt: state.clock.now(),
      deliveredAt: null,
      readAt: null,
      source: 'inbox' as const,
      attachmentId: null,
      media: null,
    };
    state.sentMessages.push(sent);
    const event = echoEvent(sent, user.psid, INBOX_APP_ID);
    return answer(await ctx.webhooks.deliver(page.id, 'message_echoes', event), event, { mid: sent.mid });
  });
}

/** App id shown in echoes of messages typed in the page inbox (a different app than the service's). */
const INBOX_APP_ID = '100000000000001';

function lastEvent(outcome: DeliveryOutcome): JsonRecord {
  if (!outcome.delivered) return {};
  try {
    const envelope = JSON.parse(outcome.record.requestBody) as { entry?: Array<{ messaging?: JsonRecord[] }> };
    return envelope.entry?.[0]?.messaging?.[0] ?? {};
  } catch {
    return {};
  }
}

async function postback(ctx: SnContext, user: SnUser, title: string, payload: string, ref?: string): Promise<JsonRecord> {
  const now = ctx.state.clock.now();
  touch(user, now);
  const pb: JsonRecord = { mid: newMid(), title, payload };
  if (ref !== undefined) pb.referral = { ref, source: 'SHORTLINK', type: 'OPEN_THREAD' };
  const event = { ...base(user, now), postback: pb };
  return answer(await ctx.webhooks.deliver(user.pageId, 'messaging_postbacks', event), event);
}

/**
 * Opt-ins: send_to_socialnet (plugin click by a known user), checkbox (no sender, a user_ref the page
 * can message once), phone_number (the user accepts a message request sent by phone number).
 */
function registerOptinRoute(app: FastifyInstance, ctx: SnContext): void {
  const { state } = ctx;
  app.post<{ Params: { pageId: string } }>(`${CONTROL_PREFIX}/pages/:pageId/optins`, async (req: PageReq, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const body = asRecord(req.body);
    const type = optString(body.type);
    const now = state.clock.now();
    const ref = optString(body.ref);
    const psid = optString(body.psid);
    const user = psid === undefined ? undefined : state.users.get(psid);
    if (psid !== undefined && (!user || user.pageId !== page.id)) return controlError(reply, 404, `no user ${psid} on page ${page.id}`);

    if (type === 'send_to_socialnet') {
      if (!user) return controlError(reply, 400, 'psid is required for send_to_socialnet');
      touch(user, now);
      const optin: JsonRecord = {};
      if (ref !== undefined) optin.ref = ref;
      const event = { ...base(user, now), optin };
      return answer(await ctx.webhooks.deliver(page.id, 'messaging_optins', event), event);
    }

    if (type === 'checkbox') {
      const userRef = optString(body.user_ref) ?? `ref_${randomAlnum(16)}`;
      state.userRefs.set(userRef, { userRef, pageId: page.id, ref: ref ?? null, psid: user?.psid ?? null, createdAt: now, messagesSent: 0 });
      const optin: JsonRecord = {};
      if (ref !== undefined) optin.ref = ref;
      optin.user_ref = userRef;
      const event = { recipient: { id: page.id }, timestamp: now, optin };
      return answer(await ctx.webhooks.deliver(page.id, 'messaging_optins', event), event, { user_ref: userRef });
    }

    if (type === 'phone_number') {
      const phone = optString(body.phone_number);
      if (phone === undefined) return controlError(reply, 400, 'phone_number is required');
      const digits = phoneDigits(phone);
      const request = state.phoneRequests.find((r) => r.pageId === page.id && r.phoneDigits === digits && r.acceptedBy === null);
      if (!request) return controlError(reply, 404, 'no pending message request for this phone number');
      const existing = user ?? [...state.users.values()].find((u) => u.pageId === page.id && u.phoneNumber !== null && phoneDigits(u.phoneNumber) === digits);
      const name = asRecord(request.name);
      const target =
        existing ??
        createUser(ctx, page, {
          firstName: optString(body.first_name) ?? optString(name.first_name) ?? 'Alex',
          lastName: optString(body.last_name) ?? optString(name.last_name) ?? 'Sample',
          phoneNumber: request.phoneNumber,
        });
      if (target.phoneNumber === null) target.phoneNumber = request.phoneNumber;
      touch(target, now);
      request.acceptedBy = target.psid;
      for (const m of state.sentMessages) if (request.mids.includes(m.mid)) m.recipient.psid = target.psid;
      const event = {
        ...base(target, now),
        optin: {},
        prior_message: { source: 'customer_matching', identifier: request.phoneNumber },
      };
      return answer(await ctx.webhooks.deliver(page.id, 'messaging_optins', event), event, {
        user: userView(ctx, target, originOf(ctx, req)),
      });
    }
    return controlError(reply, 400, 'type must be send_to_socialnet, checkbox or phone_number');
  });
}
