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
const GSM_BASIC = new Set('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà');
/** The extension table (escape + character: two septets each). */
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

/** Whether the text can be sent in GSM-7 (basic set and extension table only). */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (!GSM_BASIC.has(ch) && !GSM_EXTENSION.has(ch)) return false;
  return true;
}

export function smsEncoding(text: string): SmsEncoding {
  return isGsm7(text) ? 'gsm7' : 'ucs2';
}

/** The units each character takes: 1 or 2 septets in GSM-7, 1 or 2 code units in UCS-2. */
function unitsOf(text: string, encoding: SmsEncoding): number[] {
  const out: number[] = [];
  for (const ch of text) out.push(encoding === 'gsm7' ? (GSM_EXTENSION.has(ch) ? 2 : 1) : ch.length);
  return out;
}

/** The encoding, length and part count of a text. */
export function smsParts(text: string): SmsParts {
  const encoding = smsEncoding(text);
  const units = unitsOf(text, encoding);
  const total = units.reduce((a, b) => a + b, 0);
  const { single, multi } = SMS_PART_UNITS[encoding];
  if (total <= single) return { encoding, units: total, parts: 1 };
  // Filled character by character: a character of two units that does not fit starts the next part.
  let parts = 1;
  let used = 0;
  for (const u of units) {
    if (used + u > multi) {
      parts += 1;
      used = 0;
    }
    used += u;
  }
  return { encoding, units: total, parts };
}
