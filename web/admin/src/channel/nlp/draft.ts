// What the NLP forms edit, and the API input made from it. The forms keep text as typed (phrases
// one per line, entities as JSON text) and turn it into the API's shapes only when saving; local
// checks cover what the server cannot name a field for (JSON that does not parse).
import { NLP_FORM_LIMITS, type BuiltinInput, type ExternalInput, type NlpPatch, type NlpView, type TrainingEntity } from './types';

export interface IntentDraft {
  /** React's key: stable while intents are added and removed. */
  key: number;
  id: string;
  /** Phrases by language, one per line. Kept for a language removed meanwhile, sent only for chosen ones. */
  phrases: Record<string, string>;
}

export interface BuiltinDraft {
  languages: string[];
  intents: IntentDraft[];
  /** JSON text of the entities array; empty for none. */
  entities: string;
  /** Milliseconds as typed; empty for the server's default. */
  budget: string;
}

export interface ExternalDraft {
  url: string;
  /** What to do with the write-only token on save. */
  token: 'keep' | 'replace' | 'clear';
  newToken: string;
  budget: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };

let lastKey = 0;
export const nextKey = (): number => ++lastKey;

export const emptyIntent = (): IntentDraft => ({ key: nextKey(), id: '', phrases: {} });

export function builtinDraftOf(view: NlpView | null): BuiltinDraft {
  if (!view || view.kind !== 'builtin') return { languages: [], intents: [emptyIntent()], entities: '', budget: '' };
  const entities = view.entities ?? [];
  return {
    languages: [...(view.languages ?? [])],
    intents: (view.intents ?? []).map((intent) => ({
      key: nextKey(),
      id: intent.id,
      phrases: Object.fromEntries(Object.entries(intent.utterances).map(([lang, list]) => [lang, list.join('\n')])),
    })),
    entities: entities.length > 0 ? JSON.stringify(entities, null, 2) : '',
    budget: String(view.time_budget_ms),
  };
}

export function externalDraftOf(view: NlpView | null): ExternalDraft {
  if (!view || view.kind !== 'external') return { url: '', token: 'replace', newToken: '', budget: '' };
  return { url: view.url ?? '', token: 'keep', newToken: '', budget: String(view.time_budget_ms) };
}

/** One phrase a line; blank lines and surrounding spaces do not count. */
export function phrasesOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

const BUDGET_HINT = `Whole milliseconds from ${NLP_FORM_LIMITS.minBudgetMs} to ${NLP_FORM_LIMITS.maxBudgetMs}, or empty for the server's default.`;

/** undefined: empty (the default); null: not a budget. */
function budgetOf(text: string): number | undefined | null {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^[0-9]{1,6}$/.test(trimmed)) return null;
  const ms = Number(trimmed);
  return ms >= NLP_FORM_LIMITS.minBudgetMs && ms <= NLP_FORM_LIMITS.maxBudgetMs ? ms : null;
}

function entitiesOf(text: string): TrainingEntity[] | undefined | null {
  if (text.trim() === '') return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as TrainingEntity[]) : null;
  } catch {
    return null;
  }
}

export function builtinInputOf(draft: BuiltinDraft): Checked<BuiltinInput> {
  const errors: Record<string, string> = {};
  const budget = budgetOf(draft.budget);
  if (budget === null) errors.time_budget_ms = BUDGET_HINT;
  const entities = entitiesOf(draft.entities);
  if (entities === null) errors.entities = 'Must be a JSON array of entities (or empty for none).';
  if (budget === null || entities === null) return { ok: false, errors };
  const intents = draft.intents.map((intent) => {
    const utterances: Record<string, string[]> = {};
    for (const lang of draft.languages) {
      const list = phrasesOf(intent.phrases[lang]);
      if (list.length > 0) utterances[lang] = list;
    }
    return { id: intent.id.trim(), utterances };
  });
  const input: BuiltinInput = { kind: 'builtin', languages: [...draft.languages], intents };
  if (entities !== undefined) input.entities = entities;
  if (budget !== undefined) input.time_budget_ms = budget;
  return { ok: true, value: input };
}

/** Two drafts that would save the same thing. */
export function sameBuiltin(a: BuiltinDraft, b: BuiltinDraft): boolean {
  const norm = (d: BuiltinDraft) =>
    JSON.stringify([
      d.languages,
      d.intents.map((i) => [i.id.trim(), d.languages.map((lang) => phrasesOf(i.phrases[lang]))]),
      d.entities.trim(),
      d.budget.trim(),
    ]);
  return norm(a) === norm(b);
}

export function externalInputOf(draft: ExternalDraft): Checked<ExternalInput> {
  const budget = budgetOf(draft.budget);
  if (budget === null) return { ok: false, errors: { time_budget_ms: BUDGET_HINT } };
  const input: ExternalInput = { kind: 'external', url: draft.url.trim() };
  if (draft.newToken.trim() !== '') input.auth_token = draft.newToken.trim();
  if (budget !== undefined) input.time_budget_ms = budget;
  return { ok: true, value: input };
}

/** The changes of an external integration: only what differs from `view`. */
export function externalPatchOf(draft: ExternalDraft, view: NlpView): Checked<NlpPatch> {
  const errors: Record<string, string> = {};
  const budget = budgetOf(draft.budget);
  if (budget === null) errors.time_budget_ms = BUDGET_HINT;
  if (draft.token === 'replace' && draft.newToken.trim() === '') errors.auth_token = 'Enter the new token, or keep the current one.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const patch: NlpPatch = {};
  if (draft.url.trim() !== (view.url ?? '')) patch.url = draft.url.trim();
  if (budget === undefined) patch.time_budget_ms = null;
  else if (budget !== view.time_budget_ms) patch.time_budget_ms = budget;
  if (draft.token === 'replace') patch.auth_token = draft.newToken.trim();
  if (draft.token === 'clear') patch.auth_token = null;
  return { ok: true, value: patch };
}

export function sameExternal(a: ExternalDraft, b: ExternalDraft): boolean {
  return a.url.trim() === b.url.trim() && a.budget.trim() === b.budget.trim() && a.token === b.token && a.newToken === b.newToken;
}

/** The message of the error at `field` or below it (`field.x`, `field[0]`). */
export function errorUnder(errors: Record<string, string>, field: string): string | undefined {
  for (const [name, message] of Object.entries(errors)) {
    if (name === field || name.startsWith(`${field}.`) || name.startsWith(`${field}[`)) return message;
  }
  return undefined;
}

/** The messages of errors no shown field takes (none of `shown`, nor below one). */
export function errorsElsewhere(errors: Record<string, string>, shown: readonly string[]): string[] {
  return Object.entries(errors)
    .filter(([name]) => !shown.some((field) => errorUnder({ [name]: '' }, field) !== undefined))
    .map(([, message]) => message);
}
