// Narrowing helpers for untyped JSON/form input: the stand-ins must accept whatever a connector sends
// and answer with the platform's own validation errors, so bodies are read as `unknown`.

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asRecord(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

export function optString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return undefined;
}

export function optNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export function optBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return undefined;
}

/** Form fields arrive as strings; platforms accept JSON-encoded objects inside them. */
export function maybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return value;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return value;
  }
}

export function asArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? (value as unknown[]) : undefined;
}

/** Digits only, for loose phone-number matching ("+1(212)555-2368" == "12125552368"). */
export function phoneDigits(value: string): string {
  return value.replace(/\D/g, '');
}

export function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** Length in UTF-16 code units like most platform limits are documented ("characters"). */
export function charLength(value: string): number {
  return [...value].length;
}
