// JSON with integers beyond 2^53 written as bare numbers (some platforms use 64-bit message tokens),
// so connectors that parse them with plain JSON.parse meet the same precision issue as in production.

const MARK = '\u0000bigint:';

export function stringifyWithBigInts(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v.toString()}` : v));
  return text.replace(new RegExp(`"${MARK.replace('\u0000', '\\\\u0000')}(-?\\d+)"`, 'g'), '$1');
}
