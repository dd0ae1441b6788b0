import { ConfigError, type Config } from '../config.js';
import type { SecretBox } from '../lib/crypto.js';
import type { Store } from '../store/store.js';

/** The service_meta row holding a known text encrypted with the installation's key. */
export const KEY_CHECK = 'encryption_key_check';
const CHECK_TEXT = 'parley encryption key check';

function readable(box: SecretBox, stored: string, expected?: string): boolean {
  try {
    const plain = box.decrypt(stored);
    return expected === undefined || plain === expected;
  } catch {
    return false;
  }
}

function refusal(config: Config): ConfigError {
  const source = config.encryptionKeyFile === null ? '' : ` (ENCRYPTION_KEY is not set, so the key was read from ${config.encryptionKeyFile})`;
  return new ConfigError(
    `Invalid configuration: ENCRYPTION_KEY cannot read the secrets stored in this database: it is not the key they were encrypted with${source}. ` +
      'Every instance on one database needs the same ENCRYPTION_KEY: give this one the key the others use',
  );
}

/**
 * Whether the configured key is the installation's: it must read the check value recorded at
 * the first start. An installation from before the check (no value yet) is accepted when the key
 * reads one of the secrets already stored, or when none are; `record` then writes the value, so
 * every later start is checked. Two first starts at once with different keys agree on the value
 * that was written first, and the other is refused.
 */
export async function checkEncryptionKey(store: Store, box: SecretBox, config: Config): Promise<{ record(now: number): Promise<void> }> {
  const stored = await store.serviceMeta.find(KEY_CHECK);
  if (stored !== null) {
    if (!readable(box, stored, CHECK_TEXT)) throw refusal(config);
    return { record: () => Promise.resolve() };
  }
  const samples = await store.serviceMeta.encryptedSamples();
  // Any one sample will do: an installation that ran with mixed keys must still be able to upgrade.
  if (samples.length > 0 && !samples.some((s) => readable(box, s))) throw refusal(config);
  return {
    async record(now) {
      const standing = await store.serviceMeta.record(KEY_CHECK, box.encrypt(CHECK_TEXT), now);
      if (!readable(box, standing, CHECK_TEXT)) throw refusal(config);
    },
  };
}
