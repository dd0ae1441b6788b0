// Message parts: GSM-7 (160 per single part, 153 per part of a long message; extension characters
// count twice) or UCS-2 (70 / 67).

const GSM_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '^{}\\[~]|€\f';

export const MAX_BODY = 1377;

export function isGsm(text: string): boolean {
  for (const ch of text) if (!GSM_BASIC.includes(ch) && !GSM_EXTENDED.includes(ch)) return false;
  return true;
}

export function datacodingFor(text: string, requested: string): 'plain' | 'unicode' {
  if (requested === 'unicode') return 'unicode';
  if (requested === 'plain') return 'plain';
  return isGsm(text) ? 'plain' : 'unicode';
}

export function messageLength(text: string, coding: 'plain' | 'unicode'): number {
  if (coding === 'unicode') return text.length;
  let n = 0;
  for (const ch of text) n += GSM_EXTENDED.includes(ch) ? 2 : 1;
  return n;
}

export function partCount(text: string, coding: 'plain' | 'unicode'): number {
  const len = messageLength(text, coding);
  const [single, multi] = coding === 'plain' ? [160, 153] : [70, 67];
  return len <= single ? 1 : Math.ceil(len / multi);
}
