import type { Config } from '../config.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { IdGenerator } from '../lib/ids.js';
import { SecretBox } from '../lib/crypto.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { Outbox } from '../domain/events/outbox.js';
import { createSignals, type DomainSignals } from '../domain/signals.js';

/** What every wiring function may use: the settings, the process's clock, log, store, ids and signals. */
export interface Base {
  config: Config;
  logger: Logger;
  clock: Clock;
  store: Store;
  ids: IdGenerator;
  /** Encrypts the stored credentials (ENCRYPTION_KEY). */
  box: SecretBox;
  /** The process's one signal object (domain/signals.ts), made before anything that emits or listens. */
  signals: DomainSignals;
  /** Events written in the transaction of the change they report; `wake` signals `webhooksDue`. */
  outbox: Outbox;
}

/** Opens the store and brings its schema up to date; a store that cannot migrate is closed again. */
export async function openMigratedStore(config: Config, logger?: Logger): Promise<Store> {
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize, ...(logger ? { logger: logger.child({ component: 'store' }) } : {}) });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** Ids are issued only under an instance number this process holds (store.idInstance throws otherwise). */
export function idsOf(store: Store, clock: Clock): IdGenerator {
  return new IdGenerator(
    () => store.idInstance(),
    () => clock.now(),
  );
}

/** The base of a running service: the signal object first, then the migrated store and what rests on it. */
export async function openBase(config: Config, options: { logger?: Logger; clock?: Clock }): Promise<Base> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const signals = createSignals((err, name) => logger.warn({ err, signal: name }, 'a signal listener failed'));
  const store = await openMigratedStore(config, logger);
  const ids = idsOf(store, clock);
  return { config, logger, clock, store, ids, box: SecretBox.fromBase64(config.encryptionKey), signals, outbox: new Outbox(ids, clock, signals) };
}
