import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { openChat, type TestChatClient } from './helpers/chat-clients.js';

const PAGE = 'https://shop.example.com';

// Keys a browser chooses (content types, event names) must never reach
// what objects inherit: each is answered as an unknown value, in the chat's error format.
describe('Web chat: client-given keys are looked up as own properties only', () => {
  let s: TestServer;
  let client: TestChatClient;
  before(async () => {
    s = await startTestServer('sqlite');
    const { body } = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat' });
    await s.api.patch(`/v1/channels/${body.id}/settings`, { domains_whitelist: [PAGE] });
    client = (await openChat(s.origin, { channelId: body.id, origin: PAGE })).client;
  });
  after(async () => {
    client?.close();
    await s?.close();
  });

  const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

  for (const type of INHERITED) {
    test(`message_client with content.type '${type}' is a 422 naming content.type`, async () => {
      const ack = await client.request('message_client', { content: { type, payload: 'x' } });
      assert.equal(ack.error_code, 422, JSON.stringify(ack));
      assert.equal(ack.details.field, 'content.type');
      assert.match(ack.details.message, /does not match any allowed value: text, image, video, audio, file, location/);
    });
  }

  for (const event of INHERITED) {
    test(`an unknown event named '${event}' is acknowledged with a 400`, async () => {
      const ack = await client.request(event, {});
      assert.equal(ack.error_code, 400, JSON.stringify(ack));
      assert.match(ack.details.message, /Unknown event/);
      // The connection goes on working.
      const next = await client.request('message_client', { content: { type: 'text', payload: 'still here' } });
      assert.equal(next.direction, 'sent', JSON.stringify(next));
    });
  }
});
