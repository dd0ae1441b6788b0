import { ChatClient, type ChatMessage, type ConnectionState, type QuickReply, type ServerNotification } from './client.js';
import { el, ICONS, safeUrl, svgIcon } from './dom.js';
import { renderContent } from './render.js';
import { widgetStyles } from './styles.js';

export interface WidgetOptions {
  server: string;
  channelId: string;
  title?: string;
  /** Accent colour (CSS colour). */
  color?: string;
  position?: 'left' | 'right';
  externalContactId?: string;
  /** Open the conversation window when the page loads. */
  open?: boolean;
}

interface Entry {
  message: ChatMessage;
  node: HTMLLIElement;
  meta: HTMLElement;
}

const PAGE = 20;
const TYPING_TIMEOUT_MS = 30_000;
const STATUS_TEXT: Record<ConnectionState, string> = {
  idle: '',
  connecting: 'Connecting…',
  online: 'Online',
  offline: 'Offline, reconnecting…',
  rejected: 'Unavailable',
};

function idOrder(a: string, b: string): number {
  return parseInt(a, 10) - parseInt(b, 10);
}

/**
 * The embeddable web chat: a launcher button and a conversation window in a shadow root.
 * It connects when first opened (or at once when this browser already has a conversation, so
 * replies arrive while it is closed), keeps history in sync after every reconnection, and
 * reports delivery and reading back to the site.
 */
export class ChatWidget {
  readonly client: ChatClient;
  private readonly host: HTMLElement;
  private readonly launcher: HTMLButtonElement;
  private readonly badge: HTMLElement;
  private readonly panel: HTMLElement;
  private readonly statusLine: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly log: HTMLOListElement;
  private readonly more: HTMLButtonElement;
  private readonly typing: HTMLElement;
  private readonly quick: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly fileInput: HTMLInputElement;
  private readonly entries = new Map<string, Entry>();
  private readonly title: string;
  private isOpen = false;
  private connecting: Promise<void> | null = null;
  private cursor: string | null = null;
  private unread = 0;
  private typingTimer: ReturnType<typeof setTimeout> | undefined;
  private pendingCount = 0;

  constructor(private readonly options: WidgetOptions) {
    this.title = options.title ?? 'Chat';
    this.client = new ChatClient({ server: options.server, channelId: options.channelId, externalContactId: options.externalContactId });
    this.host = el('div', { 'data-parley-chat': '' });
    const shadow = this.host.attachShadow({ mode: 'open' });
    shadow.append(el('style', {}, widgetStyles(options.color ?? '#0b5cad', options.position ?? 'right')));

    this.badge = el('span', { class: 'badge', hidden: true, 'aria-hidden': 'true' });
    this.launcher = el('button', { class: 'launcher', type: 'button', 'aria-label': this.launcherLabel(), 'aria-expanded': 'false', 'aria-controls': 'parley-panel' }, svgIcon(ICONS.chat), this.badge);
    this.statusLine = el('span', { class: 'status', role: 'status' });
    const close = el('button', { class: 'close', type: 'button', 'aria-label': 'Close chat' }, '×');
    this.notice = el('div', { class: 'notice', role: 'alert', hidden: true });
    this.more = el('button', { class: 'more', type: 'button', hidden: true }, 'Show earlier messages');
    this.log = el('ol', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Messages', tabindex: '0' });
    this.typing = el('div', { class: 'typing', hidden: true, role: 'status', 'aria-label': `${this.title} is typing` }, el('span'), el('span'), el('span'));
    this.quick = el('div', { class: 'quick', hidden: true, role: 'group', 'aria-label': 'Suggested replies' });
    this.input = el('textarea', { id: 'parley-input', rows: '1', placeholder: 'Write a message…', autocomplete: 'off' });
    this.sendButton = el('button', { class: 'icon send', type: 'button', 'aria-label': 'Send message' }, svgIcon(ICONS.send));
    this.fileInput = el('input', { type: 'file', class: 'sr-only', tabindex: '-1', 'aria-hidden': 'true' });
    const attach = el('button', { class: 'icon attach', type: 'button', 'aria-label': 'Send a file or picture' }, svgIcon(ICONS.attach));

    this.panel = el(
      'section',
      { class: 'panel', id: 'parley-panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'parley-title', hidden: true },
      el('div', { class: 'header' }, el('h2', { id: 'parley-title' }, this.title), this.statusLine, close),
      this.notice,
      el('div', { class: 'log-wrap', style: 'flex:1;display:flex;flex-direction:column;min-height:0' }, this.log),
      this.quick,
      el('div', { class: 'composer' }, attach, this.fileInput, el('label', { for: 'parley-input', class: 'sr-only' }, 'Message'), this.input, this.sendButton),
    );
    this.log.append(el('li', { class: 'more-row', style: 'display:contents' }, this.more));
    shadow.append(el('div', { class: 'root' }, this.panel, this.launcher));

    this.launcher.addEventListener('click', () => this.toggle());
    close.addEventListener('click', () => this.close());
    this.panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        this.close();
      }
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.sendTyped();
      }
    });
    this.input.addEventListener('input', () => this.autosize());
    this.sendButton.addEventListener('click', () => void this.sendTyped());
    attach.addEventListener('click', () => this.fileInput.click());
    this.fileInput.addEventListener('change', () => void this.sendChosenFile());
    this.more.addEventListener('click', () => void this.loadEarlier());
    document.addEventListener('visibilitychange', () => this.maybeMarkRead());

    this.client.on('state', (state) => this.onState(state));
    this.client.on('message', (m) => this.onIncoming(m));
    this.client.on('echo', (m) => this.upsert(m));
    this.client.on('notification', (n) => this.onNotification(n));
    this.client.on('rejected', (r) => this.showNotice(r.error_code === 3 ? 'This chat is not available on this website.' : 'This chat is not available.'));
  }

  mount(parent: HTMLElement = document.body): void {
    parent.append(this.host);
    // A browser that already has a conversation connects at once, so replies arrive while closed.
    if (this.options.open) this.open();
    else if (this.client.sessionId) void this.ensureConnected();
  }

  open(): void {
    this.isOpen = true;
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    this.setUnread(0);
    this.input.focus();
    this.scrollToEnd();
    void this.ensureConnected().then(() => this.maybeMarkRead());
  }

  close(): void {
    this.isOpen = false;
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    this.launcher.focus();
  }

  toggle(): void {
    if (this.isOpen) this.close();
    else this.open();
  }

  private ensureConnected(): Promise<void> {
    this.connecting ??= this.client.connect().catch((error: unknown) => {
      this.connecting = null;
      if (this.client.state !== 'rejected') this.showNotice('Could not connect to the chat. Please try again later.');
      throw error;
    });
    return this.connecting.catch(() => undefined);
  }

  private onState(state: ConnectionState): void {
    this.statusLine.textContent = STATUS_TEXT[state];
    const usable = state === 'online';
    this.sendButton.disabled = !usable;
    if (usable) {
      this.notice.hidden = true;
      void this.sync();
    }
  }

  private showNotice(text: string): void {
    this.notice.textContent = text;
    this.notice.hidden = false;
  }

  /** After every (re)connection: the newest page of history, merged with what is shown. */
  private async sync(): Promise<void> {
    try {
      const page = await this.client.listMessages(null, PAGE);
      const fresh = this.entries.size === 0;
      for (const m of page.messages) this.upsert(m);
      if (fresh) {
        this.cursor = page.cursor.next;
        this.more.hidden = !page.cursor.has_next;
      }
      for (const m of page.messages) if (m.direction === 'received' && m.delivered === null) void this.client.markDelivered(m.id).catch(() => undefined);
      this.refreshQuickReplies();
      this.scrollToEnd();
      this.maybeMarkRead();
    } catch {
      // The next reconnection tries again.
    }
  }

  private async loadEarlier(): Promise<void> {
    if (!this.cursor) return;
    const before = this.log.scrollHeight;
    const page = await this.client.listMessages(this.cursor, PAGE);
    for (const m of page.messages) this.upsert(m);
    this.cursor = page.cursor.next;
    this.more.hidden = !page.cursor.has_next;
    this.log.scrollTop += this.log.scrollHeight - before;
  }

  private onIncoming(message: ChatMessage): void {
    this.setTyping(false);
    this.upsert(message);
    this.refreshQuickReplies();
    this.scrollToEnd();
    void this.client.markDelivered(message.id).catch(() => undefined);
    if (!this.isOpen || document.visibilityState !== 'visible') this.setUnread(this.unread + 1);
    this.maybeMarkRead();
  }

  private onNotification(n: ServerNotification): void {
    if (n.type === 'typing_on') this.setTyping(true);
    else if (n.type === 'typing_off') this.setTyping(false);
    else if (n.type === 'messages_read') {
      const upTo = Date.parse(n.last_read_timestamp);
      for (const entry of this.entries.values()) {
        if (entry.message.direction === 'sent' && entry.message.read === null && Date.parse(entry.message.sent) <= upTo) {
          entry.message = { ...entry.message, read: n.last_read_timestamp };
        }
      }
      this.refreshMeta();
    }
    // Every notification, custom ones included, is also offered to the page.
    this.host.dispatchEvent(new CustomEvent('parley-chat:notification', { detail: n, bubbles: true, composed: true }));
  }

  private setTyping(on: boolean): void {
    clearTimeout(this.typingTimer);
    this.typing.hidden = !on;
    if (on) {
      this.log.append(this.typing);
      this.scrollToEnd();
      this.typingTimer = setTimeout(() => this.setTyping(false), TYPING_TIMEOUT_MS);
    }
  }

  private setUnread(n: number): void {
    this.unread = n;
    this.badge.textContent = String(n);
    this.badge.hidden = n === 0;
    this.launcher.setAttribute('aria-label', this.launcherLabel());
  }

  /** One name whether open or closed (aria-expanded tells which), with the count of new messages. */
  private launcherLabel(): string {
    const name = this.title === 'Chat' ? 'Chat' : `Chat with ${this.title}`;
    return this.unread > 0 ? `${name}, ${this.unread} new ${this.unread === 1 ? 'message' : 'messages'}` : name;
  }

  /** The site learns that everything shown was read, when the window is open and the page visible. */
  private maybeMarkRead(): void {
    if (!this.isOpen || document.visibilityState !== 'visible' || !this.client.connected) return;
    const unreadIncoming = [...this.entries.values()].some((e) => e.message.direction === 'received' && e.message.read === null);
    if (!unreadIncoming) return;
    const now = new Date().toISOString();
    for (const e of this.entries.values()) if (e.message.direction === 'received' && e.message.read === null) e.message = { ...e.message, read: now };
    void this.client.markRead().catch(() => undefined);
  }

  /** Adds a message, or updates the one with its id, keeping the list in id order. */
  private upsert(message: ChatMessage): void {
    const existing = this.entries.get(message.id);
    if (existing) {
      existing.message = { ...message, read: message.read ?? existing.message.read };
      this.refreshMeta();
      return;
    }
    const { node: body, media, wide } = renderContent(message.content, { postback: (payload) => void this.client.sendPostback(payload).catch(() => undefined) });
    const who = message.direction === 'sent' ? 'You' : this.title;
    const meta = el('div', { class: 'meta' });
    const node = el('li', { class: `msg ${message.direction === 'sent' ? 'out' : 'in'}${wide ? ' structure' : ''}${media ? ' has-media' : ''}`, 'data-message-id': message.id }, el('span', { class: 'sr-only' }, `${who}:`), body, meta);
    const entry: Entry = { message, node, meta };
    const after = [...this.entries.values()].filter((e) => idOrder(e.message.id, message.id) > 0).sort((a, b) => idOrder(a.message.id, b.message.id))[0];
    this.entries.set(message.id, entry);
    if (after) this.log.insertBefore(node, after.node);
    else this.log.insertBefore(node, this.typing.parentNode === this.log ? this.typing : null);
    this.refreshMeta();
  }

  /** "Sent" / "Seen" under the user's latest message only, as chat apps do. */
  private refreshMeta(): void {
    const ordered = [...this.entries.values()].sort((a, b) => idOrder(a.message.id, b.message.id));
    const lastOut = [...ordered].reverse().find((e) => e.message.direction === 'sent');
    for (const e of ordered) {
      if (e !== lastOut) {
        e.meta.textContent = '';
        continue;
      }
      e.meta.textContent = e.message.read ? 'Seen' : 'Sent';
    }
  }

  /** Quick replies belong to the newest message only, and go away once the user answers. */
  private refreshQuickReplies(): void {
    const ordered = [...this.entries.values()].sort((a, b) => idOrder(a.message.id, b.message.id));
    const last = ordered.at(-1)?.message;
    const replies = last && last.direction === 'received' ? (last.content.quick_replies ?? []) : [];
    this.quick.replaceChildren(...replies.map((q) => this.quickButton(q)).filter((b): b is HTMLButtonElement => b !== null));
    this.quick.hidden = this.quick.childElementCount === 0;
  }

  private quickButton(q: QuickReply): HTMLButtonElement | null {
    if (q.type === 'text') {
      const icon = safeUrl(q.image_url);
      const b = el('button', { type: 'button' }, icon ? el('img', { src: icon, alt: '' }) : null, q.title);
      b.addEventListener('click', () => void this.sendQuickReply(q.title, q.payload));
      return b;
    }
    if (q.type === 'location') {
      if (!('geolocation' in navigator)) return null;
      const b = el('button', { type: 'button' }, '📍 Send my location');
      b.addEventListener('click', () => {
        navigator.geolocation.getCurrentPosition(
          (pos) => void this.sendContent({ type: 'location', payload: { latitude: pos.coords.latitude, longitude: pos.coords.longitude } }),
          () => this.showNotice('Your location is not available.'),
        );
      });
      return b;
    }
    const label = q.type === 'email' ? 'Send my e-mail address' : 'Send my phone number';
    const b = el('button', { type: 'button' }, label);
    b.addEventListener('click', () => {
      this.input.placeholder = q.type === 'email' ? 'Your e-mail address' : 'Your phone number';
      this.input.inputMode = q.type === 'email' ? 'email' : 'tel';
      this.input.focus();
    });
    return b;
  }

  private autosize(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, 120)}px`;
  }

  private scrollToEnd(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }

  private async sendTyped(): Promise<void> {
    const text = this.input.value.trim();
    if (!text) return;
    this.input.value = '';
    this.input.placeholder = 'Write a message…';
    this.input.inputMode = 'text';
    this.autosize();
    await this.sendContent({ type: 'text', payload: text });
  }

  private async sendQuickReply(title: string, payload: string): Promise<void> {
    await this.sendContent({ type: 'text', payload: title, quick_reply: { payload } });
  }

  /** Shows the message at once, and swaps in the stored one when the server acknowledges it. */
  private async sendContent(content: ChatMessage['content']): Promise<void> {
    this.quick.hidden = true;
    const tempId = `pending-${++this.pendingCount}`;
    const pending = el('li', { class: 'msg out', 'data-pending': tempId }, renderContent(content, { postback: () => undefined }).node, el('div', { class: 'meta' }, 'Sending…'));
    this.log.insertBefore(pending, this.typing.parentNode === this.log ? this.typing : null);
    this.scrollToEnd();
    try {
      await this.ensureConnected();
      const stored = await this.client.send(content);
      pending.remove();
      this.upsert(stored);
      this.refreshQuickReplies();
      this.scrollToEnd();
    } catch {
      const meta = pending.querySelector('.meta');
      if (meta) meta.textContent = 'Not sent';
    }
  }

  private async sendChosenFile(): Promise<void> {
    const file = this.fileInput.files?.[0];
    this.fileInput.value = '';
    if (!file) return;
    const pending = el('li', { class: 'msg out' }, el('div', { class: 'bubble' }, `📎 ${file.name}`), el('div', { class: 'meta' }, 'Uploading…'));
    this.log.insertBefore(pending, this.typing.parentNode === this.log ? this.typing : null);
    this.scrollToEnd();
    try {
      await this.ensureConnected();
      const stored = await this.client.sendFile(file);
      pending.remove();
      this.upsert(stored);
      this.scrollToEnd();
    } catch (error) {
      const meta = pending.querySelector('.meta');
      if (meta) meta.textContent = error instanceof Error && /large/i.test(error.message) ? 'File too large' : 'Not sent';
    }
  }
}
