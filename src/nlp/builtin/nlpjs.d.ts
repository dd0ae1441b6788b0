// Types of the parts of NLP.js the built-in engine uses: the packages ship none.

declare module '@nlpjs/core' {
  export interface Container {
    /** Registers a plugin (a class is instantiated, and its register(container) called). */
    use(plugin: unknown): unknown;
    register(name: string, value: unknown, isSingleton?: boolean): void;
  }
  /** A language package's class: registers its tokenizer, stemmer, stop words and sentiment. */
  export type LanguagePlugin = new () => { register(container: Container): void };
  export function containerBootstrap(): Container;
}

declare module '@nlpjs/nlp' {
  import type { Container } from '@nlpjs/core';

  export interface NlpSettings {
    languages?: string[];
    autoSave?: boolean;
    autoLoad?: boolean;
    forceNER?: boolean;
    threshold?: number;
    calculateSentiment?: boolean;
    nlu?: Record<string, unknown>;
  }

  export interface NlpClassification {
    intent: string;
    score: number;
  }

  /** The result of process(): its documented fields, and more the library adds. */
  export interface NlpProcessResult {
    locale?: string;
    utterance?: string;
    intent?: string;
    score?: number;
    classifications?: NlpClassification[];
    [field: string]: unknown;
  }

  export class Nlp {
    constructor(settings: NlpSettings, container: Container);
    addDocument(locale: string, utterance: string, intent: string): unknown;
    addNerRuleOptionTexts(locale: string, entity: string, option: string, texts: string[]): unknown;
    train(): Promise<unknown>;
    /** The model as JSON text (indented unless minified). */
    export(minified?: boolean): string;
    import(model: string | object): void;
    /** Guesses among the model's languages; undefined (or a language outside them) when it cannot tell. */
    guessLanguage(text: string): string | undefined;
    process(locale: string | undefined, utterance: string): Promise<NlpProcessResult>;
  }
}

declare module '@nlpjs/lang-ar' {
  export const LangAr: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-bn' {
  export const LangBn: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ca' {
  export const LangCa: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-cs' {
  export const LangCs: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-da' {
  export const LangDa: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-de' {
  export const LangDe: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-el' {
  export const LangEl: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-en' {
  export const LangEn: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-es' {
  export const LangEs: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-eu' {
  export const LangEu: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-fa' {
  export const LangFa: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-fi' {
  export const LangFi: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-fr' {
  export const LangFr: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ga' {
  export const LangGa: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-gl' {
  export const LangGl: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-hi' {
  export const LangHi: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-hu' {
  export const LangHu: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-hy' {
  export const LangHy: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-id' {
  export const LangId: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-it' {
  export const LangIt: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ja' {
  export const LangJa: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ko' {
  export const LangKo: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-lt' {
  export const LangLt: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ms' {
  export const LangMs: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ne' {
  export const LangNe: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-nl' {
  export const LangNl: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-no' {
  export const LangNo: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-pl' {
  export const LangPl: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-pt' {
  export const LangPt: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ro' {
  export const LangRo: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ru' {
  export const LangRu: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-sl' {
  export const LangSl: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-sr' {
  export const LangSr: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-sv' {
  export const LangSv: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-ta' {
  export const LangTa: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-th' {
  export const LangTh: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-tl' {
  export const LangTl: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-tr' {
  export const LangTr: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-uk' {
  export const LangUk: import('@nlpjs/core').LanguagePlugin;
}

declare module '@nlpjs/lang-zh' {
  export const LangZh: import('@nlpjs/core').LanguagePlugin;
  export class TokenizerZh {
    tokenize(text: string): string[];
  }
}
