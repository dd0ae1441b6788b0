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
  /** Every header in order, repeated ones included (posted as `message-headers`). */
  headerList: Array<[string, string]>;
  attachments: MultipartFile[];
}

/**
 * Python-style named groups (?P<name>…) → JavaScript (?<name>…); case-insensitive, and like the
 * provider's a search anywhere in the value (`.*support` matches a subject containing it): anchor
 * with ^ and $ to match a whole address.
 */
function regex(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern.replace(/\(\?P</g, '(?<'), 'i');
  } catch {
    return null;
  }
}

/** What an expression captured, for forward() URLs: `\1` by number, `\g<name>` by name. */
export interface Captures {
  numbered: string[];
  named: Record<string, string>;
}

function stringArgs(call: string): string[] {
  return [...call.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1] ?? m[2] ?? '');
}

function captured(m: RegExpExecArray | null): Captures | null {
  if (!m) return null;
  const named: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.groups ?? {})) named[k] = v ?? '';
  return { numbered: m.map((v) => v ?? ''), named };
}

/** The captures of a matching expression, or null; catch_all() is handled by matchRoutes. */
export function expressionCaptures(expression: string, recipient: string, headers: Record<string, string>): Captures | null {
  const expr = expression.trim();
  if (expr.startsWith('match_recipient(')) {
    const [pattern] = stringArgs(expr);
    return pattern === undefined ? null : captured(regex(pattern)?.exec(recipient) ?? null);
  }
  if (expr.startsWith('match_header(')) {
    const [name, pattern] = stringArgs(expr);
    if (name === undefined || pattern === undefined) return null;
    const value = Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    return value === undefined ? null : captured(regex(pattern)?.exec(value) ?? null);
  }
  return null;
}

export interface MatchedRoute {
  route: MpRoute;
  captures: Captures;
}

/** Routes by priority; catch_all() matches only when no route before it matched. */
export function matchRoutes(ctx: MpContext, recipient: string, headers: Record<string, string>): MatchedRoute[] {
  const sorted = [...ctx.state.routes].sort((a, b) => a.priority - b.priority || a.createdAt - b.createdAt);
  const matched: MatchedRoute[] = [];
  for (const route of sorted) {
    if (/^catch_all\(\s*\)$/.test(route.expression.trim())) {
      if (matched.length === 0) matched.push({ route, captures: { numbered: [], named: {} } });
      continue;
    }
    const captures = expressionCaptures(route.expression, recipient.toLowerCase(), headers);
    if (captures) matched.push({ route, captures });
  }
  return matched;
}

/** A forward() URL with the expression's captures put in (`\1`, `\g<name>`). */
export function substituteCaptures(url: string, captures: Captures): string {
  return url.replace(/\\g<([A-Za-z_][A-Za-z0-9_]*)>|\\(\d)/g, (_all, name: string | undefined, n: string | undefined) =>
    name !== undefined ? encodeURIComponent(captures.named[name] ?? '') : encodeURIComponent(captures.numbered[Number(n)] ?? ''),
  );
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
  for (const { route, captures } of matchRoutes(ctx, recipient, mail.headers)) {
    let stop = false;
    for (const action of route.actions) {
      const trimmed = action.trim();
      if (/^stop\(\s*\)$/.test(trimmed)) {
        stop = true;
        continue;
      }
      const [raw] = stringArgs(trimmed);
      const target = raw === undefined ? undefined : substituteCaptures(raw, captures);
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
    fields.push(['message-headers', JSON.stringify(mail.headerList)]);
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
