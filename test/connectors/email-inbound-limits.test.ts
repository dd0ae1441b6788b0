import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { eventually } from '../helpers/waits.js';
import { ApiClient } from '../helpers/api-client.js';
import { createMailproviderStandIn } from '../../sandbox/mailprovider/server.js';
import { encodeMultipart } from '../../sandbox/shared/multipart.js';

/**
 * The inbound mail endpoint's two boundaries (security issue): the body bound to a signature
 * holds across a restart and between instances (the binding is in the store), and a forwarded
 * mail is taken up to the provider's 25 MB, streamed, with nothing left on disk when refused.
 */
const API_KEY = 'key-email-limits-test-01';
const SIGNING_KEY = 'webhook-signing-key-of-the-limits-account';
const LIMIT = 25 * 1024 * 1024;

function signed(token = randomBytes(25).toString('hex'), timestamp = Math.floor(Date.now() / 1000)): Array<[string, string]> {
  return [
    ['timestamp', String(timestamp)],
    ['token', token],
    ['signature', createHmac('sha256', SIGNING_KEY).update(`${timestamp}${token}`).digest('hex')],
  ];
}

function mailFields(sender: string, text: string, id: string): Array<[string, string]> {
  return [
    ['recipient', 'inbox@limits.test'],
    ['sender', sender],
    ['from', sender],
    ['subject', 'Hello'],
    ['body-plain', text],
    ['message-headers', JSON.stringify([['Message-Id', `<${id}@client.test>`]])],
  ];
}

const urlencoded = (fields: Array<[string, string]>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

for (const { dialect, skip, test } of await dialects()) {
  describe(`email inbound: signature bindings and the 25 MB mail (${dialect})`, { skip }, () => {
    let mail: ReturnType<typeof createMailproviderStandIn>;
    let mailBase: string;
    let staging: string;
    const previousTmp = process.env.TMPDIR;
    const env = () => ({ MAILPROVIDER_API_URL: mailBase, MAILPROVIDER_WEBHOOK_SIGNING_KEY: SIGNING_KEY, PLATFORM_TIMEOUT_MS: '3000' });

    before(async () => {
      mail = createMailproviderStandIn({ apiKey: API_KEY, webhookSigningKey: SIGNING_KEY, domains: ['limits.test'] });
      mailBase = await mail.listen(0);
      // The service stages form files under the OS temp folder: this suite's own, so it can see them go.
      staging = await mkdtemp(join(tmpdir(), 'email-limits-'));
      process.env.TMPDIR = staging;
    });
    after(async () => {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
      await mail?.close();
      await rm(staging, { recursive: true, force: true });
    });

    /** Forms being staged now (each in a folder of its own). */
    const stagedForms = async () => (await readdir(staging)).filter((name) => name.startsWith('parley-form-')).length;

    async function channelOn(s: TestServer): Promise<string> {
      const res = await s.api.post('/v1/channels', {
        type: 'email',
        name: 'Inbox',
        provider: { type: 'mailprovider', access_token: API_KEY, sender: { email: 'inbox@limits.test', name: 'Inbox' } },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.id;
    }

    async function receivedTexts(api: ApiClient, channelId: string): Promise<string[]> {
      const contacts = await api.get(`/v1/channels/${channelId}/contacts`);
      const texts: string[] = [];
      for (const contact of contacts.body) {
        const messages = await api.get(`/v1/channels/${channelId}/contacts/${contact.id}/messages`);
        for (const m of messages.body) if (m.content.type === 'text') texts.push(`${contact.email}: ${m.content.payload}`);
      }
      return texts.sort();
    }

    test('a recorded signature carries no other mail after a restart, nor on a second instance', async () => {
      const db = await createTestDatabase(dialect);
      const first = await startTestServer(dialect, { db, env: env() });
      const channelId = await channelOn(first);
      const owner = first.token;
      const url = (s: TestServer) => `${s.baseUrl}/inbound/${channelId}/mail`;
      const signature = signed();
      const genuine = [...mailFields('karel@client.test', 'genuine', 'genuine-1'), ...signature];
      const forged = [...mailFields('mallory@evil.test', 'send the invoice to my account', 'forged-1'), ...signature];
      try {
        assert.equal((await fetch(url(first), urlencoded(genuine))).status, 200);
        await first.close();
        // The same database after a restart: the binding is still there.
        const restarted = await startTestServer(dialect, { db, env: env() });
        try {
          assert.equal((await fetch(url(restarted), urlencoded(forged))).status, 404, 'the forged mail under the recorded signature');
          const retry = await fetch(url(restarted), urlencoded(genuine));
          assert.equal(retry.status, 200, 'the same body again is the provider retrying');
          if (dialect === 'postgres') {
            // A second instance beside the first, on the same database.
            const second = await startTestServer(dialect, { db, env: env() });
            try {
              assert.notEqual(second.runtime.store.instanceId, restarted.runtime.store.instanceId);
              const fresh = signed();
              const sent = [...mailFields('jana@client.test', 'to the first instance', 'fresh-1'), ...fresh];
              assert.equal((await fetch(url(restarted), urlencoded(sent))).status, 200);
              const replayed = [...mailFields('mallory@evil.test', 'replayed on the second', 'forged-2'), ...fresh];
              assert.equal((await fetch(url(second), urlencoded(replayed))).status, 404);
              assert.equal((await fetch(url(second), urlencoded(sent))).status, 200);
            } finally {
              await second.close();
            }
          }
          const expected = ['karel@client.test: genuine', ...(dialect === 'postgres' ? ['jana@client.test: to the first instance'] : [])];
          assert.deepEqual(
            await receivedTexts(new ApiClient(restarted.origin, owner), channelId),
            expected.sort(),
            'no forged message_received, each mail once',
          );
        } finally {
          await restarted.close();
        }
      } finally {
        await db.drop();
      }
    });

    test('a mail of exactly 25 MB is taken and its attachment re-hosted whole; one byte more is 413 and leaves nothing on disk', async () => {
      const s = await startTestServer(dialect, { env: env() });
      try {
        const channelId = await channelOn(s);
        const url = `${s.baseUrl}/inbound/${channelId}/mail`;
        /** A multipart mail of exactly `size` bytes: the attachment takes what the fields leave. */
        const mailOf = (size: number, id: string) => {
          const fields = [...mailFields('karel@client.test', `mail ${id}`, id), ['attachment-count', '1'] as [string, string], ...signed()];
          const file = (data: Buffer) => [{ field: 'attachment-1', fileName: 'scan.pdf', contentType: 'application/pdf', data }];
          const overhead = encodeMultipart(fields, file(Buffer.alloc(0))).body.length;
          const data = randomBytes(size - overhead);
          const encoded = encodeMultipart(fields, file(data));
          assert.equal(encoded.body.length, size);
          return { ...encoded, data };
        };

        const over = mailOf(LIMIT + 1, 'over');
        const refused = await fetch(url, { method: 'POST', headers: { 'content-type': over.contentType }, body: new Uint8Array(over.body) });
        assert.equal(refused.status, 413);
        assert.match((await refused.json()).errors[0].message, new RegExp(`larger than the limit of ${LIMIT} bytes`));

        const under = mailOf(LIMIT, 'under');
        const taken = await fetch(url, { method: 'POST', headers: { 'content-type': under.contentType }, body: new Uint8Array(under.body) });
        assert.equal(taken.status, 200, await taken.text());
        const contacts = await s.api.get(`/v1/channels/${channelId}/contacts`);
        const messages = (await s.api.get(`/v1/channels/${channelId}/contacts/${contacts.body[0].id}/messages`)).body as any[];
        assert.deepEqual(messages.map((m) => m.content.type).sort(), ['file', 'text']);
        assert.equal(messages.find((m) => m.content.type === 'text').content.payload, 'mail under', 'the mail over the limit stored nothing');
        const hosted = await fetch(messages.find((m) => m.content.type === 'file').content.payload.url);
        const bytes = Buffer.from(await hosted.arrayBuffer());
        assert.equal(bytes.length, under.data.length);
        assert.equal(createHash('sha256').update(bytes).digest('hex'), createHash('sha256').update(under.data).digest('hex'));

        // A form past the service's body limit answers an unknown channel, or a channel's endpoint that streams none, like any other refusal there.
        const big = new URLSearchParams([['body-plain', 'x'.repeat(2 * 1024 * 1024)]]).toString();
        for (const target of [`${s.baseUrl}/inbound/9999999/mail`, `${s.baseUrl}/inbound/${channelId}/events`]) {
          const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: big });
          assert.equal(res.status, 404, target);
        }

        // Announced as over the limit, streamed without a length, or cut short: refused, and the staged files removed.
        const chunked = mailOf(LIMIT + 1, 'chunked');
        const streamed = await new Promise<number>((resolve, reject) => {
          const req = httpRequest(url, { method: 'POST', headers: { 'content-type': chunked.contentType, 'transfer-encoding': 'chunked' } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          for (let at = 0; at < chunked.body.length; at += 1024 * 1024) req.write(chunked.body.subarray(at, at + 1024 * 1024));
          req.end();
        }).catch((error: unknown) => (error as { code?: string }).code ?? 'error');
        assert.ok(streamed === 413 || streamed === 'ECONNRESET' || streamed === 'EPIPE', `a chunked body over the limit: ${streamed}`);
        await eventually(async () => ((await stagedForms()) === 0 ? true : undefined), 10_000, 'staged files removed');
      } finally {
        await s.close();
      }
    });

    test('four mails stream at once; a fifth is 503 until one ends; a body cut short leaves nothing on disk', async () => {
      const s = await startTestServer(dialect, { env: env() });
      const open: ClientRequest[] = [];
      try {
        const channelId = await channelOn(s);
        const url = `${s.baseUrl}/inbound/${channelId}/mail`;
        const { body, contentType } = encodeMultipart(
          [...mailFields('karel@client.test', 'slow', 'slow'), ...signed()],
          [{ field: 'attachment-1', fileName: 'a.bin', contentType: 'application/octet-stream', data: randomBytes(2 * 1024 * 1024) }],
        );
        for (let i = 0; i < 4; i++) {
          const req = httpRequest(url, { method: 'POST', headers: { 'content-type': contentType, 'content-length': String(body.length) } });
          req.on('error', () => undefined);
          req.write(body.subarray(0, 1024 * 1024));
          open.push(req);
        }
        await eventually(async () => ((await stagedForms()) === 4 ? true : undefined), 10_000, 'four bodies staging');
        const fifth = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(body) });
        assert.equal(fifth.status, 503, await fifth.text());
        assert.equal(fifth.headers.get('retry-after'), '60');
        // The clients go away half-way: the service removes what they staged.
        for (const req of open) req.destroy();
        await eventually(async () => ((await stagedForms()) === 0 ? true : undefined), 10_000, 'cut-short bodies removed');
        const again = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(body) });
        assert.equal(again.status, 200, await again.text());
      } finally {
        for (const req of open) req.destroy();
        await s.close();
      }
    });
  });
}
