import { messageFailedCode } from '../../connectors/failure-codes.js';
import type { ChannelType } from '../../schemas/channel-types.js';
import {
  MESSAGE_FAILED_CODES,
  type MessageErrorView,
  type MessageFailedCode,
  type MessagePartsView,
  type MessageStatus,
  type MessageWithStatusView,
} from '../../schemas/message-status.js';
import type { MessageWithRefs } from '../../store/repos/messages.js';
import { messageViewFromRow } from './view.js';

/**
 * The stored status: `queued` (an asynchronous send waiting for its job), `sent` (the platform
 * took it, or test mode), `failed` (with the `message_failed` code and the platform's reason) or
 * `received`. The send job moves `queued` to `sent` or `failed`, a platform's failure report
 * `sent` to `failed`, each once. Receipts and status reports only set the `delivered` and
 * `read` times, so `delivered` is read from them: a read message was delivered too, and a failed
 * one is never marked either way.
 */
export function messageStatusOf(row: Pick<MessageWithRefs, 'status' | 'delivered_at' | 'read_at'>): MessageStatus {
  if (row.status === 'failed') return 'failed';
  if (row.delivered_at !== null || row.read_at !== null) return 'delivered';
  if (row.status === 'queued') return 'pending';
  return 'sent';
}

const isFailedCode = (v: unknown): v is MessageFailedCode => v === 1 || v === 2 || v === 3 || v === 4;

/** The stored failure as a `message_failed` error: a platform's code is mapped, a code of the event kept. */
export function messageErrorOf(type: ChannelType, stored: string | null): MessageErrorView {
  let parsed: { code?: unknown; message?: unknown } = {};
  try {
    const value: unknown = stored === null ? null : JSON.parse(stored);
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // An unreadable reason still reads as a failure while processing the request.
  }
  const code = isFailedCode(parsed.code) ? parsed.code : typeof parsed.code === 'string' ? messageFailedCode(type, parsed.code) : 1;
  const message = typeof parsed.message === 'string' && parsed.message !== '' ? parsed.message : MESSAGE_FAILED_CODES[code];
  return { code, message };
}

/** Get Message and List Messages: the message shape plus `status`, `error` when failed, and `parts` when counted. */
export function messageWithStatusView(row: MessageWithRefs): MessageWithStatusView {
  const status = messageStatusOf(row);
  const view: MessageWithStatusView = { ...messageViewFromRow(row), status };
  if (status === 'failed') view.error = messageErrorOf(row.channel_type as ChannelType, row.error);
  // Stored by Send Message for the types that count parts (SMS); null on every other message.
  if (row.part_count != null && row.part_encoding != null) view.parts = { count: row.part_count, encoding: row.part_encoding as MessagePartsView['encoding'] };
  return view;
}
