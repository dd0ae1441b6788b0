// Platforms download media the service points them at (attachment URLs). The stand-in does the same,
// so a connector that hands out unreachable or wrongly typed URLs fails here as it would for real.

export type FetchedMedia =
  | { ok: true; status: number; contentType: string; data: Buffer }
  | { ok: false; reason: 'unreachable' | 'http_status' | 'too_large' | 'bad_url'; status?: number; detail: string };

export async function fetchMedia(url: string, maxBytes: number, timeoutMs: number): Promise<FetchedMedia> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'bad_url', detail: 'not a URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, reason: 'bad_url', detail: 'unsupported scheme' };
  }
  try {
    const res = await fetch(parsed, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    if (res.status < 200 || res.status >= 300) {
      await res.body?.cancel();
      return { ok: false, reason: 'http_status', status: res.status, detail: `HTTP ${res.status}` };
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > maxBytes) {
      await res.body?.cancel();
      return { ok: false, reason: 'too_large', detail: `${declared} bytes` };
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.length;
        if (total > maxBytes) {
          await reader.cancel();
          return { ok: false, reason: 'too_large', detail: `more than ${maxBytes} bytes` };
        }
        chunks.push(value);
      }
    }
    return {
      ok: true,
      status: res.status,
      contentType: (res.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]?.trim() ?? '',
      data: Buffer.concat(chunks),
    };
  } catch (err) {
    return { ok: false, reason: 'unreachable', detail: err instanceof Error ? err.message : String(err) };
  }
}
