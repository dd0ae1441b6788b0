import { ChatClient, ChatRequestError, type ChatMessage, type ConnectionState, type QuickReply, type ServerNotification } from './client.js';
import { el, ICONS, safeUrl, svgIcon } from './dom.js';
import { newKey, Outbox, type OutboxItem } from './outbox.js';
import { OutboxSender } from './outbox-sender.js';
import { renderContent } from './render.js';
import { widgetStyles } from './styles.js';
import { timeElement } from './time.js';

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
  /** "Sent" / "Seen", next to the time. */
  state: HTMLElement;
}

/** A message in the outbox, shown after the stored ones. */
interface PendingNode {
  node: HTMLLIElement;
  state: HTMLElement;
  retry: HTMLButtonElement;
}

const PAGE = 20;
const TYPING_TIMEOUT_MS = 30_000;
const STATUS_TEXT: Record<ConnectionState, string> = {
  idle: '',
  connecting: 'Connecting…',
  online: 'Online',
  offline: 'Offline, reconnecting…',
  busy: 'Busy, retrying soon…',
  rejected: 'Unavailable',
};

/**
 * What the notice above the messages is about, so that a notice goes away when its cause does
 * (the connection is accepted, a slowed-down message is stored) and not another one's.
 */
type NoticeKind = 'busy' | 'slow' | 'other';

/** Seconds for people: at least 1. */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function idOrder(a: string, b: string): number {
  return parseInt(a, 10) - parseInt(b, 10);
}

function localStorageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * The embeddable web chat: a launcher button and a conversation window in a shadow root.
 * It connects when first opened (or at once when this browser already has a conversation, so
 * replies arrive while it is closed), keeps history in sync after every reconnection, and
 * reports delivery and reading back to the site. What the visitor writes goes through the
 * outbox: kept in the browser until the server stored it, sent in order whenever connected.
 */
export class ChatWidget {
  readonly client: ChatClient;
  private readonly host: HTMLElement;
  private readonly launcher: HTMLButtonElement;
  private readonly badge: HTMLElement;
  private readonly panel: HTMLElement;
  private readonly statusLine: HTMLElement;
  private readonly notice: HTMLElement;
  private noticeKind: NoticeKind | null = null;
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
  private readonly outbox: Outbox;
  private readonly sender: OutboxSender;
  private readonly pendingNodes = new Map<string, PendingNode>();
  /** The outbox key of a tapped quick reply: its button stays pressed until the reply is stored. */
  private pressedQuick: string | null = null;

  constructor(private readonly options: WidgetOptions) {
    this.title = options.title ?? 'Chat';
    this.client = new ChatClient({ server: options.server, channelId: options.channelId, externalContactId: options.externalContactId });
    // One outbox per channel and visitor, next to the session id in the same storage.
    const visitor = options.externalContactId ? `_${options.externalContactId}` : '';
    this.outbox = new Outbox(localStorageOrNull(), `parley_chat_outbox_${options.channelId}${visitor}`);
    this.sender = new OutboxSender(this.outbox, this.client, {
      newestId: () => this.newestId(),
      stored: (_key, message) => {
        this.upsert(message);
        this.refreshQuickReplies();
        this.scrollToEnd();
        this.hideNotice('slow');
      },
      refused: (_key, error) => this.onRefused(error),
      // Sent again by itself: the visitor only needs to know why it takes a moment.
      slowedDown: (_key, waitMs) =>
        this.showNotice(`Too many messages at once. Yours are kept and sent in ${seconds(waitMs)} ${seconds(waitMs) === 1 ? 'second' : 'seconds'}.`, 'slow'),
    });
    this.outbox.onChange(() => {
      this.renderPending();
      this.refreshQuickReplies();
    });
    this.host = el('div', { 'data-parley-chat': '' });
    const shadow = this.host.attachShadow({ mode: 'open' });
    shadow.append(el('style', {}, widgetStyles(options.color ?? '#0b5cad', options.position ?? 'right')));

    this.badge = el('span', { class: 'badge', hidden: true, 'aria-hidden': 'true' });
    this.launcher = el(
      'button',
      { class: 'launcher', type: 'button', 'aria-label': this.launcherLabel(), 'aria-expanded': 'false', 'aria-controls': 'parley-panel' },
      svgIcon(ICONS.chat),
      this.badge,
    );
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
    // Enter does what the send button does, and nothing when the button is disabled.
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.sendButton.click();
      }
    });
    this.input.addEventListener('input', () => this.autosize());
    this.sendButton.addEventListener('click', () => this.sendTyped());
    attach.addEventListener('click', () => this.fileInput.click());
    this.fileInput.addEventListener('change', () => void this.sendChosenFile());
    this.more.addEventListener('click', () => void this.loadEarlier());
    document.addEventListener('visibilitychange', () => this.maybeMarkRead());

    this.client.on('state', (state) => this.onState(state));
    this.client.on('message', (m) => this.onIncoming(m));
    this.client.on('echo', (m) => this.upsert(m));
    this.client.on('notification', (n) => this.onNotification(n));
    // Final refusals; a busy server (code 4) is waited out by the client, which connects again.
    this.client.on('rejected', (r) => this.showNotice(r.error_code === 3 ? 'This chat is not available on this website.' : 'This chat is not available.'));
    this.client.on('busy', (_r, retryInMs) => {
      const s = seconds(retryInMs);
      this.showNotice(`The chat is busy right now. Trying again in ${s} ${s === 1 ? 'second' : 'seconds'}; your messages are kept and sent then.`, 'busy');
    });
  }

  mount(parent: HTMLElement = document.body): void {
    parent.append(this.host);
    this.renderPending();
    // A browser that already has a conversation, or messages still to send, connects at once:
    // replies arrive while the window is closed, and the outbox is sent.
    if (this.options.open) this.open();
    else if (this.client.sessionId || this.outbox.size > 0) void this.ensureConnected();
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
    // Offline, messages wait in the outbox; only a refused page cannot write.
    this.sendButton.disabled = state === 'rejected';
    this.renderPending();
    if (state === 'online') {
      this.hideNotice();
      // The history first: an attempt whose answer was lost is looked for among the newest messages.
      void this.sync().then(() => this.sender.flush());
    }
  }

  /** A message the server refused stays in the outbox, marked, until the visitor taps Retry. */
  private onRefused(error: ChatRequestError): void {
    this.renderPending();
    this.refreshQuickReplies();
    // The site deleted this conversation: a new connection starts a new one to retry in.
    if (error.code === 404) void this.client.connect().catch(() => undefined);
  }

  private newestId(): string | null {
    let newest: string | null = null;
    for (const id of this.entries.keys()) if (newest === null || idOrder(id, newest) > 0) newest = id;
    return newest;
  }

  private showNotice(text: string, kind: NoticeKind = 'other'): void {
    this.notice.textContent = text;
    this.notice.hidden = false;
    this.noticeKind = kind;
  }

  /** Hides the notice, or only a notice of that kind. */
  private hideNotice(kind?: NoticeKind): void {
    if (kind !== undefined && this.noticeKind !== kind) return;
    this.notice.hidden = true;
    this.noticeKind = null;
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
    let page;
    try {
      page = await this.client.listMessages(this.cursor, PAGE);
    } catch (error) {
      this.showNotice(
        error instanceof ChatRequestError && error.code === 429
          ? 'Too many requests at once. Please wait a moment, then show earlier messages again.'
          : 'Earlier messages could not be loaded. Please try again.',
      );
      return;
    }
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
    const { node: body, media, wide } = renderContent(message.content, { postback: (payload) => this.sendPostback(payload) });
    const who = message.direction === 'sent' ? 'You' : this.title;
    const state = el('span', { class: 'state' });
    const meta = el('div', { class: 'meta' }, timeElement(message.sent), state);
    const node = el(
      'li',
      { class: `msg ${message.direction === 'sent' ? 'out' : 'in'}${wide ? ' structure' : ''}${media ? ' has-media' : ''}`, 'data-message-id': message.id },
      el('span', { class: 'sr-only' }, `${who}:`),
      body,
      meta,
    );
    const entry: Entry = { message, node, state };
    const after = [...this.entries.values()].filter((e) => idOrder(e.message.id, message.id) > 0).sort((a, b) => idOrder(a.message.id, b.message.id))[0];
    this.entries.set(message.id, entry);
    this.log.insertBefore(node, after ? after.node : this.storedEnd());
    this.refreshMeta();
  }

  /** Where the stored messages end: before the outbox's messages and the typing indicator. */
  private storedEnd(): Node | null {
    for (const p of this.pendingNodes.values()) if (p.node.parentNode === this.log) return p.node;
    return this.typing.parentNode === this.log ? this.typing : null;
  }

  /** The outbox's messages after the stored ones, in order, each marked waiting, sending or not sent. */
  private renderPending(): void {
    const items = this.outbox.list();
    const keys = new Set(items.map((i) => i.key));
    for (const [key, p] of this.pendingNodes) {
      if (!keys.has(key)) {
        p.node.remove();
        this.pendingNodes.delete(key);
      }
    }
    let next: Node | null = this.typing.parentNode === this.log ? this.typing : null;
    for (const item of [...items].reverse()) {
      let p = this.pendingNodes.get(item.key);
      if (!p) {
        p = this.pendingNode(item);
        this.pendingNodes.set(item.key, p);
      }
      this.markPending(p, item);
      if (p.node.parentNode !== this.log || p.node.nextSibling !== next) this.log.insertBefore(p.node, next);
      next = p.node;
    }
  }

  private pendingNode(item: OutboxItem): PendingNode {
    const state = el('span', { class: 'state' });
    const retry = el('button', { type: 'button', class: 'retry', hidden: true }, 'Retry');
    retry.addEventListener('click', () => {
      this.outbox.retry(item.key);
      void this.ensureConnected();
      void this.sender.flush();
    });
    const node = el(
      'li',
      { class: 'msg out pending', 'data-outbox-key': item.key },
      el('span', { class: 'sr-only' }, 'You:'),
      renderContent(item.content, { postback: () => Promise.resolve(false) }).node,
      el('div', { class: 'meta' }, timeElement(item.queuedAt), state, retry),
    );
    return { node, state, retry };
  }

  private markPending(p: PendingNode, item: OutboxItem): void {
    const failed = item.failed !== undefined;
    p.node.classList.toggle('failed', failed);
    p.retry.hidden = !failed;
    p.state.textContent = failed ? 'Not sent' : this.client.connected ? 'Sending…' : 'Waiting for connection';
    if (failed) p.state.title = item.failed?.message ?? '';
    else p.state.removeAttribute('title');
  }

  /** "Sent" / "Seen" under the user's latest message only, as chat apps do. */
  private refreshMeta(): void {
    const ordered = [...this.entries.values()].sort((a, b) => idOrder(a.message.id, b.message.id));
    const lastOut = [...ordered].reverse().find((e) => e.message.direction === 'sent');
    for (const e of ordered) {
      if (e !== lastOut) {
        e.state.textContent = '';
        continue;
      }
      e.state.textContent = e.message.read ? 'Seen' : 'Sent';
    }
  }

  /**
   * Quick replies belong to the newest message only, and go away once the user answers. A tapped
   * one stays shown, pressed, until its message is stored (or refused).
   */
  private refreshQuickReplies(): void {
    const waiting = this.outbox.pending();
    if (this.pressedQuick !== null && waiting.some((i) => i.key === this.pressedQuick)) return;
    this.pressedQuick = null;
    if (waiting.length > 0) {
      this.quick.replaceChildren();
      this.quick.hidden = true;
      return;
    }
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
      b.addEventListener('click', () => {
        this.pressQuick(b);
        this.queueQuick({ type: 'text', payload: q.title, quick_reply: { payload: q.payload } });
      });
      return b;
    }
    if (q.type === 'location') {
      if (!('geolocation' in navigator)) return null;
      const b = el('button', { type: 'button' }, '📍 Send my location');
      b.addEventListener('click', () => {
        this.pressQuick(b);
        navigator.geolocation.getCurrentPosition(
          (pos) => {
            this.queueQuick({ type: 'location', payload: { latitude: pos.coords.latitude, longitude: pos.coords.longitude } });
          },
          () => {
            this.refreshQuickReplies();
            this.showNotice('Your location is not available.');
          },
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

  /** The tapped suggestion looks pressed; all of them are disabled, so only one answer goes out. */
  private pressQuick(tapped: HTMLButtonElement): void {
    for (const b of this.quick.querySelectorAll('button')) b.disabled = true;
    tapped.classList.add('pressed');
    tapped.setAttribute('aria-pressed', 'true');
  }

  private autosize(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, 120)}px`;
  }

  private scrollToEnd(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }

  private sendTyped(): void {
    if (this.sendButton.disabled) return;
    const text = this.input.value.trim();
    if (!text) return;
    this.input.value = '';
    this.input.placeholder = 'Write a message…';
    this.input.inputMode = 'text';
    this.autosize();
    this.queue({ type: 'text', payload: text });
  }

  /** Puts a message in the outbox (shown at once, marked) and sends it when connected. */
  private queue(content: ChatMessage['content'], key = newKey()): void {
    this.outbox.add(content, key);
    this.scrollToEnd();
    void this.ensureConnected();
    void this.sender.flush();
  }

  /** The answer of a tapped suggestion, whose button stays pressed until the answer is stored. */
  private queueQuick(content: ChatMessage['content']): void {
    const key = newKey();
    this.pressedQuick = key;
    this.queue(content, key);
  }

  /** A card's postback button: true once the site got it (the button then stays used). */
  private async sendPostback(payload: string): Promise<boolean> {
    if (!this.client.connected) {
      this.showNotice('You are offline. Tap the button again once the chat is back online.');
      return false;
    }
    try {
      await this.client.sendPostback(payload);
      return true;
    } catch (error) {
      this.showNotice(
        error instanceof ChatRequestError && error.code === 429
          ? 'Too many taps at once. Please wait a moment, then tap the button again.'
          : 'That did not reach us. Please tap the button again.',
      );
      return false;
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
      // The typed text is not touched: the visitor can still send it as a message.
      const code = error instanceof ChatRequestError ? error.code : 0;
      const meta = pending.querySelector('.meta');
      if (meta)
        meta.textContent =
          code === 413 ? 'File too large' : code === 507 ? 'Not sent: no room for files' : code === 429 ? 'Not sent: too many uploads' : 'Not sent';
      if (code === 507) this.showNotice('This chat cannot take files right now: its storage is full. You can still send your message as text.');
      else if (code === 413 || code === 429) this.showNotice(error instanceof Error ? error.message : 'The file was not sent.');
    }
  }
}
