import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/**
 * Phone numbers arrive in free format. Returns E.164 ("+420601123456") or null when the text is
 * not a possible number. A number without a country code is read in the default region, when
 * one is configured.
 */
export function toE164(input: string, defaultRegion?: string): string | null {
  const text = input.trim();
  if (text.length === 0 || text.length > 40) return null;
  const hasPlus = text.startsWith('+') || text.startsWith('00');
  if (!hasPlus && !defaultRegion) return null;
  const normalized = text.startsWith('00') ? `+${text.slice(2)}` : text;
  const parsed = parsePhoneNumberFromString(normalized, hasPlus ? undefined : (defaultRegion as CountryCode));
  if (!parsed || !parsed.isPossible()) return null;
  return parsed.number;
}
