import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { createRbmConnector } from '../../src/connectors/rbm/connector.js';
import { renderMessage } from '../../src/connectors/rbm/render.js';
import { agentBody, launchBody, verificationBody } from '../../src/connectors/rbm/agent-bodies.js';
import { MediaDownloader } from '../../src/connectors/media-download.js';
import type { ChannelContext, InboundCall } from '../../src/connectors/connector.js';

// The rbm connector against the platform's published shapes, without the stand-in. Every call
// below is transcribed from the platform's public REST reference (UserMessage, UserEvent, the
// "conversation flows" page), its official webhook sample (the Node.js push agent: the handshake
// and the signature check) and its official samples of the messaging helper and of the management
// API (agents/create, agents/verify, agents/launch). Values that carry the vendor's brand are
// replaced: the agent domain, the signature header and the product key are configuration.

/** The agent's domain in what the platform posts (`welcome-bot@<domain>` in the reference). */
const AGENT_DOMAIN = 'agents.platform.example';
const AGENT = 'welcome-bot';
const SIGNATURE_HEADER = 'X-Rbm-Signature';
/** The client token of the reference's handshake example. */
const CLIENT_TOKEN = 'SJENCPGJESMGUFPY';
const PHONE = '+12223334444';

/** The push envelope: `{"message": {"data": base64(JSON), "messageId", "publishTime"}, "subscription"}`. */
function envelope(payload: unknown): { body: Buffer; data: Buffer } {
  const data = Buffer.from(JSON.stringify(payload));
  const body = Buffer.from(
    JSON.stringify({
      message: { data: data.toString('base64'), messageId: '2070443601311540', publishTime: '2026-11-28T10:00:00.123Z' },
      subscription: `projects/rbm-${AGENT}/subscriptions/rbm-agent-subscription`,
    }),
  );
  return { body, data };
}

/** As the official webhook sample checks it: base64 HMAC-SHA512 of the base64-decoded `message.data`, keyed with the client token. */
function sign(data: Buffer, token = CLIENT_TOKEN): string {
  return createHmac('sha512', token).update(data).digest('base64');
}

function call(body: Buffer, signature?: string): InboundCall {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== undefined) headers[SIGNATURE_HEADER.toLowerCase()] = signature;
  return { method: 'POST', endpoint: 'events', url: 'https://parley.example/v1/inbound/7/events', headers, query: {}, rawBody: body };
}

// The decoded payloads of the reference (UserMessage, UserEvent and the conversation-flows page),
// with the agent id as the platform sends it: suffixed with its domain.
const FROM_AGENT = `${AGENT}@${AGENT_DOMAIN}`;
const TEXT = {
  senderPhoneNumber: PHONE,
  messageId: 'MsDLB8Hl8bSyOHS0ahWmJ7zQ',
  sendTime: '2018-12-31T15:01:23.045123456Z',
  agentId: FROM_AGENT,
  text: 'Hello to you!',
};
const SUGGESTION_REPLY = {
  senderPhoneNumber: PHONE,
  messageId: 'MsQ5lmpMjKQPO5nNjvBfrV8A',
  sendTime: '2018-12-31T15:02:00Z',
  agentId: FROM_AGENT,
  suggestionResponse: { postbackData: 'suggestion_1', text: 'Suggestion #1', type: 'REPLY' },
};
const SUGGESTION_ACTION = {
  senderPhoneNumber: PHONE,
  messageId: 'MsQ5lmpMjKQPO5nNjvBfrV8B',
  sendTime: '2018-12-31T15:02:10Z',
  agentId: FROM_AGENT,
  suggestionResponse: { postbackData: 'view_map', text: 'View map', type: 'ACTION' },
};
const LOCATION = {
  senderPhoneNumber: PHONE,
  messageId: 'MsLoc1',
  sendTime: '2018-12-31T15:03:00Z',
  agentId: FROM_AGENT,
  location: { latitude: 37.422, longitude: -122.084 },
};
const USER_FILE = {
  senderPhoneNumber: PHONE,
  messageId: 'MsFile1',
  sendTime: '2018-12-31T15:04:00Z',
  agentId: FROM_AGENT,
  userFile: {
    thumbnail: { mimeType: 'image/jpeg', fileSizeBytes: 1502, fileUri: 'https://rcs-user-files.example/thumb', fileName: 'thumb.jpg' },
    payload: { mimeType: 'image/jpeg', fileSizeBytes: 235651, fileUri: 'https://rcs-user-files.example/photo', fileName: 'photo.jpg' },
  },
};
const DELIVERED = {
  senderPhoneNumber: PHONE,
  agentId: FROM_AGENT,
  eventType: 'DELIVERED',
  eventId: 'Ms6oOiEli6QS-fe8QFrmhfIg',
  messageId: '123',
  sendTime: '2018-12-31T15:01:30Z',
};
const READ = {
  senderPhoneNumber: PHONE,
  agentId: FROM_AGENT,
  eventType: 'READ',
  eventId: 'Ms6oOiEli6QS-ge9ZFsmgTj',
  messageId: '123',
  sendTime: '2018-12-31T15:01:40Z',
};
const TYPING = { senderPhoneNumber: PHONE, agentId: FROM_AGENT, eventType: 'IS_TYPING', eventId: 'Ms6oOiEli6QS-hf0AGtnhUk', sendTime: '2018-12-31T15:01:45Z' };
// A server event: note `phoneNumber`, not `senderPhoneNumber`.
const REVOKED = {
  phoneNumber: PHONE,
  messageId: '123',
  agentId: FROM_AGENT,
  eventType: 'TTL_EXPIRATION_REVOKED',
  eventId: 'Ms7pPjFmj7RT',
  sendTime: '2018-12-31T16:01:23Z',
};

describe('rbm conformance: the connector read against the published shapes (no stand-in)', () => {
  const connector = createRbmConnector({
    apiUrl: 'https://{region}-messaging.platform.example',
    managementUrl: 'https://management.platform.example',
    tokenUrl: 'https://oauth.platform.example/token',
    messagingScope: 'rbm.messaging',
    managementScope: 'rbm.management',
    productKey: 'rbm',
    signatureHeaderName: SIGNATURE_HEADER,
    timeoutMs: 1000,
    clock: { now: () => Date.now() },
    media: new MediaDownloader({ allowlist: [] }),
    maxMediaBytes: 1_000_000,
  });
  const channel: ChannelContext = {
    id: '7',
    type: 'rbm',
    mode: 'production',
    config: { agent_id: AGENT, region: 'north_america' },
    secrets: { client_token: CLIENT_TOKEN },
  };
  const parse = (c: InboundCall, ch: ChannelContext = channel) => connector.roles.channelInbound.parse(c, ch);
  const eventsOf = (payload: unknown) => {
    const { body, data } = envelope(payload);
    const parsed = parse(call(body, sign(data)));
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return parsed.events;
  };

  test('the handshake of the webhook set-up: the client token checked, the secret answered as the raw body', () => {
    const handshake = Buffer.from(JSON.stringify({ clientToken: CLIENT_TOKEN, secret: '1234567890' }));
    const answered = parse(call(handshake));
    assert.ok(answered.ok);
    assert.deepEqual(answered.reply, { contentType: 'text/plain; charset=utf-8', body: '1234567890' });
    const wrong = parse(call(Buffer.from(JSON.stringify({ clientToken: 'ANOTHER', secret: '1234567890' }))));
    assert.deepEqual(wrong.ok ? 'answered' : wrong.status, 403);
  });

  test('the signature as the official sample checks it: valid is read; tampered data, another token, the envelope signed or no header are refused', () => {
    const { body, data } = envelope(TEXT);
    assert.ok(parse(call(body, sign(data))).ok);
    const tampered = envelope({ ...TEXT, text: 'Hello to me!' });
    assert.deepEqual(parse(call(tampered.body, sign(data))).ok, false, 'data changed after signing');
    assert.deepEqual(parse(call(body, sign(data, 'ANOTHERTOKEN'))).ok, false);
    assert.deepEqual(parse(call(body, createHmac('sha512', CLIENT_TOKEN).update(body).digest('base64'))).ok, false, 'over the envelope');
    const unsigned = parse(call(body));
    assert.deepEqual(unsigned.ok ? 'read' : unsigned.status, 401);
  });

  test('user messages with the suffixed agent id: text, suggested reply, suggested action, location, file', () => {
    const user = { phoneNumber: PHONE };
    assert.deepEqual(eventsOf(TEXT), [
      { kind: 'message', user, at: Date.parse(TEXT.sendTime), externalId: TEXT.messageId, content: { type: 'text', text: 'Hello to you!' } },
    ]);
    assert.deepEqual(eventsOf(SUGGESTION_REPLY), [
      {
        kind: 'message',
        user,
        at: Date.parse(SUGGESTION_REPLY.sendTime),
        externalId: SUGGESTION_REPLY.messageId,
        content: { type: 'text', text: 'Suggestion #1', quickReplyPayload: 'suggestion_1' },
      },
    ]);
    assert.deepEqual(eventsOf(SUGGESTION_ACTION), [
      { kind: 'postback', user, at: Date.parse(SUGGESTION_ACTION.sendTime), eventKey: SUGGESTION_ACTION.messageId, payload: 'view_map' },
    ]);
    assert.deepEqual(eventsOf(LOCATION), [
      { kind: 'message', user, at: Date.parse(LOCATION.sendTime), externalId: 'MsLoc1', content: { type: 'location', latitude: 37.422, longitude: -122.084 } },
    ]);
    assert.deepEqual(eventsOf(USER_FILE), [
      {
        kind: 'message',
        user,
        at: Date.parse(USER_FILE.sendTime),
        externalId: 'MsFile1',
        content: { type: 'image', media: { ref: 'https://rcs-user-files.example/photo', name: 'photo.jpg', mimeType: 'image/jpeg' } },
      },
    ]);
  });

  test('receipts and events with the suffixed agent id: DELIVERED, READ, server revocation; typing dropped; another agent dropped', () => {
    const user = { phoneNumber: PHONE };
    assert.deepEqual(eventsOf(DELIVERED), [{ kind: 'delivered', user, at: Date.parse(DELIVERED.sendTime), messageIds: ['123'], watermark: null }]);
    assert.deepEqual(eventsOf(READ), [{ kind: 'read', user, at: Date.parse(READ.sendTime), watermark: Date.parse(READ.sendTime), messageExternalId: '123' }]);
    assert.deepEqual(eventsOf(TYPING), []);
    assert.deepEqual(eventsOf(REVOKED), [
      {
        kind: 'status',
        user,
        at: Date.parse(REVOKED.sendTime),
        eventKey: 'Ms7pPjFmj7RT',
        report: { messageExternalId: '123', status: 'expired', final: true, platformCode: 'TTL_EXPIRATION_REVOKED' },
      },
    ]);
    assert.deepEqual(eventsOf({ ...TEXT, agentId: `another-bot@${AGENT_DOMAIN}` }), [], "another agent's message");
    assert.deepEqual(eventsOf({ ...TEXT, agentId: `${AGENT}x@${AGENT_DOMAIN}` }), [], 'a longer id is another agent');
    // A channel that names its agent with the domain (pasted as the console shows it) reads the same.
    const suffixed = { ...channel, config: { ...channel.config, agent_id: FROM_AGENT } };
    const { body, data } = envelope(DELIVERED);
    const parsed = parse(call(body, sign(data)), suffixed);
    assert.equal(parsed.ok && parsed.events.length, 1);
  });

  test('outbound messages as the reference and the official helper shape them', () => {
    const send = (content: unknown, ttlMs?: number) => {
      const rendered = renderMessage({ id: '1', content: content as never, ...(ttlMs === undefined ? {} : { ttlMs }) });
      assert.ok(rendered.ok, JSON.stringify(rendered));
      return rendered.value;
    };
    // Text with suggested replies (the send guide's example), with a time to live.
    assert.deepEqual(
      send(
        {
          type: 'text',
          payload: 'Hello, World!',
          quick_replies: [
            { type: 'text', title: 'Suggestion #1', payload: 'suggestion_1' },
            { type: 'text', title: 'Suggestion #2', payload: 'suggestion_2' },
          ],
        },
        86_400_000,
      ),
      {
        contentMessage: {
          text: 'Hello, World!',
          suggestions: [{ reply: { text: 'Suggestion #1', postbackData: 'suggestion_1' } }, { reply: { text: 'Suggestion #2', postbackData: 'suggestion_2' } }],
        },
        ttl: '86400s',
      },
    );
    // A location: a text with a view-location action (`latLong`).
    assert.deepEqual(send({ type: 'location', payload: { latitude: 37.4220188, longitude: -122.0844786 } }).contentMessage, {
      text: 'Location',
      suggestions: [
        {
          action: { text: 'View location', postbackData: 'view_location', viewLocationAction: { latLong: { latitude: 37.4220188, longitude: -122.0844786 } } },
        },
      ],
    });
    // A standalone card (the helper's sendRichCard: orientation, title, description, media height + contentInfo, suggestions).
    assert.deepEqual(
      send({
        type: 'structure',
        payload: {
          title: 'Hello, world!',
          text: 'RBM is awesome!',
          image_url: 'https://media.platform.example/card.jpg',
          buttons: [
            { type: 'url', title: 'Open site', payload: 'https://www.example.com' },
            { type: 'phone', title: 'Call', payload: '+15556667777' },
            { type: 'postback', title: 'Yes', payload: 'yes' },
          ],
        },
      }),
      {
        contentMessage: {
          richCard: {
            standaloneCard: {
              cardOrientation: 'VERTICAL',
              cardContent: {
                title: 'Hello, world!',
                description: 'RBM is awesome!',
                media: { height: 'MEDIUM', contentInfo: { fileUrl: 'https://media.platform.example/card.jpg' } },
                suggestions: [
                  { action: { text: 'Open site', postbackData: 'open_url:Open site', openUrlAction: { url: 'https://www.example.com' } } },
                  { action: { text: 'Call', postbackData: 'dial:Call', dialAction: { phoneNumber: '+15556667777' } } },
                  { reply: { text: 'Yes', postbackData: 'yes' } },
                ],
              },
            },
          },
        },
      },
    );
    // A carousel (the helper's sendCarouselCard: cardWidth and 2 to 10 cardContents).
    assert.deepEqual(send({ type: 'structure', payload: [{ title: 'Card #1' }, { title: 'Card #2', text: 'The second' }] }), {
      contentMessage: {
        richCard: { carouselCard: { cardWidth: 'MEDIUM', cardContents: [{ title: 'Card #1' }, { title: 'Card #2', description: 'The second' }] } },
      },
    });
    // Files by URL (the helper's sendMessage with fileUrl): image, video, PDF and audio all as contentInfo.
    for (const [type, url] of [
      ['image', 'https://media.platform.example/a.jpg'],
      ['video', 'https://media.platform.example/a.mp4'],
      ['file', 'https://media.platform.example/a.pdf'],
      ['audio', 'https://media.platform.example/a.mp3'],
    ] as const) {
      assert.deepEqual(send({ type, payload: { url } }), { contentMessage: { contentInfo: { fileUrl: url } } });
    }
    // The platform has no suggestion that asks for the user's e-mail or phone number: refused, never dropped.
    for (const kind of ['email', 'phone_number'] as const) {
      const refused = renderMessage({ id: '1', content: { type: 'text', payload: 'Your contact?', quick_replies: [{ type: kind }] } });
      assert.equal(refused.ok, false);
    }
  });

  test('management requests as the official samples shape them: agent create, verification request, launch request', () => {
    // brands.agents.create (agents/create.js), with the sample's values moved to example hosts.
    const config = {
      agent_name: 'My new agent',
      region: 'europe',
      agent_profile: {
        description: 'This is the agent description that will be displayed in the Agent info tab in Messages',
        logo_url: 'https://agent-logos.platform.example/_/logo',
        hero_url: 'https://agent-logos.platform.example/_/hero',
        phones: [{ number: '+12223334444', label: 'Call support' }],
        privacy_policy: { url: 'https://policies.example/privacy', label: 'Our privacy policy' },
        terms_and_conditions: { url: 'https://policies.example/terms', label: 'Our Terms and Conditions' },
        color: '#0B78D0',
        billing_category: 'non_conversational',
        use_case: 'multi_use',
      },
      verification_contact: {
        partner_name: 'Alice',
        partner_email: 'alice@thepartner.example',
        brand_contact_name: 'Bob',
        brand_contact_email: 'bob@thebrand.example',
        brand_website_url: 'https://thebrand.example/',
      },
      launch_questionnaire: {
        contacts: [{ name: 'Ian', title: 'The Boss', email: 'someone@somewhere.example' }],
        opt_in_description: 'Users accepted our terms of service online.',
        trigger_description: 'We are reaching preregistered users',
        interactions_description: 'This agent does not do much.',
        opt_out_description: 'Reply stop and we stop.',
        access_instructions: 'This is a a simple agent that reaches registered users.',
        video_urls: ['https://www.example.com/a/video'],
        screenshot_urls: ['https://www.example.com/a/screenshot'],
      },
    };
    assert.deepEqual(agentBody(config, 'rbm'), {
      displayName: 'My new agent',
      rbmAgent: {
        description: 'This is the agent description that will be displayed in the Agent info tab in Messages',
        logoUri: 'https://agent-logos.platform.example/_/logo',
        heroUri: 'https://agent-logos.platform.example/_/hero',
        phoneNumbers: [{ phoneNumber: { number: '+12223334444' }, label: 'Call support' }],
        privacy: { uri: 'https://policies.example/privacy', label: 'Our privacy policy' },
        termsConditions: { uri: 'https://policies.example/terms', label: 'Our Terms and Conditions' },
        color: '#0B78D0',
        billingConfig: { billingCategory: 'NON_CONVERSATIONAL' },
        agentUseCase: 'MULTI_USE',
        hostingRegion: 'EUROPE',
      },
    });
    // agents/verify.js: the resource is `{agentVerificationContact: {...}}`.
    assert.deepEqual(verificationBody(config), {
      agentVerificationContact: {
        partnerName: 'Alice',
        partnerEmailAddress: 'alice@thepartner.example',
        brandContactName: 'Bob',
        brandContactEmailAddress: 'bob@thebrand.example',
        brandWebsiteUrl: 'https://thebrand.example/',
      },
    });
    // agents/launch.js through the helper's launchAgent: `{agentLaunch: {<productKey>: {questionnaire, launchDetails}}}`.
    assert.deepEqual(launchBody(config, 'rbm', ['/v1/regions/acarrier']), {
      agentLaunch: {
        rbm: {
          questionnaire: {
            contacts: [{ name: 'Ian', title: 'The Boss', email: 'someone@somewhere.example' }],
            optinDescription: 'Users accepted our terms of service online.',
            triggerDescription: 'We are reaching preregistered users',
            interactionsDescription: 'This agent does not do much.',
            optoutDescription: 'Reply stop and we stop.',
            agentAccessInstructions: 'This is a a simple agent that reaches registered users.',
            videoUris: ['https://www.example.com/a/video'],
            screenshotUris: ['https://www.example.com/a/screenshot'],
          },
          launchDetails: { '/v1/regions/acarrier': {} },
        },
      },
    });
  });
});

/**
 * The platform's answers, each as the reference shows it, for the calls the service makes in the
 * HTTP test: the token, the agent's verification and launch, and a send. No rules, no state
 * beyond recording what was asked.
 */
interface Recorded {
  method: string;
  path: string;
  body: any;
}
async function startRecordedPlatform(): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const read = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server: Server = createServer((req, res) => {
    void read(req).then((text) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      let body: any = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        // form-encoded (the token request)
      }
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const agentPath = `/mgmt/v1/brands/b1/agents/${AGENT}`;
      if (url.pathname === '/token') return json(200, { access_token: 'ya29.c.recorded', expires_in: 3599, token_type: 'Bearer' });
      if (url.pathname === `${agentPath}/verification`)
        return json(200, { name: `brands/b1/agents/${AGENT}/verification`, verificationState: 'VERIFICATION_STATE_VERIFIED' });
      if (url.pathname === `${agentPath}/launch`)
        return json(200, {
          name: `brands/b1/agents/${AGENT}/launch`,
          rbm: { launchDetails: { '/v1/regions/acarrier': { launchState: 'LAUNCH_STATE_LAUNCHED' } } },
        });
      const send = /^\/v1\/phones\/([^/]+)\/agentMessages$/.exec(url.pathname);
      if (send && req.method === 'POST') {
        return json(200, {
          name: `phones/${decodeURIComponent(send[1]!)}/agentMessages/${url.searchParams.get('messageId') ?? ''}`,
          sendTime: '2018-12-31T15:01:23.045123456Z',
          contentMessage: body?.contentMessage,
        });
      }
      return json(404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

for (const { dialect, skip, test: dialectTest } of await dialects()) {
  describe(`rbm conformance through the HTTP route (${dialect})`, { skip }, () => {
    let s: TestServer;
    let platform: Awaited<ReturnType<typeof startRecordedPlatform>>;
    let hook: WebhookReceiver;
    let channelId: string;
    let eventsUrl: string;

    before(async () => {
      platform = await startRecordedPlatform();
      s = await startTestServer(dialect, {
        workers: true,
        env: {
          RBM_API_URL: platform.url,
          RBM_MANAGEMENT_URL: `${platform.url}/mgmt`,
          RBM_TOKEN_URL: `${platform.url}/token`,
          RBM_SIGNATURE_HEADER: SIGNATURE_HEADER,
          PLATFORM_TIMEOUT_MS: '2000',
          WEBHOOK_RETRY_SCHEDULE: '1,1,1',
        },
      });
      hook = await startWebhookReceiver();
      const key = {
        type: 'service_account',
        client_email: 'rbm-agent@partner-project.iam.example',
        private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        token_uri: `${platform.url}/token`,
      };
      const made = await s.api.post('/v1/channels', {
        type: 'rbm',
        name: 'RCS',
        region: 'north_america',
        webhook: { url: hook.url },
        rbm: { agent_name: 'Welcome', service_account_key: key, agent_id: `brands/b1/agents/${AGENT}`, client_token: CLIENT_TOKEN },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.rbm.agent_state, 'launched', 'read from the recorded verification and launch');
      hook.secret = made.body.webhook.secret;
      channelId = made.body.id;
      eventsUrl = made.body.rbm.webhook_url;
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([platform?.close(), hook?.close()]);
    });

    const post = (body: Buffer, headers: Record<string, string>) =>
      fetch(eventsUrl, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': 'application/json', ...headers } });

    dialectTest('the handshake, a user message and the receipts with the suffixed agent id become events; tampered calls store nothing', async () => {
      const handshake = await post(Buffer.from(JSON.stringify({ clientToken: CLIENT_TOKEN, secret: '1234567890' })), {});
      assert.equal(handshake.status, 200);
      assert.equal(await handshake.text(), '1234567890');

      const hello = envelope({ ...TEXT, messageId: `Ms-${dialect}-1` });
      const tampered = envelope({ ...TEXT, messageId: `Ms-${dialect}-0`, text: 'tampered' });
      assert.notEqual((await post(tampered.body, { [SIGNATURE_HEADER]: sign(hello.data) })).status, 200, 'a signature of other data');
      assert.equal((await post(hello.body, { [SIGNATURE_HEADER]: sign(hello.data) })).status, 200);
      const received = await hook.waitFor('message_received', (e) => e.data.content.payload === 'Hello to you!');
      assert.equal(received.signatureValid, true);
      assert.equal(received.data.contact.phone_number, PHONE);
      assert.equal(received.data.channel.id, channelId);

      // A message of the service, then the platform's DELIVERED and READ naming it (suffixed agent id).
      const sent = await s.api.post('/v1/messages', {
        channel: { id: channelId },
        contact: { phone_number: PHONE },
        content: { type: 'text', payload: 'Hello, World!' },
      });
      assert.equal(sent.status, 201, sent.text);
      const platformId = await eventually(async () => {
        const m = platform.requests.find(
          (r) => r.path.startsWith(`/v1/phones/${encodeURIComponent(PHONE)}/agentMessages`) && r.body?.contentMessage?.text === 'Hello, World!',
        );
        return m ? new URL(m.path, 'http://x').searchParams.get('messageId')! : undefined;
      });
      const sendCall = platform.requests.find((r) => r.path.includes(`messageId=${platformId}`))!;
      assert.equal(new URL(sendCall.path, 'http://x').searchParams.get('agentId'), AGENT, 'the API takes the bare agent id');
      assert.deepEqual(sendCall.body.contentMessage, { text: 'Hello, World!' });

      const delivered = envelope({ ...DELIVERED, eventId: `Ev-${dialect}-d`, messageId: platformId });
      assert.equal((await post(delivered.body, { [SIGNATURE_HEADER]: sign(delivered.data) })).status, 200);
      const deliveredEvent = await hook.waitFor('messages_delivered');
      assert.deepEqual(deliveredEvent.data.messages, [{ id: sent.body.id }]);
      const read = envelope({ ...READ, eventId: `Ev-${dialect}-r`, messageId: platformId });
      assert.equal((await post(read.body, { [SIGNATURE_HEADER]: sign(read.data) })).status, 200);
      await hook.waitFor('messages_read');
      const got = await s.api.get(`/v1/messages/${sent.body.id}`);
      assert.notEqual(got.body.delivered, null);
      assert.notEqual(got.body.read, null);

      const contactId = received.data.contact.id as string;
      const stored = await s.api.get(`/v1/channels/${channelId}/contacts/${contactId}/messages`);
      assert.equal(stored.body.filter((m: any) => m.content.payload === 'tampered').length, 0, 'the tampered call stored nothing');
    });
  });
}
