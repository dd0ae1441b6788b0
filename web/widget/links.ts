import { el, safeUrl } from './dom.js';

/** Web addresses written out in text; only http and https ever become links. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;
const TRAILING = /[.,;:!?'"]+$/;
const PAIRS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

const count = (s: string, ch: string) => s.split(ch).length - 1;

/** Drops what usually ends a sentence rather than the address: "(see https://x.example/a)." */
function trimAddress(candidate: string): string {
  let s = candidate;
  for (;;) {
    const before = s;
    s = s.replace(TRAILING, '');
    const last = s.at(-1);
    const open = last === undefined ? undefined : PAIRS[last];
    // A closing bracket without its opening one in the address belongs to the sentence.
    if (open !== undefined && count(s, open) < count(s, last!)) s = s.slice(0, -1);
    if (s === before) return s;
  }
}

/**
 * Text with its web addresses as links, built from text nodes and anchors (never parsed as
 * HTML). Links open in a new tab without giving the page a handle on the widget's page.
 */
export function linkedText(text: string): Array<Node> {
  const out: Node[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const start = match.index ?? 0;
    const address = trimAddress(match[0]);
    const href = safeUrl(address);
    if (!href) continue;
    if (start > at) out.push(document.createTextNode(text.slice(at, start)));
    out.push(el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, address));
    at = start + address.length;
  }
  if (at < text.length) out.push(document.createTextNode(text.slice(at)));
  return out;
}
