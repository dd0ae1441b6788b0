import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCapabilities, checkMetadata } from '../../src/domain/messages/channel-rules.js';
import { capabilitiesOf } from '../../src/channel-types/index.js';
import { MESSAGE_TAGS } from '../../src/connectors/socialnet_chat/definition/metadata.js';
import { CHANNEL_TYPES } from '../../src/schemas/channel-types.js';
import { CONTENT_TYPES, type Content } from '../../src/schemas/content.js';
import { parseContent } from '../../src/domain/messages/request.js';
import { failure } from '../helpers/api-errors.js';
import { CONTENT_SAMPLES as SAMPLES } from '../helpers/content-samples.js';

/** What a type needs in `metadata` to send some content (a business-message video shows its length and a preview picture). */
const NEEDED_METADATA: Partial<Record<string, Partial<Record<string, Record<string, unknown>>>>> = {
  appmsg_business_messages: { video: { video_duration: 30, video_thumbnail: 'https://example.com/preview.jpg' } },
};

describe('capabilities', () => {
  test('every type sends what it declares and is refused the rest on content.type', () => {
    for (const type of CHANNEL_TYPES) {
      for (const contentType of CONTENT_TYPES) {
        const content = parseContent(SAMPLES[contentType]);
        const metadata = NEEDED_METADATA[type]?.[contentType];
        const f = failure(() => checkCapabilities(type, content, metadata as Parameters<typeof checkCapabilities>[2]));
        if (capabilitiesOf(type).contentTypes.includes(contentType)) assert.equal(f, null, `${type} should send ${contentType}`);
        else assert.equal(f?.field, 'content.type', `${type} should refuse ${contentType}`);
      }
    }
  });
  test('socialnet_chat cannot send location', () => {
    const f = failure(() => checkCapabilities('socialnet_chat', parseContent(SAMPLES.location)));
    assert.equal(f?.field, 'content.type');
    assert.match(f!.message, /cannot send content of type 'location'/);
  });
  test('text length is the platform limit: mobile 1377 passes, 1378 is refused', () => {
    const at = (n: number) => ({ type: 'text', payload: 'a'.repeat(n) }) as Content;
    assert.equal(
      failure(() => checkCapabilities('mobile', at(1377))),
      null,
    );
    assert.equal(failure(() => checkCapabilities('mobile', at(1378)))?.field, 'content.payload');
    assert.equal(
      failure(() => checkCapabilities('socialnet_chat', at(2000))),
      null,
    );
    assert.equal(failure(() => checkCapabilities('socialnet_chat', at(2001)))?.field, 'content.payload');
    // Characters, not UTF-16 units: 2000 emoji fit the limit of 2000.
    assert.equal(
      failure(() => checkCapabilities('socialnet_chat', { type: 'text', payload: '😀'.repeat(2000) })),
      null,
    );
    // On mobile the SMS parts decide as well (test/unit/sms-parts.test.ts): 1377 emoji are far more than nine parts.
    assert.equal(failure(() => checkCapabilities('mobile', { type: 'text', payload: '😀'.repeat(1377) }))?.field, 'content.payload');
  });
  test('quick-reply kinds a platform cannot show are refused naming the item', () => {
    const content = parseContent({ type: 'text', payload: 'Hi', quick_replies: [{ type: 'text', title: 't', payload: 'p' }, { type: 'location' }] });
    assert.equal(
      failure(() => checkCapabilities('service_chat', content)),
      null,
    );
    assert.equal(failure(() => checkCapabilities('mobile', content))?.field, 'content.quick_replies[1].type');
    // socialnet_chat's platform removed the location quick reply.
    assert.equal(failure(() => checkCapabilities('socialnet_chat', content))?.field, 'content.quick_replies[1].type');
  });
  test('button types and counts per card follow the type', () => {
    const twoButtons = parseContent({
      type: 'structure',
      payload: {
        title: 'c',
        buttons: [
          { type: 'url', title: 'a', payload: 'https://e.com' },
          { type: 'url', title: 'b', payload: 'https://e.com' },
        ],
      },
    });
    assert.equal(failure(() => checkCapabilities('appmsg_business_messages', twoButtons))?.field, 'content.payload.buttons');
    const postback = parseContent({ type: 'structure', payload: [{ title: 'c' }, { title: 'd', buttons: [{ type: 'postback', title: 'a', payload: 'x' }] }] });
    assert.equal(failure(() => checkCapabilities('email', postback))?.field, 'content.payload[1].buttons[0].type');
    assert.equal(
      failure(() => checkCapabilities('socialnet_chat', postback)),
      null,
    );
    const seven = parseContent({ type: 'structure', payload: Array.from({ length: 7 }, () => ({ title: 'c' })) });
    assert.equal(failure(() => checkCapabilities('appmsg', seven))?.field, 'content.payload');
  });
});

describe('reserved metadata keys (socialnet_chat)', () => {
  test('platform_metadata: 1000 characters pass, 1001 are refused, it must be a string', () => {
    assert.equal(
      failure(() => checkMetadata('socialnet_chat', { platform_metadata: 'm'.repeat(1000) })),
      null,
    );
    assert.equal(failure(() => checkMetadata('socialnet_chat', { platform_metadata: 'm'.repeat(1001) }))?.field, 'metadata.platform_metadata');
    assert.equal(failure(() => checkMetadata('socialnet_chat', { platform_metadata: 5 }))?.field, 'metadata.platform_metadata');
  });
  test('tag: stored in lower case, legacy upper case accepted, unknown refused', () => {
    assert.deepEqual(checkMetadata('socialnet_chat', { tag: 'SHIPPING_UPDATE', other: 1 }), { tag: 'shipping_update', other: 1 });
    assert.deepEqual(checkMetadata('socialnet_chat', { tag: 'human_agent' }), { tag: 'human_agent' });
    assert.ok(MESSAGE_TAGS.includes('non_promotional_subscription'));
    assert.equal(failure(() => checkMetadata('socialnet_chat', { tag: 'promotion' }))?.field, 'metadata.tag');
    assert.equal(failure(() => checkMetadata('socialnet_chat', { tag: null }))?.message, "Property 'metadata.tag' cannot be null.");
  });
  test('type: response or update; not together with a tag', () => {
    assert.equal(
      failure(() => checkMetadata('socialnet_chat', { type: 'response' })),
      null,
    );
    assert.equal(
      failure(() => checkMetadata('socialnet_chat', { type: 'update' })),
      null,
    );
    assert.equal(failure(() => checkMetadata('socialnet_chat', { type: 'reply' }))?.field, 'metadata.type');
    const both = failure(() => checkMetadata('socialnet_chat', { type: 'update', tag: 'account_update' }));
    assert.equal(both?.field, 'metadata.type');
    assert.match(both!.message, /together with 'metadata.tag'/);
  });
  test("on other channel types the same keys are the client's own data", () => {
    const metadata = { tag: 'ANYTHING', type: 'whatever', platform_metadata: 'm'.repeat(2000) };
    assert.deepEqual(checkMetadata('mobile', metadata), metadata);
    assert.equal(checkMetadata('socialnet_chat', undefined), undefined);
  });
});
