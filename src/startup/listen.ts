import type { FastifyInstance } from 'fastify';
import { ConfigError, type Config } from '../config.js';

/** Why an address cannot be listened on, for the errors that are the configuration's to fix. */
const REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another process listens there)',
  EACCES: 'this process may not listen there (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'HOST is not an address of this machine',
  ENOTFOUND: 'HOST is not a name that resolves',
};

/**
 * Listens on `port` and `host`; an address that cannot be used is a configuration error naming
 * the settings it came from (PORT and HOST, or METRICS_PORT and METRICS_HOST). Answers the address.
 */
export async function listen(
  app: FastifyInstance,
  config: Pick<Config, 'port' | 'host'>,
  settings: { port: string; host: string } = { port: 'PORT', host: 'HOST' },
): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const reason = REASONS[(error as NodeJS.ErrnoException).code ?? ''];
    if (reason === undefined) throw error;
    throw new ConfigError(`Invalid configuration: cannot listen on ${settings.port}=${config.port} ${settings.host}=${config.host}: ${reason}`);
  }
}
