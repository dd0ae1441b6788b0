import type { FastifyInstance } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { phoneDigits, type JsonRecord } from '../shared/values.js';
import type { SnContext } from './context.js';
import { pageOr404 } from './control-setup.js';
import type { SnSentMessage } from './state.js';

// Control API: what the platform received from the service, for assertions.

type ListQuery = { psid?: string; user_ref?: string; phone_number?: string };

function sentView(m: SnSentMessage): JsonRecord {
  return {
    mid: m.mid,
    recipient: {
      ...(m.recipient.psid !== undefined ? { id: m.recipient.psid } : {}),
      ...(m.recipient.userRef !== undefined ? { user_ref: m.recipient.userRef } : {}),
      ...(m.recipient.phoneNumber !== undefined ? { phone_number: m.recipient.phoneNumber } : {}),
    },
    messaging_type: m.messagingType,
    tag: m.tag,
    notification_type: m.notificationType,
    message: m.message,
    sent_at: m.sentAt,
    delivered_at: m.deliveredAt,
    read_at: m.readAt,
    source: m.source,
    attachment_id: m.attachmentId,
    media: m.media,
  };
}

export function registerInspectRoutes(app: FastifyInstance, ctx: SnContext): void {
  const p = `${CONTROL_PREFIX}/pages/:pageId`;
  const { state } = ctx;

  app.get<{ Params: { pageId: string }; Querystring: ListQuery }>(`${p}/messages`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const { psid, user_ref: userRef, phone_number: phone } = req.query;
    const messages = state.sentMessages.filter(
      (m) =>
        m.pageId === page.id &&
        (psid === undefined || m.recipient.psid === psid) &&
        (userRef === undefined || m.recipient.userRef === userRef) &&
        (phone === undefined || (m.recipient.phoneNumber !== undefined && phoneDigits(m.recipient.phoneNumber) === phoneDigits(phone))),
    );
    return { messages: messages.map(sentView) };
  });

  app.get<{ Params: { pageId: string }; Querystring: ListQuery }>(`${p}/sender_actions`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const psid = req.query.psid;
    return {
      sender_actions: state.senderActions
        .filter((a) => a.pageId === page.id && (psid === undefined || a.psid === psid))
        .map((a) => ({ psid: a.psid, action: a.action, at: a.at })),
    };
  });

  app.get<{ Params: { pageId: string }; Querystring: ListQuery }>(`${p}/inbound_messages`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    const psid = req.query.psid;
    return { messages: state.inboundMessages.filter((m) => m.pageId === page.id && (psid === undefined || m.psid === psid)) };
  });

  app.get<{ Params: { pageId: string } }>(`${p}/profile`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    return { profile: page.profile, changes: page.profileChanges };
  });

  app.get<{ Params: { pageId: string } }>(`${p}/attachments`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    return { attachments: [...state.attachments.values()].filter((a) => a.pageId === page.id) };
  });

  app.get<{ Params: { pageId: string } }>(`${p}/phone_requests`, async (req, reply) => {
    const page = pageOr404(ctx, req, reply);
    if (!page) return reply;
    return {
      phone_requests: state.phoneRequests
        .filter((r) => r.pageId === page.id)
        .map((r) => ({ phone_number: r.phoneNumber, name: r.name, mids: r.mids, created_at: r.createdAt, accepted_by: r.acceptedBy })),
    };
  });
}
