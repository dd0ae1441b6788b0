import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isGsm7, smsParts } from '../../src/lib/sms-parts.js';
import { smsText } from '../../src/lib/sms-text.js';
import { checkCapabilities } from '../../src/domain/messages/channel-rules.js';
import { SMS_MAX_PARTS } from '../../src/connectors/mobile/definition.js';
import type { Content } from '../../src/schemas/content.js';
import { failure } from '../helpers/api-errors.js';

describe('SMS parts', () => {
  test('GSM-7: 160 characters are one part, 161 are two of 153', () => {
    assert.deepEqual(smsParts('a'.repeat(160)), { encoding: 'gsm7', units: 160, parts: 1 });
    assert.deepEqual(smsParts('a'.repeat(161)), { encoding: 'gsm7', units: 161, parts: 2 });
    assert.equal(smsParts('a'.repeat(306)).parts, 2);
    assert.equal(smsParts('a'.repeat(307)).parts, 3);
    assert.equal(smsParts('a'.repeat(1377)).parts, 9);
  });

  test('GSM-7 extension characters count twice and are never split across parts', () => {
    assert.deepEqual(smsParts('€'.repeat(80)), { encoding: 'gsm7', units: 160, parts: 1 });
    assert.deepEqual(smsParts(`${'a'.repeat(159)}€`), { encoding: 'gsm7', units: 161, parts: 2 });
    // 152 septets, then an escape pair that does not fit the first part's last septet.
    assert.equal(smsParts(`${'a'.repeat(152)}€${'a'.repeat(152)}`).parts, 3);
    assert.equal(smsParts(`${'a'.repeat(151)}€${'a'.repeat(153)}`).parts, 2);
    for (const ch of '^{}\\[~]|€') assert.equal(smsParts(ch).units, 2, ch);
    assert.ok(isGsm7('Hello @ £5 – no'.replace('–', '-')));
    assert.ok(isGsm7('Ærøskøbing ÄÖÑÜ äöñüà ΔΦΓΛΩΠΨΣΘΞ'));
  });

  test('UCS-2: 70 characters are one part, 71 are two of 67', () => {
    assert.deepEqual(smsParts('ř'.repeat(70)), { encoding: 'ucs2', units: 70, parts: 1 });
    assert.deepEqual(smsParts('ř'.repeat(71)), { encoding: 'ucs2', units: 71, parts: 2 });
    assert.equal(smsParts('ř'.repeat(134)).parts, 2);
    assert.equal(smsParts('ř'.repeat(135)).parts, 3);
    // One character outside GSM makes the whole text UCS-2.
    assert.equal(smsParts(`${'a'.repeat(100)}ř`).encoding, 'ucs2');
    assert.equal(smsParts(`${'a'.repeat(100)}ř`).parts, 2);
  });

  test('UCS-2 surrogate pairs count two units and are never split across parts', () => {
    assert.deepEqual(smsParts('😀'.repeat(35)), { encoding: 'ucs2', units: 70, parts: 1 });
    assert.deepEqual(smsParts(`${'😀'.repeat(35)}a`), { encoding: 'ucs2', units: 71, parts: 2 });
    // 66 units, then a pair that does not fit the first part's last unit.
    assert.equal(smsParts(`${'ř'.repeat(66)}😀${'ř'.repeat(66)}`).parts, 3);
    assert.equal(smsParts(`${'ř'.repeat(65)}😀${'ř'.repeat(67)}`).parts, 2);
  });
});

describe('SMS text', () => {
  test('a file is its link; quick replies are numbered choices after the text', () => {
    assert.equal(smsText({ type: 'text', payload: 'Hi' }), 'Hi');
    assert.equal(smsText({ type: 'image', payload: { url: 'https://x.test/a.png' } }), 'https://x.test/a.png');
    const content = {
      type: 'text',
      payload: 'Size?',
      quick_replies: [
        { type: 'text', title: 'Large', payload: 'L' },
        { type: 'text', title: 'Small', payload: 'S' },
      ],
    } as Content;
    assert.equal(smsText(content), 'Size?\n1. Large\n2. Small');
    assert.equal(smsText({ type: 'location', payload: { latitude: 1, longitude: 2 } }), null);
  });
});

describe('mobile send rule', () => {
  const text = (payload: string, extra: Partial<Content> = {}) => ({ type: 'text', payload, ...extra }) as Content;

  test(`a text over ${SMS_MAX_PARTS} parts is refused on content.payload`, () => {
    assert.equal(
      failure(() => checkCapabilities('mobile', text('a'.repeat(1377)))),
      null,
    );
    assert.equal(
      failure(() => checkCapabilities('mobile', text('ř'.repeat(603)))),
      null,
    );
    const f = failure(() => checkCapabilities('mobile', text('ř'.repeat(604))));
    assert.equal(f?.field, 'content.payload');
    assert.match(f!.message, /10 parts in UCS-2/);
    // Quick replies are part of the text that goes out.
    const withChoices = failure(() => checkCapabilities('mobile', text('a'.repeat(1371), { quick_replies: [{ type: 'text', title: 'Yes', payload: 'Y' }] })));
    assert.equal(withChoices?.field, 'content.payload');
    // Other types have no such rule.
    assert.equal(
      failure(() => checkCapabilities('botmsg', text('ř'.repeat(1000)))),
      null,
    );
  });
});
