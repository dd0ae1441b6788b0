import type { Store } from '../../store/store.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { TargetLoader, WebhookTarget } from '../../delivery/worker.js';

const MAX_CACHED_SECRETS = 10_000;

/**
 * What the webhook worker sends to: each channel's current webhook, read at send time so that
 * a changed URL takes the pending deliveries with it. Decrypted secrets are remembered by their
 * encrypted form (one decryption per secret, not per call).
 */
export function webhookTargetLoader(store: Store, box: SecretBox): TargetLoader {
  const secrets = new Map<string, string>();
  const decrypt = (stored: string): string => {
    let plain = secrets.get(stored);
    if (plain === undefined) {
      if (secrets.size >= MAX_CACHED_SECRETS) secrets.clear();
      plain = box.decrypt(stored);
      secrets.set(stored, plain);
    }
    return plain;
  };
  return async (channelIds) => {
    const rows = await store.deliveries.webhookTargets(channelIds);
    const out = new Map<number, WebhookTarget>();
    for (const row of rows) {
      if (row.webhook_id === null || row.webhook_url === null || row.webhook_secret === null) continue;
      out.set(Number(row.id), {
        webhookId: Number(row.webhook_id),
        url: row.webhook_url,
        secret: decrypt(row.webhook_secret),
        sslVerification: row.webhook_ssl_verification === 1,
      });
    }
    return out;
  };
}
