import type { SnContext } from './context.js';
import { deliveryEvent, readEvent } from './events.js';
import type { SnUser } from './state.js';
import type { DeliveryOutcome } from './webhooks.js';

// Delivery and read watermarks: everything the page sent before the watermark is delivered / read.

export interface ReceiptResult {
  mids: string[];
  watermark: number;
  outcome: DeliveryOutcome;
}

export async function deliverUpTo(ctx: SnContext, user: SnUser, watermark: number): Promise<ReceiptResult> {
  const now = ctx.state.clock.now();
  const mids: string[] = [];
  for (const m of ctx.state.sentMessages) {
    if (m.pageId === user.pageId && m.recipient.psid === user.psid && m.deliveredAt === null && m.sentAt <= watermark) {
      m.deliveredAt = now;
      mids.push(m.mid);
    }
  }
  const outcome = await ctx.webhooks.deliver(user.pageId, 'message_deliveries', deliveryEvent(user.pageId, user.psid, mids, watermark, now));
  return { mids, watermark, outcome };
}

export async function readUpTo(ctx: SnContext, user: SnUser, watermark: number): Promise<ReceiptResult> {
  const now = ctx.state.clock.now();
  const mids: string[] = [];
  for (const m of ctx.state.sentMessages) {
    if (m.pageId === user.pageId && m.recipient.psid === user.psid && m.readAt === null && m.sentAt <= watermark) {
      m.readAt = now;
      if (m.deliveredAt === null) m.deliveredAt = now;
      mids.push(m.mid);
    }
  }
  const outcome = await ctx.webhooks.deliver(user.pageId, 'message_reads', readEvent(user.pageId, user.psid, watermark, now));
  return { mids, watermark, outcome };
}
