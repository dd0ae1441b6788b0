import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWebhook } from '../../src/connectors/socialnet_chat/inbound.js';
import { socialnetChat as sn } from '../helpers/stand-in-fixtures.js';

// socialnet_chat's webhook parsing over calls the stand-in's code builds and signs (see
// test/helpers/stand-in-fixtures.ts): the unit level of what socialnet_chat.test.ts drives end to end.

const SECRET = 'app-secret-of-the-test-app';
const APP_ID = '700100200300400';
const PAGE = '1200300400';
const USER = '5500660077';

describe('socialnet_chat webhooks as the stand-in sends them', () => {
  test('text with non-ASCII and "/" arrives escaped and signed over those bytes; the parsed text is the original', () => {
    const text = 'Dobrý den, máte 44/45? 👟';
    const call = sn.webhookCall(SECRET, PAGE, [sn.userMessage(PAGE, USER, { mid: 'm.1', text, quick_reply: { payload: 'SIZE_44' } }, 1_700_000_000_000)]);
    assert.ok(!call.rawBody.toString('utf8').includes('á'), 'the stand-in escapes non-ASCII like the platform');
    const parsed = parseWebhook(call, SECRET, APP_ID);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.events, [
      {
        channelKey: PAGE,
        at: 1_700_000_000_000,
        kind: 'message',
        user: { externalId: USER },
        externalId: 'm.1',
        content: { type: 'text', text, quickReplyPayload: 'SIZE_44' },
      },
    ]);
  });

  test('location and attachments: one message per part, the first keeps the platform id', () => {
    const message = {
      mid: 'm.2',
      attachments: [
        { type: 'location', payload: { coordinates: { lat: 50.08, long: 14.42 } } },
        { type: 'image', payload: { url: 'http://127.0.0.1:1/media/photo.png' } },
      ],
    };
    const parsed = parseWebhook(sn.webhookCall(SECRET, PAGE, [sn.userMessage(PAGE, USER, message)]), SECRET, APP_ID);
    assert.ok(parsed.ok);
    assert.deepEqual(
      parsed.events.map((e) => ('content' in e ? [e.kind, e.externalId, e.content] : [e.kind])),
      [
        ['message', 'm.2', { type: 'location', latitude: 50.08, longitude: 14.42 }],
        ['message', 'm.2#1', { type: 'image', media: { ref: 'http://127.0.0.1:1/media/photo.png' } }],
      ],
    );
  });

  test("deliveries and reads carry the platform's watermark; deliveries name the messages", () => {
    const now = 1_700_000_100_000;
    const parsed = parseWebhook(
      sn.webhookCall(SECRET, PAGE, [sn.deliveryEvent(PAGE, USER, ['m.a', 'm.b'], now - 5, now), sn.readEvent(PAGE, USER, now - 1, now)]),
      SECRET,
      APP_ID,
    );
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.events, [
      { channelKey: PAGE, at: now, kind: 'delivered', user: { externalId: USER }, messageIds: ['m.a', 'm.b'], watermark: now - 5 },
      { channelKey: PAGE, at: now, kind: 'read', user: { externalId: USER }, watermark: now - 1 },
    ]);
  });

  test("echoes: the service's own app is dropped, a page admin's message from the inbox is reported", () => {
    const sent = { mid: 'm.e', pageId: PAGE, message: { text: 'Sent from the inbox' }, sentAt: 1_700_000_200_000 };
    const own = parseWebhook(sn.webhookCall(SECRET, PAGE, [sn.echoEvent(sent, USER, APP_ID)]), SECRET, APP_ID);
    assert.deepEqual(own, { ok: true, events: [] });
    const inbox = parseWebhook(sn.webhookCall(SECRET, PAGE, [sn.echoEvent(sent, USER, '100000000000001')]), SECRET, APP_ID);
    assert.ok(inbox.ok);
    assert.deepEqual(
      inbox.events.map((e) => [e.kind, e.user, 'content' in e ? e.content : null]),
      [['echo', { externalId: USER }, { type: 'text', text: 'Sent from the inbox' }]],
    );
  });

  test('a call signed with another secret, or changed after signing, is refused with 403', () => {
    const call = sn.webhookCall('another-secret', PAGE, [sn.userMessage(PAGE, USER, { mid: 'm.3', text: 'hi' })]);
    const wrong = parseWebhook(call, SECRET, APP_ID);
    assert.equal(wrong.ok, false);
    assert.equal(!wrong.ok && wrong.status, 403);
    const good = sn.webhookCall(SECRET, PAGE, [sn.userMessage(PAGE, USER, { mid: 'm.3', text: 'hi' })]);
    const changed = { ...good, rawBody: Buffer.from(good.rawBody.toString('utf8').replace('hi', 'ho')) };
    const tampered = parseWebhook(changed, SECRET, APP_ID);
    assert.equal(!tampered.ok && tampered.status, 403);
  });
});
