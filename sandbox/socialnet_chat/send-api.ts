import type { FastifyRequest } from 'fastify';
import { isParsedForm, type UploadedFile } from '../shared/form-body.js';
import { randomAlnum } from '../shared/ids.js';
import { asRecord, maybeJson, optString, type JsonRecord } from '../shared/values.js';
import { materializeAttachment } from './attachments.js';
import { applyFault, originOf, type SnContext } from './context.js';
import { noMatchingUser, outsideWindow, paramError, userUnavailable } from './errors.js';
import { echoEvent } from './events.js';
import { deliverUpTo } from './receipts.js';
import type { SnPage, SnRecipient, SnSentMessage, SnUser } from './state.js';
import { requirePageNode, type Caller } from './tokens.js';
import { validateSend, type ValidatedSend } from './send-validation.js';

// POST /{version}/{me|PAGE_ID}/messages and /message_attachments.

const DAY_MS = 24 * 60 * 60 * 1000;
const HUMAN_AGENT_MS = 7 * DAY_MS;

export function newMid(): string {
  return `m_${randomAlnum(86)}`;
}

function uploadOf(req: FastifyRequest): UploadedFile | undefined {
  return isParsedForm(req.body) ? req.body.files.find((f) => f.field === 'filedata') : undefined;
}

function checkWindow(user: SnUser, send: ValidatedSend, now: number): void {
  if (send.messagingType === 'UTILITY') return;
  let limit = DAY_MS;
  if (send.messagingType === 'MESSAGE_TAG') {
    if (send.tag !== 'HUMAN_AGENT') return;
    limit = HUMAN_AGENT_MS;
  }
  if (user.lastInboundAt === null || now - user.lastInboundAt > limit) throw outsideWindow();
}

function findUser(ctx: SnContext, page: SnPage, psid: string): SnUser {
  const user = ctx.state.users.get(psid);
  if (!user || user.pageId !== page.id) throw noMatchingUser();
  if (user.blocked) throw userUnavailable();
  return user;
}

export async function handleSend(ctx: SnContext, req: FastifyRequest, caller: Caller, node: string, params: Record<string, unknown>): Promise<JsonRecord> {
  const { page } = requirePageNode(caller, node);
  await applyFault(ctx, 'messages');
  const upload = uploadOf(req);
  const send = validateSend(params, ctx.options.acceptedTags, upload !== undefined);
  const { state } = ctx;
  const now = state.clock.now();

  if (send.senderAction !== null) {
    if (send.recipient.kind !== 'id') throw paramError('sender_action requires recipient[id]');
    const user = findUser(ctx, page, send.recipient.psid);
    state.senderActions.push({ pageId: page.id, psid: user.psid, action: send.senderAction, at: now });
    return { recipient_id: user.psid };
  }

  const message = send.message ?? {};
  let recipient: SnRecipient;
  let user: SnUser | undefined;
  let pendingPhone: { digits: string; phoneNumber: string; name: JsonRecord | null } | undefined;
  switch (send.recipient.kind) {
    case 'id':
      user = findUser(ctx, page, send.recipient.psid);
      checkWindow(user, send, now);
      recipient = { psid: user.psid };
      break;
    case 'user_ref': {
      const ref = state.userRefs.get(send.recipient.userRef);
      if (!ref || ref.pageId !== page.id) throw noMatchingUser();
      ref.messagesSent += 1;
      recipient = { userRef: ref.userRef };
      if (ref.psid !== null) recipient.psid = ref.psid;
      break;
    }
    case 'phone': {
      const digits = send.recipient.digits;
      const accepted = [...state.users.values()].find(
        (u) => u.pageId === page.id && u.phoneNumber !== null && u.phoneNumber.replace(/\D/g, '') === digits && u.started,
      );
      recipient = { phoneNumber: send.recipient.phoneNumber };
      if (accepted) {
        if (accepted.blocked) throw userUnavailable();
        recipient.psid = accepted.psid;
        user = accepted;
      } else {
        pendingPhone = { digits, phoneNumber: send.recipient.phoneNumber, name: send.recipient.name };
      }
      break;
    }
  }

  const attachment = message.attachment as JsonRecord | undefined;
  const materialized = attachment ? await materializeAttachment(ctx, page, attachment, upload, originOf(ctx, req)) : { media: null, attachmentId: null };

  const sent: SnSentMessage = {
    mid: newMid(),
    pageId: page.id,
    recipient,
    messagingType: send.messagingType,
    tag: send.tag,
    notificationType: send.notificationType,
    message,
    sentAt: now,
    deliveredAt: null,
    readAt: null,
    source: 'api',
    attachmentId: materialized.attachmentId,
    media: materialized.media,
  };
  state.sentMessages.push(sent);

  if (pendingPhone) {
    const existing = state.phoneRequests.find((r) => r.pageId === page.id && r.phoneDigits === pendingPhone.digits && r.acceptedBy === null);
    if (existing) existing.mids.push(sent.mid);
    else {
      state.phoneRequests.push({
        pageId: page.id,
        phoneDigits: pendingPhone.digits,
        phoneNumber: pendingPhone.phoneNumber,
        name: pendingPhone.name,
        mids: [sent.mid],
        createdAt: now,
        acceptedBy: null,
      });
    }
  }

  const response: JsonRecord = {};
  // Sends by user_ref or phone number get no recipient_id.
  if (send.recipient.kind === 'id') response.recipient_id = recipient.psid;
  response.message_id = sent.mid;
  if (sent.attachmentId !== null) response.attachment_id = sent.attachmentId;

  const echoPsid = recipient.psid;
  if (echoPsid !== undefined) {
    state.webhooks.dispatch(() => ctx.webhooks.deliver(page.id, 'message_echoes', echoEvent(sent, echoPsid, state.app.id)));
    if (ctx.options.autoDeliver && user) {
      const target = user;
      state.webhooks.dispatch(() => deliverUpTo(ctx, target, sent.sentAt));
    }
  }
  return response;
}

export async function handleAttachmentUpload(
  ctx: SnContext,
  req: FastifyRequest,
  caller: Caller,
  node: string,
  params: Record<string, unknown>,
): Promise<JsonRecord> {
  const { page } = requirePageNode(caller, node);
  await applyFault(ctx, 'message_attachments');
  const message = asRecord(maybeJson(params.message));
  const attachment = asRecord(maybeJson(message.attachment));
  const type = optString(attachment.type) ?? '';
  if (!['image', 'audio', 'video', 'file'].includes(type)) {
    throw paramError(`Param message[attachment][type] must be one of {IMAGE, AUDIO, VIDEO, FILE} - got "${type}"`);
  }
  const payload = asRecord(attachment.payload);
  const upload = uploadOf(req);
  if (!upload && (optString(payload.url) ?? '') === '') throw paramError('param message[attachment][payload][url] is required');
  const result = await materializeAttachment(ctx, page, { type, payload: { ...payload, is_reusable: true } }, upload, originOf(ctx, req));
  return { attachment_id: result.attachmentId };
}
