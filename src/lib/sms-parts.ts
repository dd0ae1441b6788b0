/**
 * How an SMS text is encoded and into how many parts it is split (3GPP TS 23.038 / 23.040).
 *
 * - GSM-7 when every character is in the GSM 03.38 basic set or its extension table; an
 *   extension character is sent as an escape plus the character, so it counts twice. One part
 *   holds 160 septets; the parts of a longer message hold 153 each (the rest is the
 *   concatenation header), and an escape pair is never split across two parts.
 * - UCS-2 otherwise: 70 UTF-16 code units in one part, 67 in each part of a longer message; a
 *   character outside the Basic Multilingual Plane (most emoji) is a surrogate pair, two units,
 *   never split across two parts.
 */

export type SmsEncoding = 'gsm7' | 'ucs2';

export interface SmsParts {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) of the whole text. */
  units: number;
  parts: number;
}

/** Units of a single-part message and of each part of a longer one. */
export const SMS_PART_UNITS: Readonly<Record<SmsEncoding, { single: number; multi: number }>> = {
  gsm7: { single: 160, multi: 153 },
  ucs2: { single: 70, multi: 67 },
};

/** The GSM 03.38 default alphabet (one septet each). */
const GSM_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table (escape + character: two septets each). */
const GSM_EXTENSION = '^{}\\[~]|€\f';

// Septets of each character by its UTF-16 code (0: not in GSM-7). Every GSM-7 character is one
// code unit, so the text is read by code unit: this runs on every mobile Send Message.
const ASCII_SEPTETS = new Uint8Array(128);
const OTHER_SEPTETS = new Map<number, number>();
for (const [chars, septets] of [
  [GSM_BASIC, 1],
  [GSM_EXTENSION, 2],
] as const) {
  for (let i = 0; i < chars.length; i++) {
    const code = chars.charCodeAt(i);
    if (code < 128) ASCII_SEPTETS[code] = septets;
    else OTHER_SEPTETS.set(code, septets);
  }
}

function septetsOf(code: number): number {
  return code < 128 ? ASCII_SEPTETS[code]! : (OTHER_SEPTETS.get(code) ?? 0);
}

/** Septets of the whole text in GSM-7, or -1 when a character is not in it. */
function gsm7Septets(text: string): number {
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const septets = septetsOf(text.charCodeAt(i));
    if (septets === 0) return -1;
    total += septets;
  }
  return total;
}

/** Whether the text can be sent in GSM-7 (basic set and extension table only). */
export function isGsm7(text: string): boolean {
  return gsm7Septets(text) >= 0;
}

/** Units of the character starting at `i`: its septets, or 2 for a surrogate pair in UCS-2. */
function unitsAt(text: string, i: number, encoding: SmsEncoding): number {
  const code = text.charCodeAt(i);
  if (encoding === 'gsm7') return septetsOf(code);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1;
}

/** The encoding, length and part count of a text. */
export function smsParts(text: string): SmsParts {
  const septets = gsm7Septets(text);
  const encoding: SmsEncoding = septets >= 0 ? 'gsm7' : 'ucs2';
  const total = septets >= 0 ? septets : text.length;
  const { single, multi } = SMS_PART_UNITS[encoding];
  if (total <= single) return { encoding, units: total, parts: 1 };
  // Filled character by character: a character of two units that does not fit starts the next part.
  let parts = 1;
  let used = 0;
  for (let i = 0; i < text.length;) {
    const units = unitsAt(text, i, encoding);
    if (used + units > multi) {
      parts += 1;
      used = 0;
    }
    used += units;
    i += encoding === 'ucs2' ? units : 1;
  }
  return { encoding, units: total, parts };
}
