import { ConfigError, type Config } from '../config.js';
import { isSqliteUrl } from '../store/database-url.js';

/**
 * PUBLIC_URL's default is built from this process's own PORT: right for the one process of a
 * SQLite install, wrong for a worker (it listens on no port, yet builds the platforms' callback
 * URLs and stored-file links) and for any instance on PostgreSQL (several processes, behind one
 * address). There it must be set, or the callbacks go to an address nobody answers.
 */
export function checkPublicUrl(config: Config): void {
  if (config.publicUrlSet) return;
  const why =
    config.role === 'worker'
      ? 'a worker (ROLE=worker) listens on no port, yet builds the platforms\u2019 callback URLs and stored-file links from it'
      : isSqliteUrl(config.databaseUrl)
        ? null
        : 'on PostgreSQL several instances serve one address, and the callback URLs, links and Location headers each builds must name it';
  if (why === null) return;
  throw new ConfigError(
    `Invalid configuration: PUBLIC_URL is not set; ${why}. Set PUBLIC_URL to the API's public address ending in /v1 (e.g. https://parley.example.com/v1), the same on every instance`,
  );
}
