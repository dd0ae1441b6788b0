import type { Card, Content } from '../../schemas/content.js';
import type { ConversationEntry } from '../connector.js';

/**
 * A message as mail: a plain-text body and a simple HTML body (the client's text escaped, line
 * breaks kept), files to fetch and attach, the subject and the threading headers.
 * - text: the body; image/video/audio/file: a short line naming the file, the file attached;
 * - structure: each card as a block (title, text, image, item link) with its buttons as links;
 * - quick replies: reply hints, a numbered list the contact answers by number or title (the
 *   service matches both to the quick reply's payload).
 */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  /** Files named by URL, attached after they are downloaded. */
  attachments: { url: string; kind: string }[];
  /** `In-Reply-To` and `References` (angle-bracketed ids), when the conversation has earlier messages. */
  headers: Record<string, string>;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML: every markup character escaped, line breaks kept. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function htmlText(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>\n');
}

function link(url: string, title: string): string {
  return `<a href="${escapeHtml(url)}">${escapeHtml(title)}</a>`;
}

function cardParts(card: Card): { text: string[]; html: string[] } {
  const text: string[] = [];
  const html: string[] = [];
  if (card.title) {
    text.push(card.title);
    html.push(`<h3>${escapeHtml(card.title)}</h3>`);
  }
  if (card.image_url) html.push(`<p><img src="${escapeHtml(card.image_url)}" alt="${escapeHtml(card.title ?? '')}" style="max-width:100%"></p>`);
  if (card.text) {
    text.push(card.text);
    html.push(`<p>${htmlText(card.text)}</p>`);
  }
  if (card.item_url) {
    text.push(card.item_url);
    html.push(`<p>${link(card.item_url, card.item_url)}</p>`);
  }
  const links: string[] = [];
  for (const button of card.buttons ?? []) {
    if (button.type !== 'url') continue;
    text.push(`${button.title}: ${button.payload}`);
    links.push(link(button.payload, button.title));
  }
  if (links.length > 0) html.push(`<p>${links.join(' &middot; ')}</p>`);
  return { text, html };
}

const KIND_WORD: Record<string, string> = { image: 'An image', video: 'A video', audio: 'An audio recording', file: 'A file' };

function bodyOf(content: Content): { text: string; html: string; attachments: RenderedMail['attachments'] } {
  switch (content.type) {
    case 'text':
      return { text: content.payload, html: `<p>${htmlText(content.payload)}</p>`, attachments: [] };
    case 'image':
    case 'video':
    case 'audio':
    case 'file': {
      const line = `${KIND_WORD[content.type]} is attached.`;
      return { text: line, html: `<p>${escapeHtml(line)}</p>`, attachments: [{ url: content.payload.url, kind: content.type }] };
    }
    case 'structure': {
      const cards = Array.isArray(content.payload) ? content.payload : [content.payload];
      const parts = cards.map(cardParts);
      return {
        text: parts.map((p) => p.text.join('\n')).join('\n\n'),
        html: parts.map((p) => `<div style="margin:0 0 1em">${p.html.join('\n')}</div>`).join('\n'),
        attachments: [],
      };
    }
    default:
      // The type's capabilities let nothing else through.
      return { text: '', html: '', attachments: [] };
  }
}

/** Quick replies as reply hints: a numbered list. */
function hints(content: Content): { text: string; html: string } | null {
  const titles = (content.quick_replies ?? []).flatMap((q) => (q.type === 'text' ? [q.title] : []));
  if (titles.length === 0) return null;
  const intro = 'Reply with the number or the words of one of:';
  return {
    text: `${intro}\n${titles.map((t, i) => `${i + 1}. ${t}`).join('\n')}`,
    html: `<p>${escapeHtml(intro)}</p>\n<ol>${titles.map((t) => `<li>${escapeHtml(t)}</li>`).join('')}</ol>`,
  };
}

function subjectIn(metadata: Record<string, unknown> | undefined): string | undefined {
  const own = metadata?.email;
  const subject = own !== null && typeof own === 'object' ? (own as Record<string, unknown>).subject : undefined;
  return typeof subject === 'string' && subject.trim() !== '' ? subject : undefined;
}

/** The client's subject; else the conversation's latest one as a reply (`Re:` once); else the channel's default. */
export function subjectFor(metadata: Record<string, unknown> | undefined, conversation: readonly ConversationEntry[], fallback: string): string {
  const own = subjectIn(metadata);
  if (own !== undefined) return own;
  for (let i = conversation.length - 1; i >= 0; i--) {
    const previous = subjectIn(conversation[i]?.metadata);
    if (previous !== undefined) return /^re:/i.test(previous.trim()) ? previous.trim() : `Re: ${previous.trim()}`;
  }
  return fallback;
}

/** A message id as a header value: `<id>`. */
export function bracketed(id: string): string {
  const bare = id.trim().replace(/^<|>$/g, '');
  return `<${bare}>`;
}

/**
 * The threading headers: `In-Reply-To` the latest earlier message, `References` every earlier
 * one (oldest first). A received mail's attachments are stored under `<id>#n`: the same mail.
 */
export function threadHeaders(conversation: readonly ConversationEntry[]): Record<string, string> {
  const ids: string[] = [];
  for (const entry of conversation) {
    const id = entry.externalId.replace(/#\d+$/, '');
    if (id !== '' && !ids.includes(id)) ids.push(id);
  }
  const last = ids[ids.length - 1];
  if (last === undefined) return {};
  return { 'In-Reply-To': bracketed(last), References: ids.map(bracketed).join(' ') };
}

export function renderMail(
  content: Content,
  metadata: Record<string, unknown> | undefined,
  conversation: readonly ConversationEntry[],
  defaultSubject: string,
): RenderedMail {
  const body = bodyOf(content);
  const hint = hints(content);
  const text = hint ? `${body.text}\n\n${hint.text}` : body.text;
  const inner = hint ? `${body.html}\n${hint.html}` : body.html;
  return {
    subject: subjectFor(metadata, conversation, defaultSubject),
    text,
    html: `<!DOCTYPE html>\n<html><body>\n${inner}\n</body></html>`,
    attachments: body.attachments,
    headers: threadHeaders(conversation),
  };
}
