/**
 * The ISO 639-1 codes the language picker offers. The built-in engine supports only some of them;
 * the server names the ones it refuses (422 at `languages[i]`), so this list never has to follow
 * the engine's.
 */
const ISO_639_1 = (
  'aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu ' +
  'fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ' +
  'ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os ' +
  'pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ' +
  'ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
).split(' ');

let names: Intl.DisplayNames | null | undefined;

/** The language's name in the browser's language, with its code: "Spanish (es)". */
export function languageLabel(code: string): string {
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames(undefined, { type: 'language' });
    } catch {
      names = null;
    }
  }
  const name = names?.of(code);
  return name && name !== code ? `${name} (${code})` : code;
}

export interface LanguageOption {
  code: string;
  label: string;
}

/** Every code with its label, by label. */
export function languageOptions(): LanguageOption[] {
  return ISO_639_1.map((code) => ({ code, label: languageLabel(code) })).sort((a, b) => a.label.localeCompare(b.label));
}
