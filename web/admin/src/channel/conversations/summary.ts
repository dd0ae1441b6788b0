import type { Message } from '../types';

/** One line about a message, for the contact list. */
export function summary(m: Message): string {
  const who = m.direction === 'sent' ? 'You: ' : '';
  const c = m.content;
  const text = c.type === 'text' ? c.payload : c.type === 'structure' ? 'Card' : c.type.charAt(0).toUpperCase() + c.type.slice(1);
  const line = `${who}${text}`;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
