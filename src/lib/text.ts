/** Characters as people count them: a surrogate pair is one. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}
