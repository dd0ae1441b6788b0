import type { StandInBaseState } from '../shared/standin.js';

// The loaded model (intents with example sentences, entities with their values) and the auth token.

export interface NluIntent {
  name: string;
  examples: string[];
}

export interface NluEntity {
  entity: string;
  values: string[];
}

export interface NluModel {
  /** Hex id, as the server gives each trained model. */
  id: string;
  /** The model archive's file name shown by `GET /status`. */
  file: string;
  loadedAt: number;
  intents: NluIntent[];
  entities: NluEntity[];
}

export interface NluserverState extends StandInBaseState {
  /** null = no model loaded: parse and status answer 409. */
  model: NluModel | null;
  /** null = token auth off. */
  token: string | null;
}
