import type { Kysely } from 'kysely';

/** One step of the schema (index.ts lists them in order; each migration file imports only this). */
export interface Migration {
  name: string;
  up(db: Kysely<unknown>): Promise<void>;
}
