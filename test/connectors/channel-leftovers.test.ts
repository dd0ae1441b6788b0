import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dialects } from '../helpers/databases.js';
import type { WebhookReceiver } from '../helpers/webhooks.js';
import { http, SECRET_HEADER, startHarness, type Harness, type JsonAnswer } from './helpers/harness.js';

/** Every file under a folder, with its bytes. */
function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { path, bytes: readFileSync(path) };
    });
}

for (const { dialect, skip } of await dialects()) {
  describe(`What a deleted channel leaves, and what its inbound URL tells (${dialect})`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(dialect);
    });
    after(async () => h?.close());

    /** A new user of the page sends a file; answers the URL the service serves it from. */
    async function userSendsFile(page: { pageId: string; hook: WebhookReceiver }, bytes: Buffer): Promise<string> {
      const user = await h.snSandbox(`/pages/${page.pageId}/users`, { first_name: 'Jana' });
      assert.equal(user.status, 201, user.text);
      const name = `${bytes.toString('hex').slice(0, 12)}.pdf`;
      const sent = await h.snSandbox(`/pages/${page.pageId}/users/${user.body.user.psid}/attachments`, {
        type: 'file',
        file_name: name,
        content_type: 'application/pdf',
        content_base64: bytes.toString('base64'),
      });
      assert.equal(sent.body.webhook.status, 200, sent.text);
      const event = await page.hook.waitFor('message_received', (e) => e.data.content.type === 'file' && e.data.content.payload.url.endsWith(`/${name}`));
      return event.data.content.payload.url;
    }

    test("Delete Channel removes the stored bytes of all its contacts' files; their URLs answer 404", async () => {
      const filesDir = h.s.runtime.config.filesDir;
      const page = await h.connectPage('Leaving');
      const kept = await h.connectPage('Staying');
      const first = Buffer.from(`%PDF-1.4 first contact ${dialect} ${Date.now()}`);
      const second = Buffer.from(`%PDF-1.4 second contact ${dialect} ${Date.now()}`);
      const other = Buffer.from(`%PDF-1.4 another channel ${dialect} ${Date.now()}`);
      const urls = [await userSendsFile(page, first), await userSendsFile(page, second)];
      const keptUrl = await userSendsFile(kept, other);
      const stored = (bytes: Buffer) => filesUnder(filesDir).filter((f) => f.bytes.equals(bytes)).length;
      for (const url of [...urls, keptUrl]) assert.equal((await fetch(url)).status, 200, url);
      assert.equal(stored(first), 1);
      assert.equal(stored(second), 1);

      const deleted = await h.s.api.delete(`/v1/channels/${page.channelId}`);
      assert.equal(deleted.status, 204, deleted.text);
      assert.equal(stored(first), 0, "the first contact's bytes are gone from the data folder");
      assert.equal(stored(second), 0, "the second contact's bytes are gone from the data folder");
      for (const url of urls) {
        const res = await fetch(url);
        assert.equal(res.status, 404, url);
        assert.equal(((await res.json()) as any).errors[0].message, 'File not found.');
      }
      // Another channel's files stay.
      assert.equal(stored(other), 1);
      assert.equal((await fetch(keptUrl)).status, 200);
    });

    test("a channel's inbound URL answers alike for unknown, malformed, deleted, other-type and other accounts' channels", async () => {
      const bot = async (api: typeof h.s.api, username: string) => {
        const made = await h.bmSandbox('/bots', { username, first_name: 'Bot' });
        assert.equal(made.status, 201, made.text);
        const res = await api.post('/v1/channels', { type: 'botmsg', name: username, botmsg: { access_token: made.body.token } });
        assert.equal(res.status, 201, res.text);
        const secret = (await h.bmSandbox(`/bots/${made.body.bot.id}/webhook`)).body.webhook.secretToken as string;
        return { channelId: res.body.id as string, secret };
      };
      const mine = await bot(h.s.api, 'own_bot');
      const gone = await bot(h.s.api, 'gone_bot');
      assert.equal((await h.s.api.delete(`/v1/channels/${gone.channelId}`)).status, 204);
      const otherAccount = await h.s.newAccount();
      const theirs = await bot(otherAccount.api, 'their_bot');
      const chat = await h.s.api.post('/v1/channels', { type: 'service_chat', name: 'Chat' });
      const page = await h.connectPage('Page');
      const update = JSON.stringify({
        update_id: 1,
        message: { message_id: 1, from: { id: 9, is_bot: false, first_name: 'X' }, chat: { id: 9, type: 'private' }, date: 1700000000, text: 'hi' },
      });
      const post = (channelId: string, secret?: string, endpoint = 'updates') =>
        http('POST', `${h.s.baseUrl}/inbound/${channelId}/${endpoint}`, update, secret === undefined ? {} : { [SECRET_HEADER]: secret });

      const cases: Record<string, JsonAnswer> = {
        unknown: await post('999999999', mine.secret),
        malformed: await post('not-an-id', mine.secret),
        deleted: await post(gone.channelId, gone.secret),
        'service_chat channel': await post(chat.body.id, mine.secret),
        'socialnet_chat channel': await post(page.channelId, mine.secret),
        "another account's channel, with this account's secret": await post(theirs.channelId, mine.secret),
        "another account's channel, without a secret": await post(theirs.channelId),
        'an endpoint the type does not have': await post(mine.channelId, mine.secret, 'other'),
      };
      const shape = (a: JsonAnswer) => ({ status: a.status, body: { ...a.body, timestamp: typeof a.body.timestamp } });
      const expected = {
        status: 404,
        body: { timestamp: 'string', status: { code: '404', message: 'Not Found' }, errors: [{ message: 'Channel not found.' }] },
      };
      for (const [name, answer] of Object.entries(cases)) assert.deepEqual(shape(answer), expected, name);
      assert.equal(await contactsOf(theirs.channelId, otherAccount.api), '0');
      // The channel's own platform with its own secret is still heard.
      assert.equal((await post(mine.channelId, mine.secret)).status, 200);
    });

    async function contactsOf(channelId: string, api: typeof h.s.api): Promise<string | null> {
      return (await api.get(`/v1/channels/${channelId}/contacts`)).headers.get('x-total-count');
    }
  });
}
