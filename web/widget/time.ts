import { el } from './dom.js';

const SAME_DAY = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const OTHER_DAY = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const FULL = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' });

/** A message's time in the visitor's locale: the hour alone today, with the date before. */
export function timeElement(when: string | number, now = new Date()): HTMLTimeElement {
  const date = new Date(when);
  if (Number.isNaN(date.getTime())) return el('time');
  const today = date.toDateString() === now.toDateString();
  return el('time', { datetime: date.toISOString(), title: FULL.format(date) }, (today ? SAME_DAY : OTHER_DAY).format(date));
}
