import { randomHex } from '../shared/ids.js';
import { asArray, isRecord, type JsonRecord } from '../shared/values.js';
import type { NluEntity, NluIntent, NluModel } from './state.js';

// A model as the control API (and the factory's `model` option) takes it, checked into what the
// classifier uses. Training is instant: the model is its examples.

export interface ModelInput {
  /** Part of the archive's file name (default "sandbox"). */
  name?: string;
  intents: { name: string; examples: string[] }[];
  entities?: { entity: string; values: string[] }[];
}

const MAX_INTENTS = 500;
const MAX_ITEMS = 5000;

function strings(value: unknown, what: string): string[] | string {
  const list = asArray(value);
  if (!list || list.length > MAX_ITEMS || !list.every((v) => typeof v === 'string')) return `${what} must be an array of strings`;
  return list as string[];
}

/** The checked model, or why the input is refused. */
export function buildModel(input: unknown, now: number): NluModel | string {
  if (!isRecord(input)) return 'the model must be a JSON object';
  const rawIntents = asArray(input.intents);
  if (!rawIntents || rawIntents.length === 0 || rawIntents.length > MAX_INTENTS) return `intents must be an array of 1..${MAX_INTENTS} intents`;
  const intents: NluIntent[] = [];
  for (const [i, raw] of rawIntents.entries()) {
    const r: JsonRecord = isRecord(raw) ? raw : {};
    if (typeof r.name !== 'string' || r.name.trim() === '') return `intents[${i}].name must be a non-empty string`;
    if (intents.some((x) => x.name === r.name)) return `intents[${i}].name repeats ${r.name}`;
    const examples = strings(r.examples ?? [], `intents[${i}].examples`);
    if (typeof examples === 'string') return examples;
    intents.push({ name: r.name, examples });
  }
  const entities: NluEntity[] = [];
  const rawEntities = input.entities === undefined ? [] : asArray(input.entities);
  if (!rawEntities) return 'entities must be an array';
  for (const [i, raw] of rawEntities.entries()) {
    const r: JsonRecord = isRecord(raw) ? raw : {};
    if (typeof r.entity !== 'string' || r.entity.trim() === '') return `entities[${i}].entity must be a non-empty string`;
    const values = strings(r.values, `entities[${i}].values`);
    if (typeof values === 'string') return values;
    if (values.some((v) => v.trim() === '')) return `entities[${i}].values must not hold empty strings`;
    entities.push({ entity: r.entity, values });
  }
  if (input.name !== undefined && (typeof input.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(input.name))) {
    return 'name must be 1..64 letters, digits, _ or -';
  }
  const name = typeof input.name === 'string' ? input.name : 'sandbox';
  return { id: randomHex(16), file: `${archiveStamp(now)}-${name}.tar.gz`, loadedAt: now, intents, entities };
}

/** `YYYYMMDD-hhmmss` (UTC), the prefix of the server's model archive names. */
function archiveStamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

export function modelView(model: NluModel | null): JsonRecord | null {
  if (model === null) return null;
  return {
    model_id: model.id,
    model_file: model.file,
    loaded_at: new Date(model.loadedAt).toISOString(),
    intents: model.intents,
    entities: model.entities,
  };
}
