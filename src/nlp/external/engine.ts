import type { Dispatcher } from 'undici';
import { AddressRefusedError } from '../../lib/address-guard.js';
import { byConfidence, failed, timedOut, type NlpEngine, type NlpIntent, type NlpOutcome } from '../engine.js';
import { literalRefusalOf } from './dispatcher.js';

export interface ExternalEngineOptions {
  /** The NLU server's base URL; calls go to `{url}/model/parse`. */
  url: string;
  /** Sent as the `token` query parameter (the server's token auth). */
  authToken?: string | null;
  /** nlpDispatcher(): the guarded connection pool. */
  dispatcher: Dispatcher;
}

/** A larger answer is not read: the whole answer becomes `native_data` of an event. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

interface Target {
  origin: string;
  path: string;
  /** Why the URL cannot be called at all. */
  refusal: string | null;
}

/**
 * An engine that asks the open-source NLU server's parse API: `POST {url}/model/parse` with
 * `{"text": ...}`. Its answer is `native_data`; its intent ranking, the intents.
 */
export function externalEngine(options: ExternalEngineOptions): NlpEngine {
  const target = targetOf(options.url, options.authToken ?? null, options.dispatcher);
  return { parse: (text, signal) => parse(options.dispatcher, target, text, signal) };
}

function targetOf(url: string, authToken: string | null, dispatcher: Dispatcher): Target {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { origin: '', path: '', refusal: 'The NLU server URL is not a valid URL.' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { origin: '', path: '', refusal: 'The NLU server URL is not an http or https URL.' };
  const base = parsed.pathname.replace(/\/+$/, '');
  const token = authToken ? `token=${encodeURIComponent(authToken)}` : '';
  const query = [parsed.search.replace(/^\?/, ''), token].filter((part) => part !== '').join('&');
  return { origin: parsed.origin, path: `${base}/model/parse${query ? `?${query}` : ''}`, refusal: literalRefusalOf(dispatcher, parsed) };
}

async function parse(dispatcher: Dispatcher, target: Target, text: string, signal: AbortSignal): Promise<NlpOutcome> {
  if (signal.aborted) return timedOut();
  if (target.refusal) return failed(target.refusal);
  try {
    const response = await dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ text }),
      signal,
    });
    if (response.statusCode < 200 || response.statusCode > 299) {
      // Read a little of it so the connection can be kept, then let it go.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return failed(`The NLU server answered HTTP ${response.statusCode}.`);
    }
    const body = await readLimited(response.body, MAX_ANSWER_BYTES);
    if (body === null) return failed(`The NLU server's answer is larger than ${MAX_ANSWER_BYTES} bytes.`);
    let answer: unknown;
    try {
      answer = JSON.parse(body);
    } catch {
      return failed('The NLU server answered something other than JSON.');
    }
    const intents = intentsOf(answer);
    if (!intents) return failed('The NLU server answered JSON of an unexpected shape (no intent or intent_ranking).');
    return { ok: true, result: { intents, native_data: answer as Record<string, unknown> } };
  } catch (error) {
    if (signal.aborted) return timedOut();
    if (error instanceof AddressRefusedError) return failed(error.message);
    return failed(`The NLU server could not be reached: ${describe(error)}`);
  }
}

/** The answer's text, or null when it is longer than `limit` bytes (the rest is not read). */
async function readLimited(body: Dispatcher.ResponseData['body'], limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * The intents of an answer: its intent ranking, else its one intent when it has a name; null when
 * the answer is not of the parse API's shape.
 */
function intentsOf(answer: unknown): NlpIntent[] | null {
  if (!isObject(answer)) return null;
  const ranking = answer.intent_ranking;
  if (ranking !== undefined && ranking !== null) {
    if (!Array.isArray(ranking)) return null;
    const intents: NlpIntent[] = [];
    for (const entry of ranking) {
      const intent = intentOf(entry);
      if (!intent) return null;
      intents.push(intent);
    }
    return byConfidence(intents);
  }
  const intent = answer.intent;
  if (intent === undefined) return null;
  if (intent === null) return [];
  if (!isObject(intent)) return null;
  // A server without an intent classifier answers an intent without a name.
  if (intent.name === null || intent.name === undefined) return [];
  const one = intentOf(intent);
  return one ? [one] : null;
}

function intentOf(value: unknown): NlpIntent | null {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.confidence !== 'number' || !Number.isFinite(value.confidence)) return null;
  return { id: value.name, confidence: Math.min(1, Math.max(0, value.confidence)) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const withCode = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = withCode.code ?? withCode.cause?.code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
