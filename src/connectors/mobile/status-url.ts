import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChannelContext } from '../connector.js';

/**
 * A channel's status URL as given with each message (`reportUrl`): its inbound `status` URL with
 * a token in the query, `?report_token=<token>`. The token is an HMAC of the channel's id under
 * its signing key, so it is unguessable, needs nothing stored, and stays the same for every
 * message of the channel until its signing key changes.
 *
 * Why: the provider may send status reports unsigned (one production integration checks the JWT
 * on inbound messages only, and its status fixtures carry none). A report without a signature is
 * taken only on a URL with the channel's token; a signed one is checked by its JWT as before, so
 * reports to the account's default status URL (no token) still need their signature.
 */
export const REPORT_TOKEN_PARAM = 'report_token';

/** The channel's token, or null when it has no signing key to derive one from. */
export function reportToken(channel: Pick<ChannelContext, 'id' | 'secrets'>): string | null {
  const key = channel.secrets.signing_key;
  if (!key) return null;
  return createHmac('sha256', key).update(`status-url:${channel.id}`).digest('base64url').slice(0, 32);
}

/** The status URL with the channel's token (without one when the channel has no signing key). */
export function reportUrlOf(statusUrl: string, channel: Pick<ChannelContext, 'id' | 'secrets'>): string {
  const token = reportToken(channel);
  if (token === null) return statusUrl;
  return `${statusUrl}${statusUrl.includes('?') ? '&' : '?'}${REPORT_TOKEN_PARAM}=${token}`;
}

/** Whether a call's URL carries the channel's token (compared in constant time). */
export function hasReportToken(url: string, channel: Pick<ChannelContext, 'id' | 'secrets'>): boolean {
  const expected = reportToken(channel);
  if (expected === null) return false;
  const given = queryOf(url).get(REPORT_TOKEN_PARAM);
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The query of a URL exactly as called, its repeated fields kept in order. */
export function queryOf(url: string): URLSearchParams {
  const at = url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
}
