import { isIP } from 'node:net';
import { ApiError } from '../../lib/errors.js';
import { isBlockedAddress, isAllowlisted } from '../../lib/addresses.js';
import { portOf } from '../../lib/address-guard.js';

/**
 * Checks a webhook URL when it is set: http(s) only, no credentials in it, and no literal
 * private, loopback or link-local address unless the operator allowed it. Names are checked
 * again after DNS resolution at delivery time.
 */
export function checkWebhookUrl(url: string, allowlist: readonly string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw ApiError.invalid('webhook.url', url, `Property 'webhook.url' must be an absolute http or https URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw ApiError.invalid('webhook.url', url, `Property 'webhook.url' must be an absolute http or https URL.`);
  }
  if (parsed.username || parsed.password) {
    throw ApiError.invalid('webhook.url', url, `Property 'webhook.url' must not carry credentials.`);
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) !== 0 || host === 'localhost';
  if (literal && isBlockedAddress(host === 'localhost' ? '127.0.0.1' : host) && !isAllowlisted(host, allowlist, portOf(parsed))) {
    throw ApiError.invalid(
      'webhook.url',
      url,
      `Property 'webhook.url' points to a private or loopback address; an operator can allow it with WEBHOOK_ALLOWLIST.`,
    );
  }
  return parsed.toString();
}
