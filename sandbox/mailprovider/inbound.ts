import { encodeMultipart, type MultipartFile } from '../shared/multipart.js';
import type { OutboundRecord } from '../shared/outbound.js';
import { bareAddress } from './addresses.js';
import type { MpContext } from './context.js';
import { signBody } from './signing.js';
import type { MpRoute } from './state.js';

// Inbound mail: routes matched by priority (match_recipient, match_header, catch_all), actions
// forward("http…") POSTing the parsed message, stop() ending the evaluation.

export interface InboundMail {
  recipient: string;
  sender: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  headers: Record<string, string>;
  attachments: MultipartFile[];
}

/** Python-style named groups (?P<name>…) → JavaScript (?<name>…); full, case-insensitive match. */
function regex(pattern: string): RegExp | null {
  try {
    return new RegExp(`^(?:${pattern.replace(/\(\?P</g, '(?<')})$`, 'i');
  } catch {
    return null;
  }
}

function stringArgs(call: string): string[] {
  return [...call.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1] ?? m[2] ?? '');
}

export function expressionMatches(expression: string, recipient: string, headers: Record<string, string>): boolean {
  const expr = expression.trim();
  if (/^catch_all\(\s*\)$/.test(expr)) return true;
  if (expr.startsWith('match_recipient(')) {
    const [pattern] = stringArgs(expr);
    return pattern !== undefined && (regex(pattern)?.test(recipient) ?? false);
  }
  if (expr.startsWith('match_header(')) {
    const [name, pattern] = stringArgs(expr);
    if (name === undefined || pattern === undefined) return false;
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    return value !== undefined && (regex(pattern)?.test(value) ?? false);
  }
  return false;
}

export function matchRoutes(ctx: MpContext, recipient: string, headers: Record<string, string>): MpRoute[] {
  const sorted = [...ctx.state.routes].sort((a, b) => a.priority - b.priority || a.createdAt - b.createdAt);
  return sorted.filter((r) => expressionMatches(r.expression, recipient.toLowerCase(), headers));
}

function stripped(text: string): { text: string; signature: string } {
  const sigAt = text.indexOf('\n-- \n');
  const body = sigAt >= 0 ? text.slice(0, sigAt) : text;
  const signature = sigAt >= 0 ? text.slice(sigAt + 5).trim() : '';
  const lines = body.split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    if (/^On .+ wrote:$/.test(line.trim())) break;
    if (!line.startsWith('>')) kept.push(line);
  }
  return { text: kept.join('\n').trim(), signature };
}

function rawMime(mail: InboundMail): string {
  const head = Object.entries(mail.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return `${head}\r\nContent-Type: text/plain; charset="utf-8"\r\n\r\n${mail.text}\r\n`;
}

export interface ForwardResult {
  route: string;
  action: string;
  record: OutboundRecord | null;
  note?: string;
}

export async function deliverInbound(ctx: MpContext, mail: InboundMail): Promise<ForwardResult[]> {
  const results: ForwardResult[] = [];
  const recipient = bareAddress(mail.recipient) ?? mail.recipient;
  for (const route of matchRoutes(ctx, recipient, mail.headers)) {
    let stop = false;
    for (const action of route.actions) {
      const trimmed = action.trim();
      if (/^stop\(\s*\)$/.test(trimmed)) {
        stop = true;
        continue;
      }
      const [target] = stringArgs(trimmed);
      if (!trimmed.startsWith('forward(') || target === undefined || !/^https?:\/\//.test(target)) {
        results.push({ route: route.id, action: trimmed, record: null, note: 'action not simulated (only forward("http…") and stop())' });
        continue;
      }
      results.push({ route: route.id, action: trimmed, record: await forward(ctx, target, mail, recipient) });
    }
    if (stop) break;
  }
  return results;
}

async function forward(ctx: MpContext, url: string, mail: InboundMail, recipient: string): Promise<OutboundRecord> {
  const sig = signBody(ctx.state.webhookSigningKey, ctx.state.clock.now());
  const fields: Array<[string, string]> = [
    ['recipient', recipient],
    ['sender', mail.sender],
    ['from', mail.from],
    ['subject', mail.subject],
  ];
  if (url.endsWith('mime')) {
    fields.push(['body-mime', rawMime(mail)]);
  } else {
    const s = stripped(mail.text);
    fields.push(['body-plain', mail.text], ['stripped-text', s.text], ['stripped-signature', s.signature]);
    if (mail.html !== null) fields.push(['body-html', mail.html], ['stripped-html', mail.html]);
    fields.push(['attachment-count', String(mail.attachments.length)]);
    fields.push(['message-headers', JSON.stringify(Object.entries(mail.headers))]);
    fields.push(['content-id-map', '{}']);
  }
  for (const [k, v] of Object.entries(mail.headers)) if (['From', 'To', 'Subject', 'Date', 'Message-Id'].includes(k)) fields.push([k, v]);
  fields.push(['timestamp', sig.timestamp], ['token', sig.token], ['signature', sig.signature]);
  const base = { method: 'POST' as const, url, kind: 'inbound', timeoutMs: ctx.options.webhookTimeoutMs };
  if (mail.attachments.length > 0 && !url.endsWith('mime')) {
    const files = mail.attachments.map((a, i) => ({ ...a, field: `attachment-${i + 1}` }));
    const { body, contentType } = encodeMultipart(fields, files);
    return ctx.state.webhooks.send({ ...base, bodyBytes: body, headers: { 'content-type': contentType } });
  }
  return ctx.state.webhooks.send({ ...base, body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}
