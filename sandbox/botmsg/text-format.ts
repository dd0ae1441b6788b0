import { badRequest, type BotError } from './errors.js';

// parse_mode handling: turns HTML / MarkdownV2 / Markdown into plain text plus entities (offsets in
// UTF-16 code units) and fails with the platform's "can't parse entities" errors on bad markup, so
// connectors that forget to escape find out here.

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export interface FormattedText {
  text: string;
  entities: MessageEntity[];
}

const parseError = (what: string): BotError => badRequest(`can't parse entities: ${what}`);
const byteOffset = (input: string, index: number): number => Buffer.byteLength(input.slice(0, index), 'utf8');

const HTML_TAGS: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  span: 'spoiler',
  a: 'text_link',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
};

function decodeHtmlEntity(name: string): string | undefined {
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };
  if (named[name] !== undefined) return named[name];
  const m = /^#(x[0-9a-f]+|\d+)$/i.exec(name);
  if (!m?.[1]) return undefined;
  const code = m[1].startsWith('x') || m[1].startsWith('X') ? parseInt(m[1].slice(1), 16) : parseInt(m[1], 10);
  return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

function parseHtml(input: string): FormattedText {
  let out = '';
  const entities: MessageEntity[] = [];
  const stack: Array<{ tag: string; start: number; url?: string }> = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] ?? '';
    if (ch === '&') {
      const end = input.indexOf(';', i);
      const decoded = end > i && end - i < 12 ? decodeHtmlEntity(input.slice(i + 1, end)) : undefined;
      if (decoded !== undefined) {
        out += decoded;
        i = end + 1;
        continue;
      }
      out += ch;
      i++;
      continue;
    }
    if (ch !== '<') {
      out += ch;
      i++;
      continue;
    }
    const close = input.indexOf('>', i);
    if (close < 0) throw parseError(`Unclosed start tag at byte offset ${byteOffset(input, i)}`);
    const raw = input.slice(i + 1, close);
    if (raw.startsWith('/')) {
      const name = raw.slice(1).trim().toLowerCase();
      const top = stack.pop();
      if (!top || top.tag !== name) {
        throw parseError(`Unmatched end tag at byte offset ${byteOffset(input, i)}, expected "</${top?.tag ?? ''}>", found "</${name}>"`);
      }
      const type = HTML_TAGS[name] ?? 'bold';
      if (out.length > top.start) {
        const entity: MessageEntity = { type, offset: top.start, length: out.length - top.start };
        if (top.url !== undefined) entity.url = top.url;
        entities.push(entity);
      }
    } else {
      const m = /^([a-z-]+)(\s+.*)?$/is.exec(raw);
      const name = m?.[1]?.toLowerCase() ?? '';
      if (!m || HTML_TAGS[name] === undefined) {
        throw parseError(`Unsupported start tag "${name || raw.slice(0, 10)}" at byte offset ${byteOffset(input, i)}`);
      }
      const entry: { tag: string; start: number; url?: string } = { tag: name, start: out.length };
      if (name === 'a') {
        const href = /href\s*=\s*"([^"]*)"|href\s*=\s*'([^']*)'/i.exec(m[2] ?? '');
        entry.url = href?.[1] ?? href?.[2] ?? '';
      }
      stack.push(entry);
    }
    i = close + 1;
  }
  const open = stack.pop();
  if (open) throw parseError(`Can't find end tag corresponding to start tag "${open.tag}"`);
  return { text: out, entities: entities.sort((a, b) => a.offset - b.offset) };
}

const V2_RESERVED = new Set(['_', '*', '[', ']', '(', ')', '~', '`', '>', '#', '+', '-', '=', '|', '{', '}', '.', '!']);

function parseMarkdown(input: string, v2: boolean): FormattedText {
  let out = '';
  const entities: MessageEntity[] = [];
  const stack: Array<{ type: string; start: number; at: number }> = [];
  const toggle = (type: string, at: number): void => {
    const idx = stack.findIndex((e) => e.type === type);
    if (idx >= 0) {
      const [open] = stack.splice(idx, 1);
      if (open && out.length > open.start) entities.push({ type, offset: open.start, length: out.length - open.start });
    } else {
      stack.push({ type, start: out.length, at });
    }
  };
  let i = 0;
  while (i < input.length) {
    const ch = input[i] ?? '';
    const next = input[i + 1] ?? '';
    if (ch === '\\' && (v2 || '_*`['.includes(next)) && next !== '') {
      out += next;
      i += 2;
      continue;
    }
    if (ch === '`') {
      const isPre = input.startsWith('```', i);
      const marker = isPre ? '```' : '`';
      let j = i + marker.length;
      let content = '';
      let closed = false;
      while (j < input.length) {
        if (v2 && input[j] === '\\' && j + 1 < input.length) {
          content += input[j + 1];
          j += 2;
          continue;
        }
        if (input.startsWith(marker, j)) {
          closed = true;
          break;
        }
        content += input[j];
        j++;
      }
      if (!closed) throw parseError(`Can't find end of the entity starting at byte offset ${byteOffset(input, i)}`);
      const entity: MessageEntity = { type: isPre ? 'pre' : 'code', offset: out.length, length: 0 };
      if (isPre) {
        const nl = content.indexOf('\n');
        const first = nl >= 0 ? content.slice(0, nl) : '';
        if (nl >= 0 && first !== '' && !/\s/.test(first)) {
          entity.language = first;
          content = content.slice(nl + 1);
        }
      }
      out += content;
      entity.length = content.length;
      if (entity.length > 0) entities.push(entity);
      i = j + marker.length;
      continue;
    }
    if (ch === '*') {
      toggle('bold', i);
      i++;
      continue;
    }
    if (ch === '_') {
      if (v2 && next === '_') {
        toggle('underline', i);
        i += 2;
      } else {
        toggle('italic', i);
        i++;
      }
      continue;
    }
    if (v2 && ch === '~') {
      toggle('strikethrough', i);
      i++;
      continue;
    }
    if (v2 && ch === '|' && next === '|') {
      toggle('spoiler', i);
      i += 2;
      continue;
    }
    if (ch === '[') {
      stack.push({ type: 'link', start: out.length, at: i });
      i++;
      continue;
    }
    if (ch === ']' && stack.some((e) => e.type === 'link')) {
      const idx = stack.map((e) => e.type).lastIndexOf('link');
      const [open] = stack.splice(idx, 1);
      if (input[i + 1] !== '(') {
        if (v2) throw parseError(`Character ']' is reserved and must be escaped with the preceding '\\'`);
        i++;
        continue;
      }
      let j = i + 2;
      let url = '';
      while (j < input.length && input[j] !== ')') {
        if (input[j] === '\\' && j + 1 < input.length) {
          url += input[j + 1];
          j += 2;
          continue;
        }
        url += input[j];
        j++;
      }
      if (j >= input.length) throw parseError(`Can't find end of a url at byte offset ${byteOffset(input, i + 2)}`);
      if (open && out.length > open.start) entities.push({ type: 'text_link', offset: open.start, length: out.length - open.start, url });
      i = j + 1;
      continue;
    }
    if (v2 && ch === '>' && (i === 0 || input[i - 1] === '\n')) {
      // A quote runs over consecutive lines starting with '>'; only its first '>' opens it.
      if (!stack.some((e) => e.type === 'blockquote')) stack.push({ type: 'blockquote', start: out.length, at: i });
      i++;
      continue;
    }
    if (v2 && V2_RESERVED.has(ch)) {
      throw parseError(`Character '${ch}' is reserved and must be escaped with the preceding '\\'`);
    }
    if (ch === '\n') {
      const quote = stack.findIndex((e) => e.type === 'blockquote');
      if (quote >= 0 && input[i + 1] !== '>') {
        const [open] = stack.splice(quote, 1);
        if (open && out.length > open.start) entities.push({ type: 'blockquote', offset: open.start, length: out.length - open.start });
      }
    }
    out += ch;
    i++;
  }
  const quote = stack.findIndex((e) => e.type === 'blockquote');
  if (quote >= 0) {
    const [open] = stack.splice(quote, 1);
    if (open && out.length > open.start) entities.push({ type: 'blockquote', offset: open.start, length: out.length - open.start });
  }
  const open = stack[0];
  if (open) throw parseError(`Can't find end of the entity starting at byte offset ${byteOffset(input, open.at)}`);
  return { text: out, entities: entities.sort((a, b) => a.offset - b.offset) };
}

/** Applies parse_mode (case-insensitive) or returns the text as is. */
export function formatText(input: string, parseMode: string | undefined): FormattedText {
  if (parseMode === undefined || parseMode === '') return { text: input, entities: [] };
  switch (parseMode.toLowerCase()) {
    case 'html':
      return parseHtml(input);
    case 'markdownv2':
      return parseMarkdown(input, true);
    case 'markdown':
      return parseMarkdown(input, false);
    default:
      throw badRequest('unsupported parse_mode');
  }
}
