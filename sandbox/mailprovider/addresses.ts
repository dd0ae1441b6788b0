// Address lists as the API takes them: repeated fields and/or comma-separated "Name <a@b.c>" entries.

export function splitAddresses(values: string[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    // Commas inside quoted display names do not separate addresses.
    let current = '';
    let quoted = false;
    for (const ch of v) {
      if (ch === '"') quoted = !quoted;
      if (ch === ',' && !quoted) {
        if (current.trim() !== '') out.push(current.trim());
        current = '';
      } else current += ch;
    }
    if (current.trim() !== '') out.push(current.trim());
  }
  return out;
}

/** The bare address of "Name <a@b.c>" or "a@b.c"; undefined when it is not an address. */
export function bareAddress(entry: string): string | undefined {
  const m = /<([^<>\s]+@[^<>\s]+)>\s*$/.exec(entry);
  const addr = (m?.[1] ?? entry).trim();
  return /^[^@\s<>"]+@[^@\s<>"]+\.[^@\s<>"]+$/.test(addr) ? addr.toLowerCase() : undefined;
}

export function domainOf(address: string): string {
  return address.split('@')[1] ?? '';
}
