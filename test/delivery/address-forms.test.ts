import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { ApiClient } from '../helpers/api-client.js';
import { literalRefusal } from '../../src/lib/address-guard.js';
import { isAllowlisted, isBlockedAddress } from '../../src/lib/addresses.js';
import { Receiver } from '../helpers/receiver.js';
import { channelWithWebhook, deliveries } from '../helpers/factories.js';
import { eventually } from '../helpers/waits.js';

/** IPv6 forms that carry an internal IPv4 address, or are internal themselves. */
const REFUSED_V6 = [
  '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
  '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
  '64:ff9b:1::5db8:d822', // local-use NAT64: refused whatever it carries
  '::a9fe:a9fe', // IPv4-compatible
  '::127.0.0.1',
  '::ffff:a9fe:a9fe', // IPv4-mapped
  '::ffff:0:7f00:1', // IPv4-translated
  '::ffff:0:a00:1',
  '2002:a9fe:a9fe::1', // 6to4 of 169.254.169.254
  '2002:0a00:0001::1', // 6to4 of 10.0.0.1
  '2001:0:5db8:d822::80ff:fffe', // Teredo, client 127.0.0.1 (inverted), public server
  '2001:0:a00:1::a247:27dd', // Teredo, server 10.0.0.1, public client
  'fec0::1', // deprecated site-local
  'fed0:1::2',
];

/** Public destinations, plain and embedded. */
const ALLOWED = [
  '93.184.216.34',
  '2606:4700:4700::1111',
  '64:ff9b::5db8:d822', // NAT64 of 93.184.216.34
  '::ffff:5db8:d822',
  '2002:5db8:d822::1',
  '2001:0:5db8:d822::a247:27dd', // Teredo, client 93.184.216.34
];

describe('Address guard: IPv6 forms that embed IPv4', () => {
  test('embedded internal IPv4 addresses and site-local addresses are refused', () => {
    for (const address of REFUSED_V6) {
      assert.equal(isBlockedAddress(address), true, address);
      assert.match(String(literalRefusal(new URL(`http://[${address}]/`), [])), /^Refused to call .*WEBHOOK_ALLOWLIST/, address);
    }
  });

  test('public addresses pass, also when an IPv6 form carries a public IPv4', () => {
    for (const address of ALLOWED) {
      assert.equal(isBlockedAddress(address), false, address);
      const host = address.includes(':') ? `[${address}]` : address;
      assert.equal(literalRefusal(new URL(`http://${host}/`), []), null, address);
    }
  });

  test('what is not an address is refused', () => {
    for (const text of ['', 'example.com', '999.1.1.1', '::g']) assert.equal(isBlockedAddress(text), true, text);
  });

  test('allowlist entries with a port open only that port', () => {
    assert.equal(isAllowlisted('127.0.0.1', ['127.0.0.1:9101'], 9101), true);
    assert.equal(isAllowlisted('127.0.0.1', ['127.0.0.1:9101'], 9102), false);
    assert.equal(isAllowlisted('127.0.0.1', ['127.0.0.1:9101']), false, 'no port given: only entries without a port apply');
    assert.equal(isAllowlisted('::1', ['[::1]:8080'], 8080), true);
    assert.equal(isAllowlisted('localhost', ['localhost:80'], 80), true);
    assert.equal(isAllowlisted('10.1.2.3', ['10.0.0.0/8'], 443), true, 'an entry without a port opens every port');
    assert.equal(literalRefusal(new URL('http://127.0.0.1:9101/x'), ['127.0.0.1:9101']), null);
    assert.notEqual(literalRefusal(new URL('http://127.0.0.1:9102/x'), ['127.0.0.1:9101']), null);
    assert.equal(literalRefusal(new URL('http://127.0.0.1/x'), ['127.0.0.1:80']), null, 'the scheme default port counts');
  });
});

for (const { dialect, skip } of await dialects()) {
  describe(`Webhook URLs with internal addresses in IPv6 forms (${dialect})`, { skip }, () => {
    let db: TestDatabase;
    let receiver: Receiver;
    const servers: TestServer[] = [];
    before(async () => {
      db = await createTestDatabase(dialect);
      receiver = await Receiver.start();
    });
    after(async () => {
      for (const s of servers) await s.close().catch(() => undefined);
      await receiver?.close();
      await db?.drop();
    });

    test('setting such a webhook is refused on create and on update', async () => {
      const s = await startTestServer(dialect, { db });
      servers.push(s);
      const plain = await s.api.post('/v1/channels', { type: 'service_chat', name: 'plain' });
      assert.equal(plain.status, 201, plain.text);
      for (const address of REFUSED_V6) {
        const url = `http://[${address}]/hook`;
        const created = await s.api.post('/v1/channels', { type: 'service_chat', name: 'x', webhook: { url } });
        assert.equal(created.status, 422, `${url}: ${created.text}`);
        assert.equal(created.body.errors[0].field, 'webhook.url');
        const updated = await s.api.patch(`/v1/channels/${plain.body.id}`, { webhook: { url } });
        assert.equal(updated.status, 422, `${url}: ${updated.text}`);
        assert.equal(updated.body.errors[0].field, 'webhook.url');
      }
      await s.close();
      servers.pop();
    });

    test('an allowlist entry with a port opens that port only, when the webhook is set and at delivery', async () => {
      const port = Number(new URL(receiver.origin).port);
      const s = await startTestServer(dialect, { db, workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_ALLOWLIST: `127.0.0.1:${port}` } });
      servers.push(s);
      const other = await s.api.post('/v1/channels', { type: 'service_chat', name: 'x', webhook: { url: `http://127.0.0.1:${port + 1}/other` } });
      assert.equal(other.status, 422, other.text);
      const channel = await channelWithWebhook(s, receiver.url('/port'));
      const current = await s.runtime.services.channels.get(s.accountId, Number(channel.id));
      await s.runtime.store.transaction((tx) =>
        s.runtime.services.outbox.append(tx, { type: 'message_echo', channel: current, contactId: null, data: { channel: { id: channel.id } } }),
      );
      s.runtime.services.outbox.wake();
      await receiver.waitFor((calls) => calls.some((c) => c.path === '/port'));
      await s.close();
      servers.pop();
      receiver.calls.length = 0;
    });

    test('a webhook set while its range was allowed is refused at delivery, and the attempt log shows no resolved address', async () => {
      // An operator allowed these ranges when the webhooks were set (no worker runs meanwhile: nothing may go out).
      const loose = await startTestServer(dialect, { db, env: { WEBHOOK_ALLOWLIST: '64:ff9b::/96,::/96,::ffff:0:0:0/96,2002::/16,fec0::/10,localhost' } });
      servers.push(loose);
      const urls = [
        'http://[64:ff9b::a9fe:a9fe]/',
        'http://[::a9fe:a9fe]/',
        'http://[::127.0.0.1]/',
        'http://[::ffff:0:7f00:1]/',
        'http://[2002:a9fe:a9fe::1]/',
        'http://[fec0::1]/',
      ];
      const channels = [];
      for (const url of urls) channels.push(await channelWithWebhook(loose, url));
      const named = await channelWithWebhook(loose, `http://localhost:${new URL(receiver.origin).port}/named`);
      const token = loose.token;
      const accountId = loose.accountId;
      await loose.close();
      servers.pop();

      const strict = await startTestServer(dialect, { db, workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_ALLOWLIST: '' } });
      servers.push(strict);
      const { services, store } = strict.runtime;
      const all = [...channels, named];
      for (const channel of all) {
        const current = await services.channels.get(accountId, Number(channel.id));
        await store.transaction((tx) =>
          services.outbox.append(tx, { type: 'message_echo', channel: current, contactId: null, data: { channel: { id: channel.id } } }),
        );
      }
      services.outbox.wake();
      const owner: TestServer = { ...strict, api: new ApiClient(strict.origin, token) };
      for (const [i, channel] of all.entries()) {
        const tried = await eventually(async () => {
          const list = await deliveries(owner, channel.id);
          return list[0]?.attempts.length >= 1 ? list[0] : undefined;
        });
        assert.equal(tried.attempts[0].status_code, null);
        const error: string = tried.attempts[0].error;
        if (channel === named) {
          assert.match(error, /^Refused to call localhost: /);
          assert.doesNotMatch(error, /127\.0\.0\.1|::1|\(/, 'the address the name resolved to is not disclosed');
        } else {
          assert.match(error, /^Refused to call [0-9a-f:.]+: .*WEBHOOK_ALLOWLIST/, urls[i]);
        }
      }
      assert.equal(receiver.calls.length, 0);
    });
  });
}
