import type { FastifyInstance } from 'fastify';
import { ConfigError, type Config } from '../config.js';

/** Why an address cannot be listened on, for the errors that are the configuration's to fix. */
const REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another process listens there)',
  EACCES: 'this process may not listen there (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'HOST is not an address of this machine',
  ENOTFOUND: 'HOST is not a name that resolves',
};

/** Listens on PORT and HOST; an address that cannot be used is a configuration error naming both. */
export async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const reason = REASONS[(error as NodeJS.ErrnoException).code ?? ''];
    if (reason === undefined) throw error;
    throw new ConfigError(`Invalid configuration: cannot listen on PORT=${config.port} HOST=${config.host}: ${reason}`);
  }
}
