/** A mailbox as the spec shows it in `metadata.email.to`: the address, and the display name (null when none). */
export interface Mailbox {
  email: string;
  name: string | null;
}

const ADDRESS = /^[^\s@<>",]+@[^\s@<>",]+\.[^\s@<>",]+$/;

/** Splits an address list at commas outside quotes and angle brackets. */
function entries(value: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  let angled = false;
  for (const ch of value) {
    if (ch === '"') quoted = !quoted;
    else if (ch === '<' && !quoted) angled = true;
    else if (ch === '>' && !quoted) angled = false;
    if (ch === ',' && !quoted && !angled) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((e) => e.trim()).filter((e) => e !== '');
}

/** One `Name <a@b.c>`, `"Name" <a@b.c>` or `a@b.c`; the address in lower case. Null when there is no address. */
export function parseMailbox(entry: string): Mailbox | null {
  const angled = /^(.*)<([^<>]+)>\s*$/.exec(entry.trim());
  const address = (angled?.[2] ?? entry).trim().toLowerCase();
  if (!ADDRESS.test(address)) return null;
  const rawName = (angled?.[1] ?? '')
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .replace(/\\(.)/g, '$1')
    .trim();
  return { email: address, name: rawName === '' ? null : rawName };
}

export function parseMailboxes(value: string | undefined): Mailbox[] {
  if (!value) return [];
  return entries(value)
    .map(parseMailbox)
    .filter((m): m is Mailbox => m !== null);
}

/** `Name <a@b.c>` for a From header: the name quoted when it holds specials. */
export function formatMailbox(email: string, name: string | undefined): string {
  if (!name) return email;
  const clean = name.replace(/[\r\n]/g, ' ');
  return /[()<>[\]:;@\\,."]/.test(clean) ? `"${clean.replace(/(["\\])/g, '\\$1')}" <${email}>` : `${clean} <${email}>`;
}
