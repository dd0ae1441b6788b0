import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

// Browser tests drive Debian's Chromium (never a browser downloaded by a test tool) and serve
// their pages from a local HTTP server, whose origin is what a channel's whitelist must list.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumMissing(): string | false {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.CI === 'true') throw new Error(`Chromium is required in CI but missing at ${CHROMIUM} (.ci/run installs Debian's package)`);
  return `Chromium not installed at ${CHROMIUM}`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // playwright gives each launch a fresh temporary profile.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface PageServer {
  origin: string;
  url(path?: string): string;
  close(): Promise<void>;
}

/**
 * Serves one HTML page (at every other path), a few PNG pictures and scripts from 127.0.0.1 on a
 * port of its own. Scripts are read at each request, so a test may set them after the start.
 */
export async function servePage(
  html: (path: string) => string,
  pictures: Record<string, Buffer> = {},
  scripts: Record<string, string | Buffer> = {},
): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const picture = pictures[path];
    if (picture) return void res.writeHead(200, { 'content-type': 'image/png' }).end(picture);
    const script = scripts[path];
    if (script !== undefined)
      return void res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(script);
    if (path === '/favicon.ico') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const origin = `http://127.0.0.1:${address.port}`;
  return {
    origin,
    url: (path = '/') => `${origin}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A shop page with the one script tag of docs/web-chat.md. */
export function shopPage(server: string, channelId: string, extra = ''): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Shoe shop</title>
<style>body{font:16px system-ui;margin:0;background:#f6f7f9;color:#222}header{background:#fff;padding:18px 28px;border-bottom:1px solid #e3e5e8;font-weight:700}main{padding:28px;max-width:640px}</style>
</head>
<body>
<header>Shoe shop</header>
<main><h1>Spring collection</h1><p>Light shoes for long walks.</p></main>
<script src="${server}/widget.js" data-channel-id="${channelId}" data-title="Shoe shop" ${extra}></script>
</body>
</html>`;
}

/** A page that builds its own interface on the client library (an ES module from the server). */
export function ownInterfacePage(server: string, channelId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Own interface</title></head>
<body><ul id="messages"></ul>
<script type="module">
  import { ChatClient } from '${server}/chat-client.js';
  const chat = new ChatClient({ server: '${server}', channelId: '${channelId}', storage: 'session' });
  chat.on('message', (m) => { const li = document.createElement('li'); li.textContent = m.content.payload; document.getElementById('messages').append(li); });
  chat.on('state', (state) => { window.chatState = state; });
  await chat.connect();
  await chat.sendText('Sent by my own interface');
  try { await chat.send({ type: 'structure', payload: {} }); } catch (e) { window.chatError = { code: e.code, field: e.field }; }
</script></body></html>`;
}
