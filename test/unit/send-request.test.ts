import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseContent, truncateChars } from '../../src/domain/messages/request.js';
import { failure } from '../helpers/api-errors.js';

const text = (extra: Record<string, unknown> = {}) => ({ type: 'text', payload: 'Hi', ...extra });
const qr = (n: number, make: (i: number) => unknown = (i) => ({ type: 'text', title: `t${i}`, payload: `p${i}` })) =>
  Array.from({ length: n }, (_, i) => make(i));
const card = (extra: Record<string, unknown> = {}) => ({ title: 'Card', ...extra });
const postback = (i = 0) => ({ type: 'postback', title: `b${i}`, payload: `p${i}` });

describe('content: text', () => {
  test('a non-empty text passes; empty and blank are refused on content.payload', () => {
    assert.equal(
      failure(() => parseContent(text({ payload: 'x' }))),
      null,
    );
    assert.equal(failure(() => parseContent(text({ payload: '' })))?.field, 'content.payload');
    assert.equal(failure(() => parseContent(text({ payload: '   ' })))?.field, 'content.payload');
  });
  test('payload must be a string, type must be known, content must be an object', () => {
    assert.equal(failure(() => parseContent(text({ payload: 5 })))?.field, 'content.payload');
    const unknown = failure(() => parseContent({ type: 'sticker', payload: 'x' }));
    assert.equal(unknown?.field, 'content.type');
    assert.match(unknown!.message, /does not match any allowed value: text, image, video, audio, file, location, structure, receipt/);
    assert.equal(failure(() => parseContent({ payload: 'x' }))?.message, "Missing property 'content.type'.");
    assert.equal(failure(() => parseContent(null))?.message, "Property 'content' cannot be null.");
    assert.equal(failure(() => parseContent(text({ extra: 1 })))?.field, 'content.extra');
  });
});

describe('content: media and location', () => {
  for (const type of ['image', 'video', 'audio', 'file']) {
    test(`${type}: payload.url is required and must be an http(s) URL`, () => {
      assert.equal(
        failure(() => parseContent({ type, payload: { url: 'https://example.com/a.png' } })),
        null,
      );
      assert.equal(failure(() => parseContent({ type, payload: {} }))?.message, "Missing property 'content.payload.url'.");
      assert.equal(failure(() => parseContent({ type, payload: { url: 'ftp://example.com/a' } }))?.field, 'content.payload.url');
      assert.equal(failure(() => parseContent({ type, payload: { url: 'not a url' } }))?.field, 'content.payload.url');
      assert.equal(failure(() => parseContent({ type }))?.field, 'content.payload');
    });
  }
  test('location: latitude -90..90 and longitude -180..180, both required numbers', () => {
    const loc = (latitude: unknown, longitude: unknown) => parseContent({ type: 'location', payload: { latitude, longitude } });
    assert.equal(
      failure(() => loc(90, 180)),
      null,
    );
    assert.equal(
      failure(() => loc(-90, -180)),
      null,
    );
    assert.equal(failure(() => loc(90.000001, 0))?.field, 'content.payload.latitude');
    assert.equal(failure(() => loc(-90.000001, 0))?.field, 'content.payload.latitude');
    assert.equal(failure(() => loc(0, 180.000001))?.field, 'content.payload.longitude');
    assert.equal(failure(() => loc(0, -180.000001))?.field, 'content.payload.longitude');
    assert.equal(failure(() => loc('50', 14))?.field, 'content.payload.latitude');
    assert.equal(failure(() => parseContent({ type: 'location', payload: { latitude: 1 } }))?.message, "Missing property 'content.payload.longitude'.");
  });
});

describe('content: quick replies', () => {
  test('11 pass, 12 are refused', () => {
    assert.equal(
      failure(() => parseContent(text({ quick_replies: qr(11) }))),
      null,
    );
    const f = failure(() => parseContent(text({ quick_replies: qr(12) })));
    assert.equal(f?.field, 'content.quick_replies');
    assert.match(f!.message, /at most 11/);
  });
  test('any content type can carry them', () => {
    assert.equal(
      failure(() => parseContent({ type: 'image', payload: { url: 'https://e.com/a.png' }, quick_replies: qr(1) })),
      null,
    );
  });
  test('a text title of 20 characters stays, 21 is truncated to 20 (surrogate pairs count as one)', () => {
    const twenty = 'a'.repeat(20);
    const c20 = parseContent(text({ quick_replies: [{ type: 'text', title: twenty, payload: 'p' }] }));
    assert.equal((c20.quick_replies![0] as { title: string }).title, twenty);
    const c21 = parseContent(text({ quick_replies: [{ type: 'text', title: `${twenty}b`, payload: 'p' }] }));
    assert.equal((c21.quick_replies![0] as { title: string }).title, twenty);
    assert.equal(truncateChars('😀'.repeat(21), 20), '😀'.repeat(20));
    assert.equal(failure(() => parseContent(text({ quick_replies: [{ type: 'text', title: '', payload: 'p' }] })))?.field, 'content.quick_replies[0].title');
  });
  test('a payload of 1000 characters passes, 1001 is refused naming the item', () => {
    assert.equal(
      failure(() => parseContent(text({ quick_replies: [{ type: 'text', title: 't', payload: 'p'.repeat(1000) }] }))),
      null,
    );
    const f = failure(() => parseContent(text({ quick_replies: [qr(1)[0], { type: 'text', title: 't', payload: 'p'.repeat(1001) }] })));
    assert.equal(f?.field, 'content.quick_replies[1].payload');
    assert.equal(
      failure(() => parseContent(text({ quick_replies: [{ type: 'text', title: 't' }] })))?.message,
      "Missing property 'content.quick_replies[0].payload'.",
    );
  });
  test('image_url must be an http(s) URL', () => {
    assert.equal(
      failure(() => parseContent(text({ quick_replies: [{ type: 'text', title: 't', payload: 'p', image_url: 'https://e.com/i.png' }] }))),
      null,
    );
    assert.equal(
      failure(() => parseContent(text({ quick_replies: [{ type: 'text', title: 't', payload: 'p', image_url: 'javascript:alert(1)' }] })))?.field,
      'content.quick_replies[0].image_url',
    );
  });
  test('the four kinds; the three without fields take none; an unknown kind is refused', () => {
    assert.equal(
      failure(() => parseContent(text({ quick_replies: [{ type: 'location' }, { type: 'email' }, { type: 'phone_number' }, qr(1)[0]] }))),
      null,
    );
    assert.equal(failure(() => parseContent(text({ quick_replies: [{ type: 'email', title: 'x' }] })))?.field, 'content.quick_replies[0].title');
    assert.equal(failure(() => parseContent(text({ quick_replies: [{ type: 'sticker' }] })))?.field, 'content.quick_replies[0].type');
    assert.equal(failure(() => parseContent(text({ quick_replies: [{}] })))?.message, "Missing property 'content.quick_replies[0].type'.");
  });
});

describe('content: structure and buttons', () => {
  test('one card or an array of 1..10 cards; 11 and 0 are refused', () => {
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: card() })),
      null,
    );
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: Array.from({ length: 10 }, () => card()) })),
      null,
    );
    assert.equal(failure(() => parseContent({ type: 'structure', payload: Array.from({ length: 11 }, () => card()) }))?.field, 'content.payload');
    assert.equal(failure(() => parseContent({ type: 'structure', payload: [] }))?.field, 'content.payload');
    assert.equal(failure(() => parseContent({ type: 'structure', payload: 'x' }))?.field, 'content.payload');
  });
  test('a card needs a title or a text; title at most 80', () => {
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: { text: 'only text' } })),
      null,
    );
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: [card(), { image_url: 'https://e.com/i.png' }] }))?.field,
      'content.payload[1].title',
    );
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: card({ title: 't'.repeat(80) }) })),
      null,
    );
    assert.equal(failure(() => parseContent({ type: 'structure', payload: card({ title: 't'.repeat(81) }) }))?.field, 'content.payload.title');
  });
  test('3 buttons per card pass, 4 are refused', () => {
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: card({ buttons: [postback(0), postback(1), postback(2)] }) })),
      null,
    );
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: [card({ buttons: [postback(0), postback(1), postback(2), postback(3)] })] }))?.field,
      'content.payload[0].buttons',
    );
  });
  test('button title at most 20 (refused, not truncated), postback payload at most 1000', () => {
    const one = (b: unknown) => parseContent({ type: 'structure', payload: card({ buttons: [b] }) });
    assert.equal(
      failure(() => one({ type: 'postback', title: 't'.repeat(20), payload: 'p'.repeat(1000) })),
      null,
    );
    assert.equal(failure(() => one({ type: 'postback', title: 't'.repeat(21), payload: 'p' }))?.field, 'content.payload.buttons[0].title');
    assert.equal(failure(() => one({ type: 'postback', title: 't', payload: 'p'.repeat(1001) }))?.field, 'content.payload.buttons[0].payload');
    assert.equal(
      failure(() => one({ type: 'url', title: 't', payload: 'https://example.com' })),
      null,
    );
    assert.equal(failure(() => one({ type: 'url', title: 't', payload: 'example' }))?.field, 'content.payload.buttons[0].payload');
    assert.equal(failure(() => one({ type: 'share', title: 't', payload: 'x' }))?.field, 'content.payload.buttons[0].type');
  });
  test('a phone button is stored in E.164; an impossible number is refused', () => {
    const c = parseContent({ type: 'structure', payload: card({ buttons: [{ type: 'phone', title: 'Call', payload: '+420 601 123 456' }] }) });
    assert.equal((c.payload as { buttons: Array<{ payload: string }> }).buttons[0]!.payload, '+420601123456');
    assert.equal(
      failure(() => parseContent({ type: 'structure', payload: card({ buttons: [{ type: 'phone', title: 'Call', payload: '+42' }] }) }))?.field,
      'content.payload.buttons[0].payload',
    );
  });
});

describe('content: receipt', () => {
  const receipt = { recipient_name: 'Jan', order_number: '1', currency: 'CZK', payment_method: 'card', summary: { total_cost: 10 } };
  test('the required fields pass; a bad currency or missing summary is refused', () => {
    assert.equal(
      failure(() => parseContent({ type: 'receipt', payload: receipt })),
      null,
    );
    assert.equal(failure(() => parseContent({ type: 'receipt', payload: { ...receipt, currency: 'czk' } }))?.field, 'content.payload.currency');
    const { summary: _s, ...noSummary } = receipt;
    assert.equal(failure(() => parseContent({ type: 'receipt', payload: noSummary }))?.message, "Missing property 'content.payload.summary'.");
  });
});
