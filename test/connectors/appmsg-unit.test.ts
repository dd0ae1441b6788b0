import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InboundCall } from '../../src/connectors/connector.js';
import type { Content } from '../../src/schemas/content.js';
import { parseCallback } from '../../src/connectors/appmsg/inbound.js';
import { markOf, marksOf, renderMessage, trackingData } from '../../src/connectors/appmsg/render.js';
import { parseJson, statusFailure } from '../../src/connectors/appmsg/api.js';
import { AppmsgWebhooks } from '../../sandbox/appmsg/webhooks.js';
import { resolveOptions } from '../../sandbox/appmsg/options.js';
import { stringifyWithBigInts } from '../../sandbox/shared/big-json.js';

// Parsing and rendering without a server: callbacks built and signed with the stand-in's own code
// (its 64-bit tokens written as bare JSON numbers, its HMAC of the body), rendering checked
// against the platform's layout rules.

const HEADER = 'X-Appmsg-Content-Signature';
const TOKEN = '4453b6ac12345678-e02c5f12174805f9-daec9cbb5448c51f';
const signer = new AppmsgWebhooks({} as never, resolveOptions({}));

function call(event: Record<string, unknown>, how: 'header' | 'query' | 'none' = 'header', key = TOKEN): InboundCall {
  const body = stringifyWithBigInts(event);
  const sig = signer.sign(key, body);
  return {
    method: 'POST',
    endpoint: 'events',
    url: 'http://127.0.0.1/v1/inbound/1/events',
    headers: { 'content-type': 'application/json', ...(how === 'header' ? { [HEADER.toLowerCase()]: sig } : {}) },
    query: how === 'query' ? { sig } : {},
    rawBody: Buffer.from(body, 'utf8'),
  };
}

const BIG = 5741311803571721087n;
const user = { id: '01234567890A=', name: 'John McClane', avatar: 'http://avatar.example/1.jpg', country: 'UK', language: 'en', api_version: 1 };

test('the signature is checked on the raw body, from the header or the sig query parameter', () => {
  const event = { event: 'message', timestamp: 1457764197627, message_token: BIG, sender: user, message: { type: 'text', text: 'hi' } };
  assert.equal(parseCallback(call(event), HEADER, TOKEN).ok, true);
  assert.equal(parseCallback(call(event, 'query'), HEADER, TOKEN).ok, true);
  assert.deepEqual(parseCallback(call(event, 'none'), HEADER, TOKEN), { ok: false, status: 403, message: 'The content signature is missing or wrong.' });
  assert.equal(parseCallback(call(event, 'header', 'other'), HEADER, TOKEN).ok, false);
  assert.equal(parseCallback(call(event), HEADER, undefined).ok, false, 'a channel without a token accepts nothing');
  const tampered = call(event);
  tampered.rawBody = Buffer.from(tampered.rawBody.toString('utf8').replace('hi', 'ho'));
  assert.equal(parseCallback(tampered, HEADER, TOKEN).ok, false);
  const garbage = { ...call(event), rawBody: Buffer.from('{not json') };
  garbage.headers = { [HEADER.toLowerCase()]: signer.sign(TOKEN, '{not json') };
  assert.equal((parseCallback(garbage, HEADER, TOKEN) as { status: number }).status, 400, 'a signed body that is not JSON is a 400');
});

test('64-bit message tokens keep every digit; receipts name the message by them', () => {
  const odd = 5741311803571721087n + 2n; // not representable as a double
  const parsed = parseCallback(call({ event: 'delivered', timestamp: 1, message_token: odd, user_id: user.id }), HEADER, TOKEN);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.events, [
    {
      kind: 'status',
      user: { externalId: user.id },
      at: 1,
      report: { messageExternalId: '5741311803571721089', status: 'delivered', final: true },
      eventKey: 'delivered:5741311803571721089',
    },
  ]);
  const seen = parseCallback(call({ event: 'seen', timestamp: 5, message_token: odd, user_id: user.id }), HEADER, TOKEN);
  assert.ok(seen.ok);
  assert.deepEqual(seen.events[0], { kind: 'read', user: { externalId: user.id }, at: 5, watermark: 5, messageExternalId: '5741311803571721089' });
  const failed = parseCallback(call({ event: 'failed', timestamp: 5, message_token: odd, user_id: user.id, desc: 'bad keyboard' }), HEADER, TOKEN);
  assert.ok(failed.ok);
  assert.deepEqual((failed.events[0] as { report: unknown }).report, {
    messageExternalId: '5741311803571721089',
    status: 'failed',
    final: true,
    reason: 'bad keyboard',
  });
  assert.equal((parseJson('{"status":0,"message_token":5741311803571721089}') as { message_token: string }).message_token, '5741311803571721089');
});

test('subscriptions carry the profile; unsubscribed is an opt-out; the registration check reports nothing', () => {
  const sub = parseCallback(call({ event: 'subscribed', timestamp: 9, user, message_token: BIG }), HEADER, TOKEN);
  assert.ok(sub.ok);
  assert.deepEqual(sub.events, [
    {
      kind: 'opt_in',
      optInType: 'subscribed',
      user: { externalId: user.id, name: 'John McClane', profile: { country: 'UK', language: 'en' }, refresh: true, photo: { ref: user.avatar } },
      at: 9,
      eventKey: `subscribed:${BIG}`,
    },
  ]);
  const opened = parseCallback(
    call({ event: 'conversation_started', timestamp: 9, type: 'open', context: 'ad-7', user, subscribed: false, message_token: BIG }),
    HEADER,
    TOKEN,
  );
  assert.ok(opened.ok);
  assert.equal((opened.events[0] as { payload?: string }).payload, 'ad-7');
  const unsub = parseCallback(call({ event: 'unsubscribed', timestamp: 9, user_id: user.id, message_token: BIG }), HEADER, TOKEN);
  assert.ok(unsub.ok);
  assert.deepEqual(unsub.events, [{ kind: 'opt_out', reason: 'unsubscribed', user: { externalId: user.id }, at: 9, eventKey: `unsubscribed:${BIG}` }]);
  const check = parseCallback(call({ event: 'webhook', timestamp: 9, chat_hostname: 'SN-CHAT-05_', message_token: BIG }), HEADER, TOKEN);
  assert.deepEqual(check, { ok: true, events: [] });
});

test('messages: media parts, a caption as a second message, contacts as text; taps told apart by the tracking data', () => {
  const message = (m: Record<string, unknown>) => {
    const parsed = parseCallback(call({ event: 'message', timestamp: 2, message_token: BIG, sender: user, message: m }), HEADER, TOKEN);
    assert.ok(parsed.ok);
    return parsed.events;
  };
  const picture = message({ type: 'picture', media: 'http://media.example/p.png', text: 'my cup', file_name: 'p.png' });
  assert.deepEqual(
    picture.map((e) => [(e as { externalId: string }).externalId, (e as { content: { type: string } }).content.type]),
    [
      [String(BIG), 'image'],
      [`${BIG}#1`, 'text'],
    ],
  );
  assert.deepEqual((message({ type: 'contact', contact: { name: 'J', phone_number: '420601000222' } })[0] as { content: unknown }).content, {
    type: 'text',
    text: '420601000222',
  });
  assert.deepEqual(message({ type: 'sticker', sticker_id: 40133 }), [], 'stickers are not reported');

  const tracking = trackingData({ q: [markOf('SIZE_L')], p: [markOf('ORDER')], u: [markOf('https://example.com/menu')] });
  const quick = message({ type: 'text', text: 'SIZE_L', tracking_data: tracking })[0] as { content: unknown };
  assert.deepEqual(quick.content, { type: 'text', text: 'SIZE_L', quickReplyPayload: 'SIZE_L' });
  const postback = message({ type: 'text', text: 'ORDER', tracking_data: tracking })[0] as { kind: string; payload: string; eventKey: string };
  assert.deepEqual([postback.kind, postback.payload, postback.eventKey], ['postback', 'ORDER', `message:${BIG}`]);
  assert.deepEqual(message({ type: 'text', text: 'https://example.com/menu', tracking_data: tracking }), []);
  const typed = message({ type: 'text', text: 'SIZE_L', tracking_data: 'order-7' })[0] as { content: unknown };
  assert.deepEqual(typed.content, { type: 'text', text: 'SIZE_L' }, "another sender's tracking data is not ours");
});

test('rendering: every card fills its group of 7 rows, keyboards, tracking data within the platform limit', () => {
  const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'postback' as const, title: `B${i}`, payload: `P${i}` }));
  const shapes = [
    { title: 'only title' },
    { image_url: 'https://example.com/i.png' },
    { title: 't', text: 'x', image_url: 'https://example.com/i.png', buttons: buttons(3) },
    { text: 'x', buttons: buttons(3) },
    { image_url: 'https://example.com/i.png', buttons: buttons(3) },
    { buttons: buttons(2) },
  ];
  const { body } = renderMessage({ type: 'structure', payload: shapes });
  const cells = (body.rich_media as { Buttons: Array<{ Rows: number; Columns: number }> }).Buttons;
  assert.equal(
    cells.reduce((n, c) => n + c.Rows, 0),
    shapes.length * 7,
  );
  assert.ok(cells.every((c) => c.Columns === 6 && c.Rows >= 1 && c.Rows <= 7));

  const quick: Content = {
    type: 'text',
    payload: 'pick',
    quick_replies: Array.from({ length: 11 }, (_, i) => ({ type: 'text' as const, title: `T${i}`, payload: 'p'.repeat(999) + String(i % 10) })),
  };
  const rendered = renderMessage(quick).body;
  assert.equal((rendered.keyboard as { Buttons: unknown[] }).Buttons.length, 11);
  assert.ok(String(rendered.tracking_data).length <= 4000);
  assert.equal(marksOf(rendered.tracking_data).q.length, 10, 'duplicates listed once');
  assert.deepEqual(renderMessage({ type: 'location', payload: { latitude: 1, longitude: 2 } }).body, {
    type: 'location',
    location: { lat: 1, lon: 2 },
    min_api_version: 1,
  });
  assert.deepEqual(renderMessage({ type: 'file', payload: { url: 'https://example.com/docs/terms.pdf' } }).sizeOf, {
    url: 'https://example.com/docs/terms.pdf',
    kind: 'file',
  });
});

test('status codes: their meaning in the failure, rate limits retryable', () => {
  const six = statusFailure(6, 'receiverNotSubscribed');
  assert.deepEqual([six.code, six.retryable], ['6', false]);
  assert.match(six.message, /not subscribed/);
  const twelve = statusFailure(12, 'Too many requests');
  assert.deepEqual([twelve.code, twelve.retryable], ['rate_limited', true]);
  assert.match(statusFailure(99, 'new').message, /status 99, new/);
});
