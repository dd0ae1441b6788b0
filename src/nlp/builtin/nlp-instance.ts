import { containerBootstrap } from '@nlpjs/core';
import { Nlp } from '@nlpjs/nlp';
import { languagePlugin } from './languages.js';

/** The library's console logger, silenced: the service has its own log, and the library's notes are not for operators. */
const SILENT_LOGGER = { debug() {}, info() {}, warn() {}, error() {}, log() {}, trace() {}, fatal() {} };

/**
 * A fresh NLP.js instance in its own container with the given languages, as training and
 * classification both need it. Nothing is read from or written to files (autoLoad and autoSave
 * off), training prints no progress (`nlu.log`), and entities are looked for in every text
 * (`forceNER`), not only in texts of intents whose utterances name them.
 */
export async function createNlp(languages: readonly string[]): Promise<Nlp> {
  const plugins = await Promise.all(languages.map((code) => languagePlugin(code)));
  if (languages.includes('zh')) await prepareChinese();
  const container = containerBootstrap();
  container.register('logger', SILENT_LOGGER, true);
  for (const plugin of plugins) container.use(plugin);
  return new Nlp({ languages: [...languages], autoSave: false, autoLoad: false, forceNER: true, nlu: { log: false } }, container);
}

let chinesePrepared: Promise<void> | undefined;

/**
 * The Chinese tokenizer compiles its dictionary (about 1.5 s of CPU and 200 MB, once per thread) at
 * its first text and says so with console.log. Done here, it happens while a model is loaded rather
 * than within a message's time budget, and its note stays out of the service's output (the
 * compilation is synchronous, so nothing else runs while console.log is silenced).
 */
function prepareChinese(): Promise<void> {
  chinesePrepared ??= import('@nlpjs/lang-zh').then(({ TokenizerZh }) => {
    const log = console.log;
    console.log = () => undefined;
    try {
      new TokenizerZh().tokenize('中文');
    } finally {
      console.log = log;
    }
  });
  return chinesePrepared;
}
