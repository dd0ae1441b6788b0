import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dialects } from '../helpers/databases.js';
import { MediaDownloader } from '../../src/connectors/media-download.js';
import { APP_SECRET, http, startHarness, type Harness } from './helpers/harness.js';

/** A small HTTP server on 127.0.0.1 that records the paths it was asked for. */
interface Site {
  origin: string;
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function site(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Site> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every file under a folder (the file store), read whole. */
async function storedFiles(dir: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return out;
  }
  for (const e of entries) if (e.isFile()) out.push(await readFile(join(e.parentPath, e.name)));
  return out;
}

const SECRET = `internal-page-${randomBytes(8).toString('hex')}`;

for (const { dialect, skip } of await dialects()) {
  describe(`Received files are downloaded through the address guard (${dialect})`, { skip }, () => {
    let h: Harness;
    let internal: Site;
    let redirector: Site;
    before(async () => {
      internal = await site((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(SECRET));
      redirector = await site((req, res) => {
        if (req.url === '/photo.png') res.writeHead(302, { location: `${internal.origin}/metadata/photo.png` }).end();
        else if (req.url === '/own.png') res.writeHead(200, { 'content-type': 'image/png' }).end('allowed bytes');
        else res.writeHead(404).end();
      });
      // The allowlist opens the first server only, not the one it redirects to.
      h = await startHarness(dialect, { MEDIA_ALLOWLIST: `127.0.0.1:${redirector.port}` });
    });
    after(async () => {
      await h?.close();
      await internal?.close();
      await redirector?.close();
    });

    test("an attachment URL that redirects to an internal page never lands in the file store; the stand-in's attachments still do", async () => {
      const { pageId, hook } = await h.connectPage('Guarded');

      // Signed by the platform (the app secret), naming URLs the platform never served.
      const inbound = async (mid: string, url: string) => {
        const body = JSON.stringify({
          object: 'page',
          entry: [
            {
              id: pageId,
              time: Date.now(),
              messaging: [
                {
                  sender: { id: '5550001' },
                  recipient: { id: pageId },
                  timestamp: Date.now(),
                  message: { mid, attachments: [{ type: 'image', payload: { url } }] },
                },
              ],
            },
          ],
        });
        const signature = `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
        const seen = hook.events.length;
        const res = await http('POST', `${h.s.baseUrl}/inbound/socialnet_chat`, body, { 'x-hub-signature-256': signature });
        assert.equal(res.status, 200, res.text);
        const event = await hook.waitFor('message_received', (e) => hook.events.indexOf(e) >= seen);
        return event.data.content.payload.url as string;
      };

      const redirected = `${redirector.origin}/photo.png`;
      assert.equal(await inbound('m_redirect', redirected), redirected, 'the platform URL is kept, nothing re-hosted');
      const direct = `${internal.origin}/metadata/direct.png`;
      assert.equal(await inbound('m_direct', direct), direct);
      assert.deepEqual(internal.hits, [], 'the internal server was never called');
      assert.deepEqual(redirector.hits, ['/photo.png']);

      // A file of the allowlisted host is copied as before.
      const own = await inbound('m_own', `${redirector.origin}/own.png`);
      assert.ok(own.startsWith(`${h.s.baseUrl}/files/`), own);
      assert.equal(await (await fetch(own)).text(), 'allowed bytes');

      // A normal attachment from the stand-in (a platform base URL) is re-hosted.
      const psid = (await h.snSandbox(`/pages/${pageId}/users`, { first_name: 'Eva' })).body.user.psid;
      await h.snSandbox(`/pages/${pageId}/users/${psid}/attachments`, { type: 'image' });
      const image = await hook.waitFor(
        'message_received',
        (e) => e.data.content.type === 'image' && String(e.data.content.payload.url).startsWith(`${h.s.baseUrl}/files/`),
      );
      const got = await fetch(image.data.content.payload.url);
      assert.equal(got.status, 200);
      assert.equal(got.headers.get('content-type'), 'image/png');

      for (const bytes of await storedFiles(join(h.s.db.dataDir, 'files'))) assert.ok(!bytes.includes(SECRET), 'the internal page is not in the file store');
    });
  });
}

describe('Media downloader', () => {
  let files: Site;
  let loop: Site;
  before(async () => {
    files = await site((req, res) => {
      if (req.url === '/endless') {
        // No length announced, and more than any cap: the download must stop reading.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let sent = 0;
        const more = () => {
          while (sent < 64 && res.write(Buffer.alloc(64 * 1024, 1))) sent += 1;
          if (sent >= 64) res.end();
          else res.once('drain', more);
        };
        more();
      } else if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': '5000000' }).end();
      } else {
        res.writeHead(200, { 'content-type': 'image/png; charset=binary' }).end('tiny');
      }
    });
    loop = await site((req, res) => res.writeHead(301, { location: `/hop${(req.url ?? '').length}` }).end());
  });
  after(async () => {
    await files?.close();
    await loop?.close();
  });

  test('the size cap holds while the body streams and against a declared length; redirects are counted', async () => {
    const media = new MediaDownloader({ allowlist: [`127.0.0.1:${files.port}`, `127.0.0.1:${loop.port}`] });
    const small = await media.download(`${files.origin}/ok.png`, 5000, 100);
    assert.ok(small.ok);
    assert.equal(small.value.contentType, 'image/png');
    assert.equal(Buffer.from(small.value.bytes).toString(), 'tiny');

    const endless = await media.download(`${files.origin}/endless`, 5000, 100_000);
    assert.equal(endless.ok, false);
    assert.equal(!endless.ok && endless.code, 'too_large');
    const declared = await media.download(`${files.origin}/declared`, 5000, 1000);
    assert.equal(!declared.ok && declared.code, 'too_large');

    const looping = await media.download(`${loop.origin}/start`, 5000, 1000);
    assert.equal(!looping.ok && looping.code, 'too_many_redirects');
    assert.equal(loop.hits.length, 4, 'the first call and three redirects');
  });

  test('a private address outside the allowlist is refused before connecting, naming the host only', async () => {
    const media = new MediaDownloader({ allowlist: [] });
    const refused = await media.download(`${files.origin}/ok.png`, 5000, 100);
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.code, 'address_refused');
    assert.equal(!refused.ok && refused.retryable, false);
    const named = await media.download(`http://localhost:${files.port}/ok.png`, 5000, 100);
    assert.equal(!named.ok && named.code, 'address_refused');
    assert.match(!named.ok ? named.message : '', /^Refused to call localhost: .*MEDIA_ALLOWLIST/);
  });
});
