import type { JsonRecord } from '../shared/values.js';
import type { SnSentMessage } from './state.js';

// Messaging events the platform sends on its own (not triggered by an end user).

function appIdValue(appId: string): number | string {
  const n = Number(appId);
  return Number.isSafeInteger(n) ? n : appId;
}

/** message_echoes: the page sent a message (through the API or from the page inbox). */
export function echoEvent(msg: SnSentMessage, psid: string, appId: string): JsonRecord {
  const message: JsonRecord = { mid: msg.mid, is_echo: true, app_id: appIdValue(appId) };
  const metadata = msg.message.metadata;
  if (typeof metadata === 'string') message.metadata = metadata;
  if (typeof msg.message.text === 'string') message.text = msg.message.text;
  const attachment = msg.message.attachment;
  if (typeof attachment === 'object' && attachment !== null) {
    const a = attachment as JsonRecord;
    const type = typeof a.type === 'string' ? a.type : 'file';
    if (type === 'template') {
      message.attachments = [{ type: 'template', payload: a.payload ?? {} }];
    } else {
      message.attachments = [{ type, payload: { url: msg.media?.url ?? msg.media?.sourceUrl ?? null } }];
    }
  }
  return { sender: { id: msg.pageId }, recipient: { id: psid }, timestamp: msg.sentAt, message };
}

export function deliveryEvent(pageId: string, psid: string, mids: string[], watermark: number, now: number): JsonRecord {
  const delivery: JsonRecord = { watermark };
  if (mids.length > 0) delivery.mids = mids;
  return { sender: { id: psid }, recipient: { id: pageId }, timestamp: now, delivery };
}

export function readEvent(pageId: string, psid: string, watermark: number, now: number): JsonRecord {
  return { sender: { id: psid }, recipient: { id: pageId }, timestamp: now, read: { watermark } };
}
