import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { startTestApp, type TestServer } from '../helpers/runtime.js';
import { capabilitiesOf } from '../../src/channel-types/index.js';
import { CHANNEL_TYPES } from '../../src/schemas/channel-types.js';
import { CONTENT_TYPES } from '../../src/schemas/content.js';
import { createChannel, fakeConnectors, send } from './messages-fixtures.js';
import { CONTENT_SAMPLES as SAMPLES } from '../helpers/content-samples.js';

const CONTACT: Record<string, Record<string, string>> = {
  service_chat: { id: '1' },
  socialnet_chat: { phone_number: '+420601123456' },
  mobile: { phone_number: '+420601123456' },
  rbm: { phone_number: '+420601123456' },
  appmsg: { id: '1' },
  appmsg_business_messages: { phone_number: '+420601123456' },
  botmsg: { id: '1' },
  email: { email: 'a@example.com' },
};

for (const { dialect, skip } of await dialects()) {
  describe(`Capabilities (${dialect})`, { skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestApp(dialect, { connectors: fakeConnectors().registry });
    });
    after(async () => s?.close());

    test("GET /v1/channels/{id}/capabilities shows the declaration of the channel's type", async () => {
      for (const type of CHANNEL_TYPES) {
        const channel = await createChannel(s.api, type);
        const res = await s.api.get(`/v1/channels/${channel}/capabilities`);
        assert.equal(res.status, 200, type);
        const caps = capabilitiesOf(type);
        assert.deepEqual(res.body.channel, { id: channel, type, mode: 'production' });
        assert.deepEqual(res.body.content_types, caps.contentTypes);
        assert.equal(res.body.delivery, caps.delivery);
        assert.equal(res.body.max_text_length, caps.maxTextLength);
        assert.deepEqual(res.body.quick_replies, { max: 11, rendering: caps.quickReplies, types: caps.quickReplyKinds });
        assert.deepEqual(res.body.buttons, { types: caps.buttons, max_per_card: caps.maxButtonsPerCard });
        assert.deepEqual(res.body.notifications, caps.notifications);
        assert.deepEqual(res.body.contact_addressing, caps.contactForms);
        const reserved: Record<string, string[]> = {
          socialnet_chat: ['platform_metadata', 'tag', 'type'],
          appmsg_business_messages: ['time_to_live', 'video_duration', 'video_thumbnail', 'carousel_text', 'template_id', 'template_lang', 'template_params'],
          email: ['email'],
        };
        assert.deepEqual(res.body.reserved_metadata, reserved[type] ?? []);
      }
    });

    test('`sending` tells what a send does now: test, queued, direct or unavailable', async () => {
      const expect: Array<[string, string | undefined, string]> = [
        ['mobile', 'test', 'test'],
        ['mobile', undefined, 'queued'],
        ['email', undefined, 'queued'],
        ['appmsg_business_messages', 'shared', 'queued'],
        ['service_chat', undefined, 'direct'],
        ['socialnet_chat', undefined, 'direct'],
        ['appmsg', undefined, 'unavailable'],
      ];
      for (const [type, mode, sending] of expect) {
        const channel = await createChannel(s.api, type, mode);
        assert.equal((await s.api.get(`/v1/channels/${channel}/capabilities`)).body.sending, sending, `${type} ${mode ?? ''}`);
      }
    });

    test("unknown and another account's channels are 404; a token is required", async () => {
      const channel = await createChannel(s.api, 'mobile', 'test');
      const other = await s.newAccount();
      assert.equal((await other.api.get(`/v1/channels/${channel}/capabilities`)).status, 404);
      assert.equal((await s.api.get('/v1/channels/1/capabilities')).status, 404);
      assert.equal((await s.api.get(`/v1/channels/${channel}/capabilities`, { authorization: '' })).status, 401);
    });

    test('Send Message refuses every content type a channel type does not declare, with 422 on content.type', async () => {
      for (const type of CHANNEL_TYPES) {
        const channel = await createChannel(s.api, type);
        for (const contentType of CONTENT_TYPES) {
          if (capabilitiesOf(type).contentTypes.includes(contentType)) continue;
          const res = await send(s.api, channel, CONTACT[type]!, SAMPLES[contentType]);
          assert.equal(res.status, 422, `${type} / ${contentType}: ${res.text}`);
          assert.equal(res.body.errors[0].field, 'content.type');
          assert.equal(res.body.errors[0].rejected_value, contentType);
        }
      }
    });
  });
}
