import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { createMobileConnector } from '../../src/connectors/mobile/connector.js';
import type { ChannelContext, Recipient } from '../../src/connectors/connector.js';

/**
 * The lookup by reference on a busy account (a send retried after a crash asks it whether the
 * provider already took the message): more than a thousand messages since ours, most of them to
 * other numbers and a page and a half to the same one. The answer is yes or no, never "could not
 * tell", because the list is filtered on the provider's side by recipient and time and read to
 * its end.
 */

const ACCESS_KEY = 'live_mobilelookuptestkey0001';
const TARGET = '+420777000001';

const recipient = (phone: string): Recipient => ({ id: '1', externalId: null, phoneNumber: phone, userRef: null, email: null, name: null });

describe('mobile: lookup by reference on a busy provider account', () => {
  const sms = createSmsproviderStandIn({ accessKey: ACCESS_KEY, signingKey: 'signing-key' });
  let connector: ReturnType<typeof createMobileConnector>;
  const channel: ChannelContext = {
    id: '5',
    type: 'mobile',
    mode: 'production',
    config: { sender_id: 'Shop' },
    secrets: { access_token: ACCESS_KEY, signing_key: 'signing-key' },
  };
  let since = 0;
  let targetId = '';

  before(async () => {
    const base = await sms.listen(0);
    connector = createMobileConnector({
      apiUrl: base,
      timeoutMs: 5000,
      signatureHeaderName: 'Smsprovider-Signature-JWT',
      jwtIssuer: 'Smsprovider',
      inboundUrl: (id, endpoint) => `https://parley.example.test/inbound/${id}/${endpoint}`,
      now: Date.now,
    });
    const { sender } = connector.roles;
    since = Date.now();
    const sent = await sender.send(channel, recipient(TARGET), { id: '70001', content: { type: 'text', payload: 'your code is 1234' } });
    assert.ok(sent.ok, JSON.stringify(sent));
    targetId = sent.value.externalIds[0]!;
    // 1,100 messages to other numbers and 150 to the same one, all after ours: ours is the
    // 1,251st newest of the account, past what a fixed read of the newest thousand reaches.
    for (let i = 0; i < 1250; i++) {
      const to = i < 1100 ? `+4207770${String(10_000 + i).padStart(5, '0')}` : TARGET;
      const other = await sender.send(channel, recipient(to), { id: String(80_000 + i), content: { type: 'text', payload: `message ${i}` } });
      assert.ok(other.ok, JSON.stringify(other));
    }
  });
  after(() => sms.close());

  test('a message the provider took is found however many messages came after it', async () => {
    const found = await connector.roles.sentLookup.findSent(channel, '70001', { since, recipient: recipient(TARGET) });
    assert.deepEqual(found, { ok: true, value: { externalIds: [targetId] } });
  });

  test('a message the provider never took is a sure no, not "could not tell"', async () => {
    const found = await connector.roles.sentLookup.findSent(channel, '70002', { since, recipient: recipient(TARGET) });
    assert.deepEqual(found, { ok: true, value: null });
  });

  test('a newer message to the same number, a page and more below the newest, is found as well', async () => {
    // The 1st of the 150 to the same number is the 150th newest of that number's list: page two.
    const found = await connector.roles.sentLookup.findSent(channel, '81100', { since, recipient: recipient(TARGET) });
    assert.equal(found.ok && found.value?.externalIds.length, 1);
  });
});
