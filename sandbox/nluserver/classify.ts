import type { NluModel } from './state.js';

// The parse result: a deterministic bag-of-words classifier standing in for the server's trained
// pipeline. Each intent scores the best word overlap (Jaccard) of the text with one of its
// examples; a softmax turns the scores into confidences summing to 1. Entities are the model's
// values found in the text as whole words, case-insensitively. Offsets count code points, as the
// server (Python strings) does.

/** How sharply the softmax separates scores: a full match over no match is e^SHARPNESS. */
const SHARPNESS = 10;
/** What the server names the regex-based extractor in `entities[].extractor`. */
export const EXTRACTOR = 'RegexEntityExtractor';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

interface Span {
  start: number;
  end: number;
  word: string;
}

function words(text: string): Span[] {
  return [...text.matchAll(WORD)].map((m) => ({ start: m.index, end: m.index + m[0].length, word: m[0].toLowerCase() }));
}

function wordSet(text: string): Set<string> {
  return new Set(words(text).map((w) => w.word));
}

function overlap(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** Code point index of a UTF-16 index of `text` (always at a code point boundary here). */
function codePoints(text: string, index: number): number {
  return [...text.slice(0, index)].length;
}

export interface RankedIntent {
  name: string;
  confidence: number;
}

/** Every intent with its confidence, highest first (ties in the model's order). */
export function rankIntents(model: NluModel, text: string): RankedIntent[] {
  const query = wordSet(text);
  const scores = model.intents.map((intent) => Math.max(0, ...intent.examples.map((e) => overlap(query, wordSet(e)))));
  const top = Math.max(...scores);
  const weights = scores.map((s) => Math.exp(SHARPNESS * (s - top)));
  const total = weights.reduce((a, b) => a + b, 0);
  return model.intents
    .map((intent, i) => ({ name: intent.name, confidence: (weights[i] ?? 0) / total, order: i }))
    .sort((a, b) => b.confidence - a.confidence || a.order - b.order)
    .map(({ name, confidence }) => ({ name, confidence }));
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface FoundEntity {
  entity: string;
  start: number;
  end: number;
  confidence_entity: number;
  value: string;
  extractor: string;
}

/** Every occurrence of an entity value as whole words, by position (longer first at one start). */
export function findEntities(model: NluModel, text: string): FoundEntity[] {
  const found: FoundEntity[] = [];
  const seen = new Set<string>();
  for (const { entity, values } of model.entities) {
    for (const value of values) {
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(value.trim())}(?![\\p{L}\\p{N}])`, 'giu');
      for (const m of text.matchAll(pattern)) {
        const start = codePoints(text, m.index);
        const end = start + [...m[0]].length;
        const key = `${entity}\u0000${start}\u0000${end}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push({ entity, start, end, confidence_entity: 1, value: m[0], extractor: EXTRACTOR });
      }
    }
  }
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** The body of `POST /model/parse` for one text. */
export function parseText(model: NluModel, rawText: string, rankingLength: number): Record<string, unknown> {
  // The server strips the message before parsing it.
  const text = rawText.trim();
  if (text === '') return { text, intent: { name: null, confidence: 0 }, entities: [], text_tokens: [], intent_ranking: [] };
  const ranking = rankIntents(model, text).slice(0, rankingLength);
  return {
    text,
    intent: ranking[0],
    entities: findEntities(model, text),
    text_tokens: words(text).map((w) => [codePoints(text, w.start), codePoints(text, w.end)]),
    intent_ranking: ranking,
  };
}
