import type { Nlp, NlpProcessResult } from '@nlpjs/nlp';
import { byConfidence, failed, timedOut, type NlpEngine, type NlpIntent, type NlpOutcome } from '../engine.js';
import { isBuiltinLanguage } from './languages.js';
import { FALLBACK_INTENT } from './model-training.js';
import { createNlp } from './nlp-instance.js';

/** Parts of the library's result that are its own working state, not data about the text. */
const INTERNAL_FIELDS = new Set(['settings', 'nluAnswer', 'context']);

/**
 * The library remembers what it worked out for every text and word it saw: the tokens of each text
 * (in its tokenizers and its classifiers, emptied an hour later) and the stem of each word (never
 * emptied). The classifier empties those stores after this many texts, so memory does not grow
 * with the number of distinct messages.
 */
const FORGET_AFTER_PARSES = 1000;

/**
 * An engine over a model made by trainModel. Rejects when the model cannot be read or names a
 * language the engine lacks.
 */
export async function loadBuiltinEngine(model: string): Promise<NlpEngine> {
  const parsed = JSON.parse(model) as { settings?: { languages?: unknown } };
  const languages = parsed.settings?.languages;
  if (!Array.isArray(languages) || languages.length === 0 || !languages.every((code) => typeof code === 'string' && isBuiltinLanguage(code)))
    throw new Error('The model does not name the languages of the built-in NLP engine it was trained with.');
  const nlp = await createNlp(languages as string[]);
  nlp.import(parsed);
  return new BuiltinEngine(nlp, languages as string[]);
}

class BuiltinEngine implements NlpEngine {
  private parses = 0;

  constructor(
    private readonly nlp: Nlp,
    private readonly languages: readonly string[],
  ) {}

  async parse(text: string, signal: AbortSignal): Promise<NlpOutcome> {
    if (signal.aborted) return timedOut();
    try {
      if (++this.parses % FORGET_AFTER_PARSES === 0) forgetTexts(this.nlp, this.languages);
      // The library reads an empty text as "no locale given" and would classify the locale code.
      if (text.trim() === '') return { ok: true, result: { intents: [], native_data: { utterance: text, classifications: [] } } };
      const output = await this.classify(text);
      return { ok: true, result: { intents: intentsOf(output), native_data: nativeData(output, this.languages.length > 1) } };
    } catch (error) {
      return failed(`The built-in NLP engine failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Classifies in the guessed language. The guess is trigram statistics, weak on a word or two:
   * when the guessed language finds no intent, the model's other languages are tried and the best
   * intent found wins (a text in another language shares few words with a language's training
   * phrases, so that language answers its fallback rather than a wrong intent).
   */
  private async classify(text: string): Promise<NlpProcessResult> {
    const guessed = this.guess(text);
    const first = await this.nlp.process(guessed, text);
    if (!isFallback(first)) return first;
    let best = first;
    for (const code of this.languages) {
      if (code === guessed) continue;
      const other = await this.nlp.process(code, text);
      if (!isFallback(other) && (isFallback(best) || (other.score ?? 0) > (best.score ?? 0))) best = other;
    }
    return best;
  }

  private guess(text: string): string {
    const first = this.languages[0] as string;
    if (this.languages.length === 1) return first;
    try {
      const guessed = this.nlp.guessLanguage(text);
      // The guesser may name a language outside the model (a script none of its languages use).
      if (guessed && this.languages.includes(guessed)) return guessed;
    } catch {
      // It throws on some scripts none of the model's languages use (Cyrillic among Latin ones).
    }
    return first;
  }
}

function isFallback(output: NlpProcessResult): boolean {
  return !output.intent || output.intent === FALLBACK_INTENT;
}

function intentsOf(output: NlpProcessResult): NlpIntent[] {
  const intents: NlpIntent[] = [];
  for (const c of output.classifications ?? []) {
    if (c.intent === FALLBACK_INTENT || !Number.isFinite(c.score)) continue;
    intents.push({ id: c.intent, confidence: Math.min(1, Math.max(0, c.score)) });
  }
  return byConfidence(intents);
}

/** The library's result as JSON data: its working state left out, undefined fields dropped. */
function nativeData(output: NlpProcessResult, guessed: boolean): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(output)) if (!INTERNAL_FIELDS.has(key)) data[key] = value;
  // The language was guessed here, before the library was called with it.
  data.languageGuessed = guessed;
  return JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
}

/** The library's internal stores that FORGET_AFTER_PARSES empties (missing ones are left alone). */
interface NlpInternals {
  container?: { get(name: string): unknown };
  nluManager?: { domainManagers?: Record<string, { domains?: Record<string, { cache?: unknown }> }> };
}

function forgetTexts(nlp: Nlp, languages: readonly string[]): void {
  const internals = nlp as unknown as NlpInternals;
  for (const manager of Object.values(internals.nluManager?.domainManagers ?? {})) {
    for (const nlu of Object.values(manager.domains ?? {})) nlu.cache = undefined;
  }
  for (const code of languages) {
    const tokenizer = internals.container?.get(`tokenizer-${code}`) as { cache?: unknown } | undefined;
    if (tokenizer && typeof tokenizer === 'object') tokenizer.cache = undefined;
    const stemmer = internals.container?.get(`stemmer-${code}`) as { cache?: unknown } | undefined;
    if (stemmer && typeof stemmer.cache === 'object') stemmer.cache = {};
  }
}
