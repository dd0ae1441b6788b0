import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import type { LookupAddress } from 'node:dns';
import { dialects, createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { guardedLookup, literalRefusal, type Resolver } from '../../src/lib/address-guard.js';
import { isBlockedAddress } from '../../src/lib/addresses.js';
import { Receiver } from '../helpers/receiver.js';
import { channelWithWebhook, deliveryOf } from '../helpers/factories.js';
import { eventually, expectQuiet } from '../helpers/waits.js';

/** Runs the guarded lookup against a fixed DNS table. */
function resolveWith(table: Record<string, string[]>, allowlist: string[], host: string): Promise<LookupAddress[]> {
  const resolver: Resolver = async (name) => (table[name] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const look = guardedLookup({ allowlist, setting: 'WEBHOOK_ALLOWLIST', resolve: resolver });
  return new Promise((resolve, reject) => {
    look(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses as LookupAddress[])));
  });
}

describe('SSRF guard: addresses after DNS resolution', () => {
  const table = {
    'public.example': ['93.184.216.34'],
    'loop.example': ['127.0.0.1'],
    'private.example': ['10.0.0.7'],
    'metadata.example': ['169.254.169.254'],
    'v6loop.example': ['::1'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'ula.example': ['fd00::1'],
    'mixed.example': ['10.0.0.8', '93.184.216.35'],
    'cgnat.example': ['100.64.1.1'],
  };

  test('public addresses pass; loopback, private, link-local/metadata, mapped and unique-local are refused', async () => {
    assert.deepEqual(
      (await resolveWith(table, [], 'public.example')).map((a) => a.address),
      ['93.184.216.34'],
    );
    for (const host of ['loop.example', 'private.example', 'metadata.example', 'v6loop.example', 'mapped.example', 'ula.example', 'cgnat.example']) {
      await assert.rejects(resolveWith(table, [], host), /Refused to call .* WEBHOOK_ALLOWLIST/, host);
    }
  });

  test('a name with a public and a private address connects only to the public one', async () => {
    assert.deepEqual(
      (await resolveWith(table, [], 'mixed.example')).map((a) => a.address),
      ['93.184.216.35'],
    );
  });

  test('the allowlist opens a host name, an address or a CIDR range, and nothing else', async () => {
    assert.deepEqual(
      (await resolveWith(table, ['loop.example'], 'loop.example')).map((a) => a.address),
      ['127.0.0.1'],
    );
    assert.deepEqual(
      (await resolveWith(table, ['127.0.0.1'], 'loop.example')).map((a) => a.address),
      ['127.0.0.1'],
    );
    assert.deepEqual(
      (await resolveWith(table, ['10.0.0.0/24'], 'private.example')).map((a) => a.address),
      ['10.0.0.7'],
    );
    await assert.rejects(resolveWith(table, ['10.0.1.0/24'], 'private.example'));
    await assert.rejects(resolveWith(table, ['loop.example'], 'metadata.example'));
  });

  test('literal addresses in a URL are checked before connecting', () => {
    assert.match(String(literalRefusal(new URL('http://127.0.0.1:9/x'), [])), /Refused/);
    assert.match(String(literalRefusal(new URL('http://169.254.169.254/latest/meta-data'), [])), /Refused/);
    assert.match(String(literalRefusal(new URL('http://[::1]:8080/'), [])), /Refused/);
    assert.match(String(literalRefusal(new URL('http://[::ffff:10.0.0.1]/'), [])), /Refused/);
    assert.equal(literalRefusal(new URL('http://93.184.216.34/'), []), null);
    assert.equal(literalRefusal(new URL('http://127.0.0.1:9/x'), ['127.0.0.1']), null);
    assert.equal(literalRefusal(new URL('http://example.com/'), []), null, 'names are checked at lookup');
  });
});

/** A host name of this machine that resolves to a loopback or private address, if there is one. */
async function localName(): Promise<string | null> {
  for (const name of [hostname(), 'vm']) {
    try {
      const addresses = await lookup(name, { all: true });
      if (name !== 'localhost' && addresses.length > 0 && addresses.every((a) => isBlockedAddress(a.address))) return name;
    } catch {
      // not resolvable here
    }
  }
  return null;
}

const name = await localName();

for (const { dialect, skip } of await dialects()) {
  describe(`SSRF guard in the service (${dialect})`, { skip }, () => {
    let receiver: Receiver;
    let db: TestDatabase;
    const servers: TestServer[] = [];
    const start = async (allowlist: string) => {
      const s = await startTestServer(dialect, { db, workers: true, env: { WORKER_POLL_MS: '20', WEBHOOK_ALLOWLIST: allowlist } });
      servers.push(s);
      return s;
    };
    before(async () => {
      receiver = await Receiver.start();
      db = await createTestDatabase(dialect);
    });
    after(async () => {
      await receiver?.close();
      for (const s of servers) await s.close().catch(() => undefined);
      await db?.drop();
    });

    test('by default a literal private, loopback or metadata address is refused when the webhook is set', async () => {
      const s = await start('');
      for (const url of [
        receiver.url('/x'),
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]:8080/',
        'http://10.1.2.3/hook',
        'http://localhost:8080/',
      ]) {
        const res = await s.api.post('/v1/channels', { type: 'service_chat', name: 'x', webhook: { url } });
        assert.equal(res.status, 422, url);
        assert.equal(res.body.errors[0].field, 'webhook.url');
      }
      await s.close();
      servers.pop();
    });

    test(
      'a name that resolves to a loopback address is refused at delivery time, and the allowlist opens it',
      { skip: name ? false : 'no local host name resolves to a private address here' },
      async () => {
        const url = `http://${name}:${new URL(receiver.origin).port}/named`;
        const strict = await start('');
        const channel = await channelWithWebhook(strict, url);
        const { services, store } = strict.runtime;
        const current = await services.channels.get(strict.accountId, Number(channel.id));
        const event = await store.transaction((tx) =>
          services.outbox.append(tx, { type: 'message_echo', channel: current, contactId: null, data: { channel: { id: channel.id } } }),
        );
        services.outbox.wake();
        const d = await eventually(async () => {
          const x = await deliveryOf(strict, channel.id, event.deliveryId!);
          return x.attempts.length === 1 ? x : undefined;
        });
        assert.equal(d.status, 'pending');
        assert.equal(d.attempts[0].status_code, null);
        assert.match(d.attempts[0].error, new RegExp(`Refused to call ${name}: `));
        assert.doesNotMatch(d.attempts[0].error, /127\.|::1/, 'the resolved address is not shown');
        await expectQuiet(50, 'a refused address is never called');
        assert.equal(receiver.calls.filter((c) => c.path === '/named').length, 0);
        await strict.close();
        servers.pop();

        // Same database, an operator allows the loopback range: the retry goes through.
        const open = await start('127.0.0.0/8');
        await open.api.post(`/v1/channels/${channel.id}/webhook/deliveries/${event.deliveryId}/redeliver`, undefined, {
          authorization: `Bearer ${strict.token}`,
        });
        await receiver.waitFor((calls) => calls.some((c) => c.path === '/named'));
        // Its worker must not stay on the shared database: it would deliver the next test's events.
        await open.close();
        servers.pop();
      },
    );

    test('a literal address allowed when it was set is refused at delivery once the allowlist no longer has it', async () => {
      const loose = await start('127.0.0.1');
      const channel = await channelWithWebhook(loose, receiver.url('/literal'));
      const token = loose.token;
      await loose.close();
      servers.pop();

      const strict = await start('');
      const { services, store } = strict.runtime;
      const account = (await store.channels.findAnyAccount(Number(channel.id)))!.account_id;
      const current = await services.channels.get(account, Number(channel.id));
      const event = await store.transaction((tx) =>
        services.outbox.append(tx, { type: 'message_echo', channel: current, contactId: null, data: { channel: { id: channel.id } } }),
      );
      services.outbox.wake();
      const res = await eventually(async () => {
        const list = await strict.api.get(`/v1/channels/${channel.id}/webhook/deliveries`, { authorization: `Bearer ${token}` });
        const x = list.body.find((d: any) => d.id === event.deliveryId);
        return x?.attempts.length === 1 ? x : undefined;
      });
      assert.match(res.attempts[0].error ?? JSON.stringify(res), /Refused to call 127\.0\.0\.1/);
      assert.equal(receiver.calls.filter((c) => c.path === '/literal').length, 0);
    });
  });
}
