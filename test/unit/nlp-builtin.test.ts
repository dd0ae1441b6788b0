import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NlpTrainingData } from '../../src/schemas/nlp.js';
import type { NlpEngine, NlpResult } from '../../src/nlp/engine.js';
import { BUILTIN_LANGUAGES, languagePlugin } from '../../src/nlp/builtin/languages.js';
import { trainModel } from '../../src/nlp/builtin/trainer.js';
import { loadBuiltinEngine } from '../../src/nlp/builtin/classifier.js';

const DATA: NlpTrainingData = {
  languages: ['en', 'es'],
  intents: [
    {
      id: 'greeting',
      utterances: {
        en: ['hello', 'hi there', 'good morning', 'hey, how are you', 'good evening', 'hello, nice to meet you', 'greetings', 'hi, is anybody there?'],
        es: ['hola', 'buenos días', 'buenas tardes', 'hola, ¿qué tal?', 'buenas noches', 'hola, encantado', 'saludos', 'hola, ¿hay alguien?'],
      },
    },
    {
      id: 'order_status',
      utterances: {
        en: [
          'where is my order',
          'track my package',
          'has my order shipped',
          'when will my parcel arrive',
          'order status please',
          'I want to know where my delivery is',
          'my package has not arrived',
          'is my order on the way',
        ],
        es: [
          'dónde está mi pedido',
          'rastrear mi paquete',
          'ya enviaron mi pedido',
          'cuándo llega mi paquete',
          'estado de mi pedido',
          'quiero saber dónde está mi envío',
          'mi paquete no ha llegado',
          'mi pedido está en camino',
        ],
      },
    },
  ],
  entities: [{ name: 'product', values: [{ value: 'shoes', synonyms: { en: ['shoes', 'sneakers'], es: ['zapatos', 'zapatillas'] } }] }],
};

/** Phrases that are not in the training data, with the intent and language they must get. */
const HELD_OUT: { text: string; intent: string; language: string }[] = [
  { text: 'hey there, good afternoon', intent: 'greeting', language: 'en' },
  { text: 'hi', intent: 'greeting', language: 'en' },
  { text: 'could you tell me where my package is?', intent: 'order_status', language: 'en' },
  { text: 'I want to track my order', intent: 'order_status', language: 'en' },
  { text: 'hola, buenos días a todos', intent: 'greeting', language: 'es' },
  { text: '¿dónde está mi paquete?', intent: 'order_status', language: 'es' },
  { text: 'quiero rastrear mi pedido', intent: 'order_status', language: 'es' },
];

const open = () => new AbortController().signal;

let modelPromise: Promise<string> | undefined;
/** One training (in a worker thread) shared by the tests that only read the model. */
const trained = () => (modelPromise ??= trainModel(DATA));

async function parsed(engine: NlpEngine, text: string): Promise<NlpResult> {
  const outcome = await engine.parse(text, open());
  assert.ok(outcome.ok, `parse of "${text}" failed: ${outcome.ok ? '' : outcome.message}`);
  return outcome.result;
}

test('every built-in language has a plugin the engine can load', async () => {
  assert.ok(BUILTIN_LANGUAGES.length >= 40);
  for (const code of ['en', 'es', 'de', 'fr', 'pt', 'ja', 'zh']) assert.ok(BUILTIN_LANGUAGES.includes(code), code);
  for (const code of BUILTIN_LANGUAGES) assert.equal(typeof (await languagePlugin(code)), 'function', code);
  await assert.rejects(languagePlugin('xx'), /no language "xx"/);
});

test('a model trained in a worker classifies phrases it was not trained on, in both languages', async () => {
  const engine = await loadBuiltinEngine(await trained());
  const trainedPhrases = new Set(DATA.intents.flatMap((i) => Object.values(i.utterances).flat()));
  for (const { text, intent, language } of HELD_OUT) {
    assert.ok(!trainedPhrases.has(text), `"${text}" is a training phrase`);
    const result = await parsed(engine, text);
    assert.equal(result.intents[0]?.id, intent, `"${text}": ${JSON.stringify(result.intents)}`);
    assert.equal(result.native_data.locale, language, `"${text}" read as ${String(result.native_data.locale)}`);
    const confidences = result.intents.map((i) => i.confidence);
    assert.deepEqual(
      confidences,
      [...confidences].sort((a, b) => b - a),
    );
    assert.ok(result.intents.every((i) => i.id !== 'None' && i.confidence >= 0 && i.confidence <= 1));
    assert.ok(result.intents.every((i) => i.id === 'greeting' || i.id === 'order_status'));
  }
});

test('native_data is the library result as JSON data, without its working state', async () => {
  const engine = await loadBuiltinEngine(await trained());
  const result = await parsed(engine, 'where are my sneakers?');
  const data = result.native_data;
  assert.deepEqual(JSON.parse(JSON.stringify(data)), data);
  for (const field of ['settings', 'nluAnswer', 'context']) assert.ok(!(field in data), field);
  assert.equal(data.utterance, 'where are my sneakers?');
  assert.equal(data.intent, 'order_status');
  assert.equal(data.locale, 'en');
  assert.ok(Array.isArray(data.classifications));
  assert.equal(typeof (data.sentiment as { score?: unknown }).score, 'number');
});

test('an entity value is found by its synonym in each language', async () => {
  const engine = await loadBuiltinEngine(await trained());
  for (const [text, synonym] of [
    ['when do my sneakers arrive?', 'sneakers'],
    ['¿cuándo llegan mis zapatillas?', 'zapatillas'],
  ] as const) {
    const entities = (await parsed(engine, text)).native_data.entities as { entity: string; option: string; sourceText: string }[];
    const found = entities.find((e) => e.entity === 'product');
    assert.ok(found, `no product in "${text}": ${JSON.stringify(entities)}`);
    assert.equal(found.option, 'shoes');
    assert.equal(found.sourceText, synonym);
  }
});

test('texts the language guesser cannot place fall back to the model languages and never fail', async () => {
  const engine = await loadBuiltinEngine(await trained());
  for (const text of ['привет, как дела', 'مرحبا كيف حالك', '你好', '😀😀', '12345', '   ', '']) {
    const outcome = await engine.parse(text, open());
    assert.ok(outcome.ok, `${text}: ${outcome.ok ? '' : outcome.message}`);
    assert.ok(outcome.result.intents.every((i) => i.id !== 'None'));
    if (text.trim() !== '') assert.ok(DATA.languages.includes(outcome.result.native_data.locale as string), text);
  }
});

test('an aborted signal is a timeout, before any work', async () => {
  const engine = await loadBuiltinEngine(await trained());
  const controller = new AbortController();
  controller.abort();
  const outcome = await engine.parse('hello', controller.signal);
  assert.equal(outcome.ok, false);
  assert.equal(!outcome.ok && outcome.reason, 'timeout');
});

test('a model loaded from its text in a fresh engine answers the same', async () => {
  const model = await trained();
  JSON.parse(model);
  const [first, second] = await Promise.all([loadBuiltinEngine(model), loadBuiltinEngine(model)]);
  for (const { text } of HELD_OUT) {
    const a = await parsed(first, text);
    const b = await parsed(second, text);
    assert.deepEqual(b.intents, a.intents, text);
    assert.deepEqual(b.native_data, a.native_data, text);
  }
});

test('a model that is not one fails to load', async () => {
  await assert.rejects(loadBuiltinEngine('not json'));
  await assert.rejects(loadBuiltinEngine(JSON.stringify({ settings: { languages: ['xx'] } })), /languages/);
});

test('training data the engine cannot train rejects with the reason', async () => {
  await assert.rejects(trainModel({ languages: ['en'], intents: [{ id: 'a', utterances: { fr: ['bonjour'] } }] }), /"fr", which is not one of the languages/);
  await assert.rejects(trainModel({ languages: ['xx'], intents: [{ id: 'a', utterances: { xx: ['hi'] } }] }), /no language "xx"/);
  await assert.rejects(trainModel({ languages: ['en'], intents: [{ id: 'None', utterances: { en: ['hi'] } }] }), /"None" is reserved/);
});

test('training runs beside the event loop, and one that takes too long is stopped', async () => {
  // Enough phrases for about a second of training in one thread.
  const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike'.split(' ');
  const big: NlpTrainingData = {
    languages: ['en'],
    intents: Array.from({ length: 20 }, (_, i) => ({
      id: `intent_${i}`,
      utterances: { en: Array.from({ length: 200 }, (_, j) => `${words[i % words.length]} ${words[j % words.length]} code${i}x${j}`) },
    })),
  };
  let last = performance.now();
  let longestGap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 5);
  try {
    const started = performance.now();
    const model = await trainModel(big);
    const took = performance.now() - started;
    longestGap = Math.max(longestGap, performance.now() - last);
    assert.ok(JSON.parse(model));
    // Blocked, the loop would stand still for the whole training; a busy machine may pause it a little.
    assert.ok(longestGap < took / 3, `the event loop stood still ${longestGap.toFixed(0)} ms of ${took.toFixed(0)} ms`);

    const stopping = performance.now();
    await assert.rejects(trainModel(big, { timeoutMs: 50 }), /longer than 50 ms and was stopped/);
    assert.ok(performance.now() - stopping < took, 'the timeout did not wait for the training to end');

    const controller = new AbortController();
    const cancelled = trainModel(big, { signal: controller.signal });
    controller.abort();
    await assert.rejects(cancelled, /cancelled/);
  } finally {
    clearInterval(ticker);
  }
});
