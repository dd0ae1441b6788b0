import type { LanguagePlugin } from '@nlpjs/core';

/**
 * The languages of the built-in engine: one NLP.js package per language, each imported only when a
 * model names it (a language package holds its stemmer, stop words and sentiment lexicon, several
 * megabytes for some, so loading all of them up front would cost every process memory it never uses).
 * The import paths are written out so that bundlers and the type checker see every one.
 */
const PLUGINS: Record<string, () => Promise<LanguagePlugin>> = {
  ar: () => import('@nlpjs/lang-ar').then((m) => m.LangAr),
  bn: () => import('@nlpjs/lang-bn').then((m) => m.LangBn),
  ca: () => import('@nlpjs/lang-ca').then((m) => m.LangCa),
  cs: () => import('@nlpjs/lang-cs').then((m) => m.LangCs),
  da: () => import('@nlpjs/lang-da').then((m) => m.LangDa),
  de: () => import('@nlpjs/lang-de').then((m) => m.LangDe),
  el: () => import('@nlpjs/lang-el').then((m) => m.LangEl),
  en: () => import('@nlpjs/lang-en').then((m) => m.LangEn),
  es: () => import('@nlpjs/lang-es').then((m) => m.LangEs),
  eu: () => import('@nlpjs/lang-eu').then((m) => m.LangEu),
  fa: () => import('@nlpjs/lang-fa').then((m) => m.LangFa),
  fi: () => import('@nlpjs/lang-fi').then((m) => m.LangFi),
  fr: () => import('@nlpjs/lang-fr').then((m) => m.LangFr),
  ga: () => import('@nlpjs/lang-ga').then((m) => m.LangGa),
  gl: () => import('@nlpjs/lang-gl').then((m) => m.LangGl),
  hi: () => import('@nlpjs/lang-hi').then((m) => m.LangHi),
  hu: () => import('@nlpjs/lang-hu').then((m) => m.LangHu),
  hy: () => import('@nlpjs/lang-hy').then((m) => m.LangHy),
  id: () => import('@nlpjs/lang-id').then((m) => m.LangId),
  it: () => import('@nlpjs/lang-it').then((m) => m.LangIt),
  ja: () => import('@nlpjs/lang-ja').then((m) => m.LangJa),
  ko: () => import('@nlpjs/lang-ko').then((m) => m.LangKo),
  lt: () => import('@nlpjs/lang-lt').then((m) => m.LangLt),
  ms: () => import('@nlpjs/lang-ms').then((m) => m.LangMs),
  ne: () => import('@nlpjs/lang-ne').then((m) => m.LangNe),
  nl: () => import('@nlpjs/lang-nl').then((m) => m.LangNl),
  no: () => import('@nlpjs/lang-no').then((m) => m.LangNo),
  pl: () => import('@nlpjs/lang-pl').then((m) => m.LangPl),
  pt: () => import('@nlpjs/lang-pt').then((m) => m.LangPt),
  ro: () => import('@nlpjs/lang-ro').then((m) => m.LangRo),
  ru: () => import('@nlpjs/lang-ru').then((m) => m.LangRu),
  sl: () => import('@nlpjs/lang-sl').then((m) => m.LangSl),
  sr: () => import('@nlpjs/lang-sr').then((m) => m.LangSr),
  sv: () => import('@nlpjs/lang-sv').then((m) => m.LangSv),
  ta: () => import('@nlpjs/lang-ta').then((m) => m.LangTa),
  th: () => import('@nlpjs/lang-th').then((m) => m.LangTh),
  tl: () => import('@nlpjs/lang-tl').then((m) => m.LangTl),
  tr: () => import('@nlpjs/lang-tr').then((m) => m.LangTr),
  uk: () => import('@nlpjs/lang-uk').then((m) => m.LangUk),
  zh: () => import('@nlpjs/lang-zh').then((m) => m.LangZh),
};

/** ISO 639-1 codes of every language the built-in engine can train and classify. */
export const BUILTIN_LANGUAGES: readonly string[] = Object.freeze(Object.keys(PLUGINS));

export function isBuiltinLanguage(code: string): boolean {
  return Object.hasOwn(PLUGINS, code);
}

/** The language's plugin class; throws for a code outside BUILTIN_LANGUAGES. */
export async function languagePlugin(code: string): Promise<LanguagePlugin> {
  const load = isBuiltinLanguage(code) ? PLUGINS[code] : undefined;
  if (!load) throw new Error(`The built-in NLP engine has no language "${code}".`);
  return load();
}
