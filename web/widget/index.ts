import { ChatWidget, type WidgetOptions } from './widget.js';
import { ChatClient, ChatRequestError } from './client.js';

/**
 * Entry of widget.js: `<script src="{server}/widget.js" data-channel-id="...">` puts the web
 * chat on the page. Attributes: data-channel-id (required), data-title, data-color,
 * data-position (right | left), data-external-contact-id, data-open ("true"), data-server
 * (when the chat server is not the one that served the script). `window.ParleyChat` exposes
 * the widget and the client library for pages that want more control.
 */
declare global {
  interface Window {
    ParleyChat?: { widget: ChatWidget | null; ChatClient: typeof ChatClient; ChatWidget: typeof ChatWidget; ChatRequestError: typeof ChatRequestError };
  }
}

function boot(): void {
  const script = document.currentScript as HTMLScriptElement | null;
  const api = { widget: null as ChatWidget | null, ChatClient, ChatWidget, ChatRequestError };
  window.ParleyChat = api;
  if (!script) return;
  const data = script.dataset;
  if (!data.channelId) {
    console.error('Parley web chat: the script tag needs data-channel-id.');
    return;
  }
  const options: WidgetOptions = {
    server: data.server ?? new URL(script.src, location.href).origin,
    channelId: data.channelId,
    title: data.title,
    color: data.color,
    position: data.position === 'left' ? 'left' : 'right',
    externalContactId: data.externalContactId,
    open: data.open === 'true',
  };
  const start = () => {
    const widget = new ChatWidget(options);
    api.widget = widget;
    widget.mount();
  };
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
}

boot();
