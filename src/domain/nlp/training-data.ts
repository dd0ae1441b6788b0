import { ApiError } from '../../lib/errors.js';
import { NLP_LIMITS, type NlpTrainingData } from '../../schemas/nlp.js';

const RESERVED_INTENT = 'None';

/**
 * The rules of a built-in integration's training data that a schema cannot say: every language is
 * one the engine has, every phrase is in one of the integration's languages, ids are unique, and
 * each language has something to learn from. Returns the data in a canonical form (phrases
 * trimmed, duplicates dropped), so retraining depends on the data alone.
 */
export function checkTrainingData(data: NlpTrainingData, supported: readonly string[]): NlpTrainingData {
  data.languages.forEach((language, i) => {
    if (!supported.includes(language))
      throw ApiError.invalid(
        `languages[${i}]`,
        language,
        `Language '${language}' is not supported by the built-in engine. Supported: ${supported.join(', ')}.`,
      );
  });
  const languages = new Set(data.languages);
  const seenIntents = new Set<string>();
  const perLanguage = new Map<string, number>();
  let total = 0;
  const intents = data.intents.map((intent, i) => {
    // The engine answers this name when nothing matched.
    if (intent.id === RESERVED_INTENT)
      throw ApiError.invalid(`intents[${i}].id`, intent.id, `Intent '${RESERVED_INTENT}' is reserved: the engine answers it when no intent matches.`);
    if (seenIntents.has(intent.id)) throw ApiError.invalid(`intents[${i}].id`, intent.id, `Intent '${intent.id}' is given twice.`);
    seenIntents.add(intent.id);
    const utterances: Record<string, string[]> = {};
    for (const [language, phrases] of Object.entries(intent.utterances)) {
      if (!languages.has(language))
        throw ApiError.invalid(`intents[${i}].utterances.${language}`, language, `Language '${language}' is not one of the integration's languages.`);
      const unique = [...new Set(phrases.map((p) => p.trim()))];
      utterances[language] = unique;
      total += unique.length;
      perLanguage.set(language, (perLanguage.get(language) ?? 0) + unique.length);
    }
    if (Object.keys(utterances).length === 0)
      throw ApiError.invalid(`intents[${i}].utterances`, intent.utterances, `Intent '${intent.id}' has no example phrase.`);
    return { id: intent.id, utterances };
  });
  if (total > NLP_LIMITS.utterancesTotal)
    throw ApiError.invalid('intents', total, `The intents have ${total} example phrases in all; at most ${NLP_LIMITS.utterancesTotal} are allowed.`);
  data.languages.forEach((language, i) => {
    if (!perLanguage.has(language)) throw ApiError.invalid(`languages[${i}]`, language, `No intent has an example phrase in '${language}'.`);
  });
  const seenEntities = new Set<string>();
  const entities = (data.entities ?? []).map((entity, i) => {
    if (seenEntities.has(entity.name)) throw ApiError.invalid(`entities[${i}].name`, entity.name, `Entity '${entity.name}' is given twice.`);
    seenEntities.add(entity.name);
    const values = entity.values.map((value, j) => {
      const synonyms: Record<string, string[]> = {};
      for (const [language, texts] of Object.entries(value.synonyms)) {
        if (!languages.has(language))
          throw ApiError.invalid(
            `entities[${i}].values[${j}].synonyms.${language}`,
            language,
            `Language '${language}' is not one of the integration's languages.`,
          );
        synonyms[language] = [...new Set(texts.map((t) => t.trim()))];
      }
      if (Object.keys(synonyms).length === 0)
        throw ApiError.invalid(`entities[${i}].values[${j}].synonyms`, value.synonyms, `Value '${value.value}' has no text that names it.`);
      return { value: value.value.trim(), synonyms };
    });
    return { name: entity.name, values };
  });
  return { languages: data.languages, intents, entities };
}
