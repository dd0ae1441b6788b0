import type { Card, ChatContent } from './client.js';
import { el, safeUrl } from './dom.js';
import { linkedText } from './links.js';

/** What a rendered message needs from the widget: buttons in cards call back into it. */
export interface RenderActions {
  /** Resolves true once the site got the postback. */
  postback(payload: string, title: string): Promise<boolean>;
}

/**
 * A postback button shows it was tapped at once (pressed, and disabled so it is not sent twice);
 * it stays so once the site got it, and is offered again when sending failed.
 */
function postbackButton(title: string, payload: string, actions: RenderActions): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'postback' }, title);
  const press = (on: boolean) => {
    button.disabled = on;
    button.classList.toggle('pressed', on);
    if (on) button.setAttribute('aria-pressed', 'true');
    else button.removeAttribute('aria-pressed');
  };
  button.addEventListener('click', () => {
    if (button.disabled) return;
    press(true);
    void actions.postback(payload, title).then((sent) => {
      if (!sent) press(false);
    });
  });
  return button;
}

function fileName(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
    return last ? decodeURIComponent(last) : 'file';
  } catch {
    return 'file';
  }
}

function card(c: Card, actions: RenderActions): HTMLLIElement {
  const image = safeUrl(c.image_url);
  const item = safeUrl(c.item_url);
  const title = c.title ? el('h3', {}, item ? el('a', { href: item, target: '_blank', rel: 'noopener noreferrer' }, c.title) : c.title) : null;
  const buttons = (c.buttons ?? []).map((b) => {
    if (b.type === 'url') {
      const href = safeUrl(b.payload);
      return href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, b.title) : null;
    }
    if (b.type === 'phone') return el('a', { href: `tel:${b.payload.replace(/[^0-9+]/g, '')}` }, b.title);
    return postbackButton(b.title, b.payload, actions);
  });
  return el(
    'li',
    { class: 'card' },
    image ? el('img', { src: image, alt: c.title ?? '' }) : null,
    title || c.text ? el('div', { class: 'body' }, title, c.text ? el('p', {}, c.text) : null) : null,
    buttons.length > 0 ? el('div', { class: 'buttons' }, ...buttons) : null,
  );
}

/** The visible body of one message. Unknown content types show as a short note, never as raw data. */
export function renderContent(content: ChatContent, actions: RenderActions): { node: HTMLElement; media: boolean; wide: boolean } {
  const payload = content.payload as unknown;
  switch (content.type) {
    case 'text':
      return { node: el('div', { class: 'bubble' }, ...linkedText(String(payload))), media: false, wide: false };
    case 'image': {
      const url = safeUrl((payload as { url?: string })?.url);
      if (!url) break;
      return {
        node: el('div', { class: 'bubble media' }, el('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, el('img', { src: url, alt: 'Image' }))),
        media: true,
        wide: false,
      };
    }
    case 'video': {
      const url = safeUrl((payload as { url?: string })?.url);
      if (!url) break;
      return { node: el('div', { class: 'bubble media' }, el('video', { src: url, controls: true, preload: 'metadata' })), media: true, wide: false };
    }
    case 'audio': {
      const url = safeUrl((payload as { url?: string })?.url);
      if (!url) break;
      return { node: el('div', { class: 'bubble media' }, el('audio', { src: url, controls: true, preload: 'metadata' })), media: true, wide: false };
    }
    case 'file': {
      const url = safeUrl((payload as { url?: string })?.url);
      if (!url) break;
      return {
        node: el(
          'div',
          { class: 'bubble' },
          el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', download: fileName(url) }, `📎 ${fileName(url)}`),
        ),
        media: false,
        wide: false,
      };
    }
    case 'location': {
      const p = payload as { latitude?: number; longitude?: number };
      if (typeof p?.latitude !== 'number' || typeof p.longitude !== 'number') break;
      return { node: el('div', { class: 'bubble' }, `📍 ${p.latitude.toFixed(5)}, ${p.longitude.toFixed(5)}`), media: false, wide: false };
    }
    case 'structure': {
      const cards = (Array.isArray(payload) ? payload : [payload]) as Card[];
      const list = el(
        'ul',
        { class: 'cards', 'aria-label': cards.length > 1 ? `${cards.length} cards, scroll sideways` : 'Card' },
        ...cards.map((c) => card(c, actions)),
      );
      if (cards.length > 1) list.tabIndex = 0;
      return { node: list, media: true, wide: true };
    }
    case 'receipt':
      // The widget draws no receipt: it shows the note below.
      break;
  }
  return { node: el('div', { class: 'bubble' }, 'This message cannot be shown here.'), media: false, wide: false };
}
