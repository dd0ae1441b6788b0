/**
 * socialnet_chat against the platform's own published shapes, without the stand-in. Every payload
 * below is transcribed from the platform's public reference (the messaging platform's webhook
 * event reference pages, the Send API and template references, the user profile and access-token
 * debug references), with its placeholders (<PSID>, <PAGE_ID>, ...) replaced by concrete ids.
 * Signatures are computed here from the documented algorithm (HMAC-SHA256 of the raw body with
 * the app secret, hex, `sha256=` prefix; the legacy header SHA1 likewise); the vendor publishes
 * no test vector for them. The platform's side of HTTP calls is a recording server answering the
 * reference's example responses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { handshake, parseWebhook } from '../../src/connectors/socialnet_chat/inbound.js';
import { renderMessage, renderMessaging } from '../../src/connectors/socialnet_chat/render.js';
import { createSocialnetChatConnector } from '../../src/connectors/socialnet_chat/connector.js';
import { MediaDownloader } from '../../src/connectors/media-download.js';
import type { ChannelContext, InboundCall, PlatformChannelState } from '../../src/connectors/connector.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { on, startReferenceServer, type ReferenceServer } from './helpers/reference-server.js';

const APP_SECRET = 'ref-app-secret-0123456789abcdef';
const APP_ID = '1517776481860111'; // the app id of the reference's echo example
const VERIFY_TOKEN = 'Meaty-HamHock-Token'; // capitals on purpose: compared exactly
const PAGE_ID = '106541921890225';
const PSID = '5943198205734962';

/** The platform writes its webhook bodies with non-ASCII characters and "/" escaped. */
function platformJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');
}

function signed(body: string, secret = APP_SECRET): Record<string, string> {
  return {
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`,
    'x-hub-signature': `sha1=${createHmac('sha1', secret).update(body, 'utf8').digest('hex')}`,
  };
}

function call(body: string, headers: Record<string, string>, query: Record<string, string> = {}, method = 'POST'): InboundCall {
  return { method, endpoint: null, url: 'https://service.example/v1/inbound/socialnet_chat', headers, query, rawBody: Buffer.from(body, 'utf8') };
}

function envelope(...events: unknown[]): Record<string, unknown> {
  return { object: 'page', entry: [{ id: PAGE_ID, time: 1458692752478, messaging: events }] };
}

// Webhook event reference: messages (text with a quick reply; attachments).
const TEXT_EVENT = {
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  timestamp: 1458692752478,
  message: { mid: 'mid.1457764197618:41d102a3e1ae206a38', text: 'hello, world!', quick_reply: { payload: '<DEVELOPER_DEFINED_PAYLOAD>' } },
};
const ATTACHMENT_EVENT = {
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  timestamp: 1458692752478,
  message: { mid: 'mid.1458696618141:b4ef9d19ec21086067', attachments: [{ type: 'image', payload: { url: 'https://cdn.example.com/attachment.png' } }] },
};
// message_echoes reference.
const ECHO_EVENT = {
  sender: { id: PAGE_ID },
  recipient: { id: PSID },
  timestamp: 1457764197627,
  message: {
    is_echo: true,
    app_id: 1517776481860111,
    metadata: '<DEVELOPER_DEFINED_METADATA_STRING>',
    mid: 'mid.1457764197618:41d102a3e1ae206a38',
    text: 'hello, world!',
  },
};
// message_deliveries reference.
const DELIVERY_EVENT = {
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  delivery: { mids: ['mid.1458668856218:ed81099e15d3f4f233'], watermark: 1458668856253 },
};
// message_reads reference.
const READ_EVENT = { sender: { id: PSID }, recipient: { id: PAGE_ID }, timestamp: 1458668856463, read: { watermark: 1458668856253 } };
// messaging_postbacks reference.
const POSTBACK_EVENT = {
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  timestamp: 1527459824,
  postback: { mid: 'm_MESSAGE-ID', title: '<TITLE_FOR_THE_CTA>', payload: '<USER_DEFINED_PAYLOAD>' },
};
// messaging_optins reference: the send-to plugin, then the checkbox plugin (no sender).
const PLUGIN_OPTIN_EVENT = { sender: { id: PSID }, recipient: { id: PAGE_ID }, timestamp: 1234567890, optin: { ref: '<PASS_THROUGH_PARAM>' } };
const CHECKBOX_OPTIN_EVENT = { recipient: { id: PAGE_ID }, timestamp: 1234567890, optin: { ref: '<PASS_THROUGH_PARAM>', user_ref: '<UNIQUE_REF_PARAM>' } };
// messaging_referrals reference: a short link opened the existing thread.
const REFERRAL_EVENT = {
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  timestamp: 1458692752478,
  referral: { ref: '<REF_DATA_PASSED_IN_SHORTLINK_PARAM>', source: 'SHORTLINK', type: 'OPEN_THREAD' },
};

// Legacy location attachment (API before v4.0; third-party integrations still show it).
const LOCATION_EVENT = {
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  timestamp: 1458692752478,
  message: {
    mid: 'mid.1458696618141:b4ef9d19ec21086068',
    attachments: [
      {
        title: "Jana's Location",
        url: 'https://l.example.com/?u=map',
        type: 'location',
        payload: { coordinates: { lat: 37.483872693672, long: -122.14900441942 } },
      },
    ],
  },
};
// Customer matching: the user accepted a message request sent by phone number.
const CUSTOMER_MATCHING_EVENT = {
  sender: { id: PSID },
  recipient: { id: PAGE_ID },
  timestamp: 1458692752478,
  optin: {},
  prior_message: { source: 'customer_matching', identifier: '+16505551234' },
};

describe('socialnet_chat conformance: the connector against the reference shapes', () => {
  test('signatures: X-Hub-Signature-256 over the raw escaped bytes; the legacy SHA1 header alone; tampered, missing and wrong-key refused', () => {
    const body = platformJson(envelope({ ...TEXT_EVENT, message: { ...TEXT_EVENT.message, text: 'Dobrý den / ahoj 👋' } }));
    assert.match(body, /\\u00fd/, 'the body carries escaped non-ASCII characters, as the platform sends');
    const headers = signed(body);
    assert.equal(parseWebhook(call(body, headers), APP_SECRET, APP_ID).ok, true);
    assert.equal(parseWebhook(call(body, { 'x-hub-signature-256': headers['x-hub-signature-256']! }), APP_SECRET, APP_ID).ok, true);
    assert.equal(parseWebhook(call(body, { 'x-hub-signature': headers['x-hub-signature']! }), APP_SECRET, APP_ID).ok, true, 'the legacy header alone');
    const upper = { 'x-hub-signature-256': `sha256=${headers['x-hub-signature-256']!.slice(7).toUpperCase()}` };
    assert.equal(parseWebhook(call(body, upper), APP_SECRET, APP_ID).ok, true, 'hex is case-insensitive');
    const refused = [
      call(body.replace('ahoj', 'ahoi'), headers),
      call(body, {}),
      call(body, signed(body, 'another-secret')),
      call(body, { 'x-hub-signature-256': headers['x-hub-signature-256']!.slice(7) }),
      // A valid SHA256 header decides: a wrong one is not rescued by a right SHA1.
      call(body, { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}`, 'x-hub-signature': headers['x-hub-signature']! }),
      // The parsed-and-re-serialised body (unescaped) is other bytes.
      call(JSON.stringify(JSON.parse(body)), headers),
    ];
    for (const c of refused) {
      const parsed = parseWebhook(c, APP_SECRET, APP_ID);
      assert.equal(parsed.ok, false);
      assert.equal(!parsed.ok && parsed.status, 403);
    }
  });

  test('the subscription handshake (webhook setup reference): the challenge comes back only for the exact verify token', () => {
    const query = (token: string) => ({ 'hub.mode': 'subscribe', 'hub.challenge': '1158201444', 'hub.verify_token': token });
    assert.deepEqual(handshake(call('', {}, query(VERIFY_TOKEN), 'GET'), VERIFY_TOKEN), { status: 200, body: '1158201444' });
    for (const token of [VERIFY_TOKEN.toLowerCase(), VERIFY_TOKEN.toUpperCase(), `${VERIFY_TOKEN} `, ''])
      assert.equal(handshake(call('', {}, query(token), 'GET'), VERIFY_TOKEN)?.status, 403, token);
    assert.equal(handshake(call('', {}, { ...query(VERIFY_TOKEN), 'hub.mode': 'unsubscribe' }, 'GET'), VERIFY_TOKEN)?.status, 403);
    assert.equal(handshake(call('', {}, {}, 'GET'), VERIFY_TOKEN), null, 'not a handshake');
  });

  test('each event kind of the reference becomes its neutral event', () => {
    const parse = (...events: unknown[]) => {
      const body = platformJson(envelope(...events));
      const parsed = parseWebhook(call(body, signed(body)), APP_SECRET, '999');
      assert.equal(parsed.ok, true);
      return parsed.ok ? parsed.events : [];
    };
    const [text] = parse(TEXT_EVENT);
    assert.deepEqual(text, {
      channelKey: PAGE_ID,
      at: 1458692752478,
      kind: 'message',
      user: { externalId: PSID },
      externalId: 'mid.1457764197618:41d102a3e1ae206a38',
      content: { type: 'text', text: 'hello, world!', quickReplyPayload: '<DEVELOPER_DEFINED_PAYLOAD>' },
    });
    const [image] = parse(ATTACHMENT_EVENT);
    assert.deepEqual(image?.kind === 'message' && image.content, { type: 'image', media: { ref: 'https://cdn.example.com/attachment.png' } });
    const [location] = parse(LOCATION_EVENT);
    assert.deepEqual(location?.kind === 'message' && location.content, { type: 'location', latitude: 37.483872693672, longitude: -122.14900441942 });
    const [matched] = parse(CUSTOMER_MATCHING_EVENT);
    assert.deepEqual(matched?.kind === 'opt_in' && [matched.optInType, matched.user], ['phone_number', { externalId: PSID, phoneNumber: '+16505551234' }]);
    const [echo] = parse(ECHO_EVENT);
    assert.equal(echo?.kind, 'echo');
    assert.deepEqual(echo?.user, { externalId: PSID });
    assert.equal(echo?.kind === 'echo' && echo.platformMetadata, '<DEVELOPER_DEFINED_METADATA_STRING>');
    // Echoes of the service's own app were reported when sent.
    const own = platformJson(envelope(ECHO_EVENT));
    assert.deepEqual((parseWebhook(call(own, signed(own)), APP_SECRET, APP_ID) as { events: unknown[] }).events, []);
    const [delivery] = parse(DELIVERY_EVENT);
    assert.deepEqual(delivery?.kind === 'delivered' && [delivery.messageIds, delivery.watermark], [['mid.1458668856218:ed81099e15d3f4f233'], 1458668856253]);
    const [read] = parse(READ_EVENT);
    assert.deepEqual(read?.kind === 'read' && [read.watermark, read.at], [1458668856253, 1458668856463]);
    const [postback] = parse(POSTBACK_EVENT);
    assert.deepEqual(postback?.kind === 'postback' && [postback.payload, postback.eventKey], ['<USER_DEFINED_PAYLOAD>', 'mid:m_MESSAGE-ID']);
    const [plugin] = parse(PLUGIN_OPTIN_EVENT);
    assert.deepEqual(plugin?.kind === 'opt_in' && [plugin.optInType, plugin.payload, plugin.user], [
      'send_to_socialnet',
      '<PASS_THROUGH_PARAM>',
      { externalId: PSID },
    ]);
    const [checkbox] = parse(CHECKBOX_OPTIN_EVENT);
    assert.deepEqual(checkbox?.kind === 'opt_in' && [checkbox.optInType, checkbox.user], ['checkbox', { userRef: '<UNIQUE_REF_PARAM>' }]);
    const [referral] = parse(REFERRAL_EVENT);
    assert.deepEqual(referral?.kind === 'opt_in' && [referral.optInType, referral.payload], ['referral', '<REF_DATA_PASSED_IN_SHORTLINK_PARAM>']);
    // Handover reference: events of a thread another app owns arrive under `standby`.
    const standbyBody = platformJson({ object: 'page', entry: [{ id: PAGE_ID, time: 1458692752478, standby: [TEXT_EVENT] }] });
    const standby = parseWebhook(call(standbyBody, signed(standbyBody)), APP_SECRET, APP_ID);
    assert.deepEqual(standby.ok && standby.events.map((e) => e.kind), ['message']);
    // Several events and pages in one call (the envelope is a batch).
    assert.equal(parse(TEXT_EVENT, DELIVERY_EVENT, READ_EVENT).length, 3);
  });

  test('outbound bodies equal the Send API reference requests', () => {
    const body = (content: any, metadata?: any) => {
      const message = renderMessage(content, metadata);
      assert.equal(message.ok, true);
      return { recipient: { id: PSID }, ...renderMessaging(metadata), message: message.ok ? message.value : null };
    };
    // Send API reference: a text reply.
    assert.deepEqual(body({ type: 'text', payload: 'hello, world!' }, { type: 'response' }), {
      recipient: { id: PSID },
      messaging_type: 'RESPONSE',
      message: { text: 'hello, world!' },
    });
    // Message tags reference: outside the window with a tag.
    assert.deepEqual(body({ type: 'text', payload: 'hello, world!' }, { tag: 'confirmed_event_update' }), {
      recipient: { id: PSID },
      messaging_type: 'MESSAGE_TAG',
      tag: 'CONFIRMED_EVENT_UPDATE',
      message: { text: 'hello, world!' },
    });
    // Quick replies reference.
    assert.deepEqual(
      body(
        {
          type: 'text',
          payload: 'Pick a color:',
          quick_replies: [{ type: 'text', title: 'Red', payload: '<POSTBACK_PAYLOAD>', image_url: 'http://example.com/img/red.png' }],
        },
        { type: 'response' },
      ).message,
      {
        text: 'Pick a color:',
        quick_replies: [{ content_type: 'text', title: 'Red', payload: '<POSTBACK_PAYLOAD>', image_url: 'http://example.com/img/red.png' }],
      },
    );
    // Button template reference.
    assert.deepEqual(
      body({
        type: 'structure',
        payload: {
          text: 'What do you want to do next?',
          buttons: [
            { type: 'url', title: 'Visit Website', payload: 'https://www.example.com' },
            { type: 'postback', title: 'Start Chatting', payload: 'DEVELOPER_DEFINED_PAYLOAD' },
          ],
        },
      }).message,
      {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button',
            text: 'What do you want to do next?',
            buttons: [
              { type: 'web_url', url: 'https://www.example.com', title: 'Visit Website' },
              { type: 'postback', title: 'Start Chatting', payload: 'DEVELOPER_DEFINED_PAYLOAD' },
            ],
          },
        },
      },
    );
    // Generic template reference (its optional webview_height_ratio left out).
    assert.deepEqual(
      body({
        type: 'structure',
        payload: [
          {
            title: 'Welcome!',
            text: 'We have the right hat for everyone.',
            image_url: 'https://petersfancybrownhats.com/company_image.png',
            item_url: 'https://petersfancybrownhats.com/view?item=103',
            buttons: [{ type: 'url', title: 'View Website', payload: 'https://petersfancybrownhats.com' }],
          },
        ],
      }).message,
      {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'generic',
            elements: [
              {
                title: 'Welcome!',
                subtitle: 'We have the right hat for everyone.',
                image_url: 'https://petersfancybrownhats.com/company_image.png',
                default_action: { type: 'web_url', url: 'https://petersfancybrownhats.com/view?item=103' },
                buttons: [{ type: 'web_url', url: 'https://petersfancybrownhats.com', title: 'View Website' }],
              },
            ],
          },
        },
      },
    );
    // Attachment by URL reference.
    assert.deepEqual(body({ type: 'image', payload: { url: 'http://www.example.com/image.jpg' } }).message, {
      attachment: { type: 'image', payload: { url: 'http://www.example.com/image.jpg', is_reusable: true } },
    });
  });
});

describe('socialnet_chat conformance: platform calls and the HTTP route', () => {
  let ref: ReferenceServer;
  let s: TestServer;
  let hook: WebhookReceiver;
  let channelId = '';
  const PAGE_TOKEN = 'EAAGm0PX4ZCpsBAPageTokenReference';

  before(async () => {
    ref = await startReferenceServer();
    ref.routes.push(
      // Access-token debug reference (a long-lived page token: expires_at 0).
      on('GET', /\/debug_token$/, {
        body: {
          data: {
            app_id: APP_ID,
            type: 'PAGE',
            application: 'Social Cafe',
            expires_at: 0,
            is_valid: true,
            issued_at: 1347235328,
            profile_id: PAGE_ID,
            scopes: ['pages_messaging'],
            user_id: '1207059',
          },
        },
      }),
      on('GET', new RegExp(`/${PAGE_ID}$`), { body: { name: 'Coffee Corner', category: 'Cafe', id: PAGE_ID } }),
      on('POST', new RegExp(`/${PAGE_ID}/subscribed_apps$`), { body: { success: true } }),
      on('GET', new RegExp(`/${APP_ID}/subscriptions$`), { body: { data: [] } }),
      on('POST', new RegExp(`/${APP_ID}/subscriptions$`), { body: { success: true } }),
      // Send API reference response.
      on('POST', /\/messages$/, { body: { recipient_id: PSID, message_id: 'mid.1456970487936:c34767dfe57ee6e339' } }),
    );
    s = await startTestServer('sqlite', {
      workers: true,
      env: {
        SOCIALNET_API_URL: ref.url,
        SOCIALNET_APP_ID: APP_ID,
        SOCIALNET_APP_SECRET: APP_SECRET,
        SOCIALNET_VERIFY_TOKEN: VERIFY_TOKEN,
        PLATFORM_TIMEOUT_MS: '1500',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      },
    });
    hook = await startWebhookReceiver();
    const made = await s.api.post('/v1/channels', {
      type: 'socialnet_chat',
      name: 'Reference page',
      webhook: { url: hook.url },
      socialnet_page: { id: PAGE_ID, access_token: PAGE_TOKEN },
    });
    assert.equal(made.status, 201, made.text);
    hook.secret = made.body.webhook.secret;
    channelId = made.body.id;
  });
  after(async () => {
    await s?.close();
    await Promise.allSettled([ref?.close(), hook?.close()]);
  });

  test('connecting: the calls are the references (debug_token with the app token, subscribed_apps with every field, the app callback)', () => {
    const debug = ref.requests.find((r) => r.path.endsWith('/debug_token'))!;
    assert.equal(debug.query.input_token, PAGE_TOKEN);
    assert.equal(debug.query.access_token, `${APP_ID}|${APP_SECRET}`);
    const subscribed = ref.requests.find((r) => r.path.endsWith('/subscribed_apps'))!;
    assert.deepEqual(subscribed.query.subscribed_fields!.split(','), [
      'messages',
      'messaging_postbacks',
      'messaging_optins',
      'message_deliveries',
      'message_reads',
      'message_echoes',
      'messaging_referrals',
      'standby',
    ]);
    // appsecret_proof reference: hex HMAC-SHA256 of the token with the app secret.
    assert.equal(subscribed.query.appsecret_proof, createHmac('sha256', APP_SECRET).update(PAGE_TOKEN).digest('hex'));
    const app = ref.requests.find((r) => r.method === 'POST' && r.path.endsWith('/subscriptions'))!;
    assert.deepEqual(
      { object: app.json.object, callback_url: app.json.callback_url, verify_token: app.json.verify_token },
      { object: 'page', callback_url: `${s.baseUrl}/inbound/socialnet_chat`, verify_token: VERIFY_TOKEN },
    );
  });

  test('the HTTP route: handshake exact, a signed reference message reported, a tampered one 403, a reply body as the reference', async () => {
    const route = `${s.baseUrl}/inbound/socialnet_chat`;
    const hs = await fetch(`${route}?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${VERIFY_TOKEN}`);
    assert.deepEqual([hs.status, await hs.text()], [200, '1158201444']);
    assert.equal((await fetch(`${route}?hub.mode=subscribe&hub.challenge=1&hub.verify_token=${VERIFY_TOKEN.toLowerCase()}`)).status, 403);

    const body = platformJson(envelope(TEXT_EVENT));
    const tampered = await fetch(route, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signed(body) },
      body: body.replace('hello', 'HELLO'),
    });
    assert.equal(tampered.status, 403);
    const res = await fetch(route, { method: 'POST', headers: { 'content-type': 'application/json', ...signed(body) }, body });
    assert.equal(res.status, 200);
    const received = await hook.waitFor('message_received');
    assert.deepEqual(received.data.content, { type: 'text', payload: 'hello, world!', quick_reply: { payload: '<DEVELOPER_DEFINED_PAYLOAD>' } });

    const sent = await s.api.post('/v1/messages', {
      channel: { id: channelId },
      contact: { id: received.data.contact.id },
      content: { type: 'text', payload: 'hello, world!' },
    });
    assert.equal(sent.status, 201, sent.text);
    const request = ref.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages')).at(-1)!;
    assert.equal(request.path, `/v25.0/${PAGE_ID}/messages`);
    assert.equal(request.query.access_token, PAGE_TOKEN);
    assert.deepEqual(request.json, { recipient: { id: PSID }, messaging_type: 'RESPONSE', message: { text: 'hello, world!' } });
  });

  test('user profile reference: an app without review is refused 100/2018247 and reads first_name,last_name,profile_pic', async () => {
    const media = new MediaDownloader({ allowlist: ['127.0.0.1:1'] });
    const connector = createSocialnetChatConnector({
      apiUrl: ref.url,
      apiVersion: 'v25.0',
      appId: APP_ID,
      appSecret: APP_SECRET,
      tokenPrefix: 'sn',
      profileEdge: 'socialnet_chat_profile',
      callbackUrl: 'https://service.example/v1/inbound/socialnet_chat',
      subscribeApp: false,
      timeoutMs: 1500,
      maxMediaBytes: 1024,
      media,
    });
    const profileRef = on('GET', new RegExp(`/${PSID}$`), (r) =>
      /gender|timezone|locale/.test(r.query.fields ?? '')
        ? {
            status: 400,
            body: {
              error: {
                message: '(#100) Insufficient permission to access user profile',
                type: 'OAuthException',
                code: 100,
                error_subcode: 2018247,
                sntrace_id: 'AbC',
              },
            },
          }
        : { body: { first_name: 'Peter', last_name: 'Chang', profile_pic: 'https://cdn.example.com/peter.jpg', id: PSID } },
    );
    ref.routes.unshift(profileRef);
    try {
      const channel: ChannelContext = { id: '1', type: 'socialnet_chat', mode: 'production', config: { id: PAGE_ID }, secrets: { access_token: PAGE_TOKEN } };
      const recipient = { id: '1', externalId: PSID, phoneNumber: null, userRef: null, email: null, name: null };
      const got = await connector.roles.profiles.fetchProfile(channel, recipient);
      assert.deepEqual(got, {
        ok: true,
        value: { name: 'Peter Chang', extra: { first_name: 'Peter', last_name: 'Chang' }, photo: { ref: 'https://cdn.example.com/peter.jpg' } },
      });
      const asked = ref.requests.filter((r) => r.path.endsWith(`/${PSID}`)).map((r) => r.query.fields);
      assert.deepEqual(asked, ['first_name,last_name,profile_pic,gender,timezone', 'first_name,last_name,profile_pic']);

      // Error reference: an invalid token (190) is a disconnected page, reported once per call.
      const reports: PlatformChannelState[] = [];
      const watched = createSocialnetChatConnector({
        apiUrl: ref.url,
        apiVersion: 'v25.0',
        tokenPrefix: 'sn',
        profileEdge: 'socialnet_chat_profile',
        callbackUrl: 'https://service.example/v1/inbound/socialnet_chat',
        subscribeApp: false,
        timeoutMs: 1500,
        maxMediaBytes: 1024,
        media,
        channelStates: { report: (_c, state) => reports.push(state) },
      });
      ref.routes.unshift(
        on('POST', /\/messages$/, {
          status: 400,
          body: {
            error: {
              message: 'Error validating access token: The user has not authorized application.',
              type: 'OAuthException',
              code: 190,
              error_subcode: 458,
              sntrace_id: 'BLBz/WZt8dN',
            },
          },
        }),
      );
      const refused = await watched.roles.sender.send(channel, recipient, { id: '9', content: { type: 'text', payload: 'hi' } });
      assert.equal(refused.ok, false);
      assert.deepEqual(
        reports.map((r) => [r.state, r.reach]),
        [['disconnected', 'nobody']],
      );
      ref.routes.shift();
    } finally {
      ref.routes.splice(ref.routes.indexOf(profileRef), 1);
    }
  });
});
