import type { Content } from '../schemas/content.js';

/**
 * The text an SMS carries for a neutral content: SMS has only text, so a file goes out as its
 * link, and quick replies as numbered choices after the text (a reply of the number, or of the
 * title, picks one). Shared by the mobile type's send rule (which counts the parts of exactly
 * this text) and the mobile connector (which sends it). Null for content SMS cannot carry.
 */
export function smsText(content: Content): string | null {
  let body: string;
  switch (content.type) {
    case 'text':
      body = content.payload;
      break;
    case 'image':
    case 'video':
    case 'audio':
    case 'file':
      body = content.payload.url;
      break;
    default:
      return null;
  }
  const choices = (content.quick_replies ?? []).flatMap((q) => (q.type === 'text' ? [q.title] : []));
  if (choices.length === 0) return body;
  return `${body}\n${choices.map((title, i) => `${i + 1}. ${title}`).join('\n')}`;
}
