import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { automaticMessageType, REPLY_WINDOW_MS } from '../../src/connectors/socialnet_chat/definition/reply-window.js';
import { platformTag, renderMessage, renderMessaging, renderRecipient } from '../../src/connectors/socialnet_chat/render.js';
import { profileChange, renderPersistentMenu } from '../../src/connectors/socialnet_chat/settings.js';
import { parseWebhook, signatureValid } from '../../src/connectors/socialnet_chat/inbound.js';
import { buttonRefOf, callbackData, renderSend } from '../../src/connectors/botmsg/render.js';
import { parseUpdate } from '../../src/connectors/botmsg/inbound.js';
import type { InboundCall } from '../../src/connectors/connector.js';

// The pure parts of the connectors at their boundaries: windows, limits, signatures.

const call = (body: string, headers: Record<string, string> = {}): InboundCall => ({
  method: 'POST',
  endpoint: 'updates',
  url: 'http://127.0.0.1/v1/inbound/1/updates',
  headers,
  query: {},
  rawBody: Buffer.from(body),
});

describe('the 24-hour window and the 24+1 policy', () => {
  const t0 = Date.UTC(2026, 0, 1);
  test('never wrote: update; inside 24 h (inclusive): response', () => {
    assert.equal(automaticMessageType(t0, { lastInboundAt: null, lastSentAt: null }), 'update');
    assert.equal(automaticMessageType(t0 + REPLY_WINDOW_MS, { lastInboundAt: t0, lastSentAt: t0 + 1000 }), 'response');
  });
  test('after the window: one more response, then updates', () => {
    const after = t0 + REPLY_WINDOW_MS + 1;
    assert.equal(automaticMessageType(after, { lastInboundAt: t0, lastSentAt: t0 + REPLY_WINDOW_MS }), 'response');
    assert.equal(automaticMessageType(after + 5, { lastInboundAt: t0, lastSentAt: after }), 'update');
  });
});

describe('socialnet_chat rendering', () => {
  test('tags: current ones upper-cased, retired ones mapped, type picks the messaging type', () => {
    assert.equal(platformTag('human_agent'), 'HUMAN_AGENT');
    assert.equal(platformTag('non_promotional_subscription'), 'ACCOUNT_UPDATE');
    assert.equal(platformTag('GAME_EVENT'), 'GAME_EVENT');
    assert.deepEqual(renderMessaging({ tag: 'reservation_update' }), { messaging_type: 'MESSAGE_TAG', tag: 'CONFIRMED_EVENT_UPDATE' });
    assert.deepEqual(renderMessaging({ type: 'update' }), { messaging_type: 'UPDATE' });
    assert.deepEqual(renderMessaging(undefined), { messaging_type: 'RESPONSE' });
  });
  test('recipient: the platform id first, then user_ref, then phone number with the name', () => {
    const base = { id: '1', externalId: null, phoneNumber: null, userRef: null, email: null, name: null };
    assert.deepEqual(renderRecipient({ ...base, externalId: 'psid', userRef: 'r', phoneNumber: '+1' }), { id: 'psid' });
    assert.deepEqual(renderRecipient({ ...base, userRef: 'r', phoneNumber: '+1' }), { user_ref: 'r' });
    assert.deepEqual(renderRecipient({ ...base, phoneNumber: '+1', firstName: 'A' }), { phone_number: '+1', name: { first_name: 'A' } });
    assert.equal(renderRecipient(base), null);
  });
  test('a card without image or item URL is a button template; without buttons plain text; location is refused', () => {
    const buttons = renderMessage(
      { type: 'structure', payload: { title: 'T', text: 'x', buttons: [{ type: 'postback', title: 'b', payload: 'p' }] } },
      undefined,
    );
    assert.ok(buttons.ok);
    assert.deepEqual(buttons.value, {
      attachment: { type: 'template', payload: { template_type: 'button', text: 'T\nx', buttons: [{ type: 'postback', title: 'b', payload: 'p' }] } },
    });
    assert.deepEqual(renderMessage({ type: 'structure', payload: { title: 'T' } }, undefined), { ok: true, value: { text: 'T' } });
    assert.equal(renderMessage({ type: 'location', payload: { latitude: 1, longitude: 2 } }, undefined).ok, false);
  });
  test('menus flatten to at most 20 items per locale', () => {
    const item = (i: number) => ({ type: 'postback' as const, title: `t${i}`, payload: `p${i}` });
    const nested = (n: number) => ({ type: 'menu' as const, title: 'm', items: Array.from({ length: n }, (_, i) => item(i)) });
    // 20 leaves pass, 21 do not.
    const twenty = [{ locale: 'default', items: [nested(7), nested(7), nested(6)] }];
    const r20 = renderPersistentMenu(twenty as never, null);
    assert.ok(r20.ok && (r20.value[0]!.call_to_actions as unknown[]).length === 20);
    const twentyOne = [{ locale: 'default', items: [nested(7), nested(7), nested(7)] }];
    assert.equal(renderPersistentMenu(twentyOne as never, null).ok, false);
  });
  test('settings changes: set, delete, untouched', () => {
    const change = profileChange({ get_started_button: null, menu: null, domains_whitelist: ['https://a.example'] }, ['menu', 'domains_whitelist']);
    assert.ok(change.ok);
    assert.deepEqual(change.value, { set: { whitelisted_domains: ['https://a.example'] }, remove: ['persistent_menu'] });
  });
  test('signatures: sha256 preferred, sha1 accepted alone, any change of the bytes refused', () => {
    const body = '{"object":"page","entry":[]}';
    const sha256 = `sha256=${createHmac('sha256', 's').update(body).digest('hex')}`;
    assert.equal(signatureValid(call(body, { 'x-hub-signature-256': sha256 }), 's'), true);
    assert.equal(signatureValid(call(body, { 'x-hub-signature-256': sha256.toUpperCase().replace('SHA256=', 'sha256=') }), 's'), true);
    assert.equal(signatureValid(call(`${body}\n`, { 'x-hub-signature-256': sha256 }), 's'), false);
    assert.equal(signatureValid(call(body, { 'x-hub-signature': `sha1=${createHmac('sha1', 's').update(body).digest('hex')}` }), 's'), true);
    // A valid legacy header does not rescue a wrong sha256 one.
    assert.equal(
      signatureValid(call(body, { 'x-hub-signature-256': 'sha256=00', 'x-hub-signature': `sha1=${createHmac('sha1', 's').update(body).digest('hex')}` }), 's'),
      false,
    );
    assert.equal(signatureValid(call(body, { 'x-hub-signature-256': sha256 }), undefined), false);
  });
  test("echoes of the service's own app are dropped, other apps' kept; several attachments get distinct ids", () => {
    const body = JSON.stringify({
      object: 'page',
      entry: [
        {
          id: 'P',
          messaging: [
            { sender: { id: 'P' }, recipient: { id: 'U' }, timestamp: 1, message: { mid: 'm1', is_echo: true, app_id: 42, text: 'own' } },
            { sender: { id: 'P' }, recipient: { id: 'U' }, timestamp: 2, message: { mid: 'm2', is_echo: true, app_id: 7, text: 'inbox' } },
            {
              sender: { id: 'U' },
              recipient: { id: 'P' },
              timestamp: 3,
              message: {
                mid: 'm3',
                attachments: [
                  { type: 'image', payload: { url: 'https://cdn/a.png' } },
                  { type: 'file', payload: { url: 'https://cdn/b.pdf' } },
                ],
              },
            },
          ],
        },
      ],
    });
    const parsed = parseWebhook(call(body, { 'x-hub-signature-256': `sha256=${createHmac('sha256', 's').update(body).digest('hex')}` }), 's', '42');
    assert.ok(parsed.ok);
    assert.deepEqual(
      parsed.events.map((e) => [e.kind, 'externalId' in e ? e.externalId : null]),
      [
        ['echo', 'm2'],
        ['message', 'm3'],
        ['message', 'm3#1'],
      ],
    );
  });
});

describe('botmsg rendering', () => {
  test('callback data: 64 bytes are sent as they are, 65 go by reference', () => {
    assert.equal(callbackData('a'.repeat(64), 0), 'a'.repeat(64));
    assert.equal(callbackData('a'.repeat(65), 2), '~btn:2');
    assert.equal(callbackData('é'.repeat(33), 1), '~btn:1', '66 bytes in 33 characters');
    assert.equal(callbackData('~btn:0', 3), '~btn:3', 'a payload that looks like a reference is sent by reference');
    assert.equal(buttonRefOf('~btn:3'), 3);
    assert.equal(buttonRefOf('PAYLOAD'), null);
  });
  test('one card per message; receipts cannot be sent', () => {
    assert.equal(renderSend('1', { type: 'structure', payload: [{ title: 'a' }, { title: 'b' }] }).ok, false);
    assert.equal(
      renderSend('1', {
        type: 'receipt',
        payload: { recipient_name: 'a', order_number: '1', currency: 'EUR', payment_method: 'c', summary: { total_cost: 1 } },
      }).ok,
      false,
    );
  });
  test('updates: the secret token is compared exactly; group chats and other update types are not reported', () => {
    const group = JSON.stringify({ update_id: 1, message: { message_id: 1, chat: { id: -5, type: 'group' }, from: { id: 1 }, date: 1, text: 'hi' } });
    assert.equal(parseUpdate(call(group, { 'x-secret': 'tok' }), 'X-Secret', 'tok').ok, true);
    const parsed = parseUpdate(call(group, { 'x-secret': 'tok' }), 'X-Secret', 'tok');
    assert.ok(parsed.ok && parsed.events.length === 0);
    assert.equal(parseUpdate(call(group, { 'x-secret': 'tok ' }), 'X-Secret', 'tok').ok, false);
    assert.equal(parseUpdate(call(group, {}), 'X-Secret', undefined).ok, false);
    const edited = JSON.stringify({ update_id: 2, edited_message: { message_id: 1, chat: { id: 5, type: 'private' }, date: 1, text: 'x' } });
    const e = parseUpdate(call(edited, { 'x-secret': 'tok' }), 'X-Secret', 'tok');
    assert.ok(e.ok && e.events.length === 0);
  });
});
