import type { NlpTrainingData } from '../../schemas/nlp.js';
import { isBuiltinLanguage } from './languages.js';
import { createNlp } from './nlp-instance.js';

/** The intent NLP.js answers when nothing matches; an intent of that name could not be told apart. */
export const FALLBACK_INTENT = 'None';

/**
 * Trains a model in the calling thread and returns it serialised (JSON text). This blocks the
 * event loop for as long as training takes: the service calls trainModel (trainer.ts), which runs
 * this in a worker thread.
 */
export async function trainInThread(data: NlpTrainingData): Promise<string> {
  const languages = data.languages;
  if (languages.length === 0) throw new Error('The training data names no language.');
  for (const code of languages) if (!isBuiltinLanguage(code)) throw new Error(`The built-in NLP engine has no language "${code}".`);
  const known = new Set(languages);
  const checkLanguage = (code: string, what: string) => {
    if (!known.has(code)) throw new Error(`${what} has phrases in "${code}", which is not one of the languages (${languages.join(', ')}).`);
  };

  const nlp = await createNlp(languages);
  for (const intent of data.intents) {
    if (intent.id === FALLBACK_INTENT) throw new Error(`The intent name "${FALLBACK_INTENT}" is reserved: it is the engine's answer when no intent matches.`);
    for (const [code, utterances] of Object.entries(intent.utterances)) {
      checkLanguage(code, `The intent "${intent.id}"`);
      for (const utterance of utterances) nlp.addDocument(code, utterance, intent.id);
    }
  }
  for (const entity of data.entities ?? []) {
    for (const value of entity.values) {
      for (const [code, synonyms] of Object.entries(value.synonyms)) {
        checkLanguage(code, `The value "${value.value}" of the entity "${entity.name}"`);
        nlp.addNerRuleOptionTexts(code, entity.name, value.value, synonyms);
      }
    }
  }
  await nlp.train();
  // Compact: the model is kept in the store and read by every instance.
  return nlp.export(true);
}
