import { Agent, type Dispatcher } from 'undici';
import { AddressRefusedError, guardedConnector, literalRefusal } from '../../lib/address-guard.js';
import type { PlatformResult } from '../connector.js';

/**
 * The size of a file the platform must be told (a video's `file_size`): a HEAD request to the
 * client's URL, through the address guard of every call the service makes to a URL it was given
 * (checked after DNS, each redirect target checked again). The platform needs the host to answer
 * HEAD with a Content-Length; one that does not is a refusal the client can fix.
 */
const SETTING = 'MEDIA_ALLOWLIST';
const MAX_REDIRECTS = 3;

function failure(code: string, message: string, retryable = false): PlatformResult<never> {
  return { ok: false, retryable, code, message };
}

export class FileSizeReader {
  private readonly agent: Agent;

  constructor(
    private readonly allowlist: readonly string[],
    private readonly timeoutMs: number,
  ) {
    const connect = guardedConnector({ allowlist, setting: SETTING, rejectUnauthorized: true, timeoutMs });
    this.agent = new Agent({ connect, keepAliveTimeout: 4_000 });
  }

  async size(url: string): Promise<PlatformResult<number>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      let current = url;
      for (let hop = 0; ; hop++) {
        const target = new URL(current);
        if (target.protocol !== 'http:' && target.protocol !== 'https:') return failure('bad_url', 'The file URL is not an http or https URL.');
        const refused = literalRefusal(target, this.allowlist, SETTING);
        if (refused) return failure('address_refused', refused);
        let res: Dispatcher.ResponseData;
        try {
          res = await this.agent.request({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'HEAD', signal: controller.signal });
        } catch (error) {
          if (error instanceof AddressRefusedError) return failure('address_refused', error.message);
          return failure('unreachable', `The file's host could not be reached to read its size.`, true);
        }
        await res.body.dump().catch(() => undefined);
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
          if (hop >= MAX_REDIRECTS) return failure('too_many_redirects', `The file URL redirected more than ${MAX_REDIRECTS} times.`);
          current = new URL(location, target).toString();
          continue;
        }
        if (res.statusCode < 200 || res.statusCode >= 300) {
          return failure(
            String(res.statusCode),
            `Reading the file's size failed with HTTP ${res.statusCode}.`,
            res.statusCode >= 500 || res.statusCode === 429,
          );
        }
        const length = Number(res.headers['content-length']);
        if (!Number.isSafeInteger(length) || length <= 0)
          return failure('no_file_size', "The file's host does not answer HEAD with a Content-Length, which the platform needs.");
        return { ok: true, value: length };
      }
    } catch {
      return failure('bad_url', 'The file URL is not a valid URL.');
    } finally {
      clearTimeout(timer);
    }
  }
}
