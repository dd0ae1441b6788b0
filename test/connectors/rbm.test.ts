import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { dialects } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { createRbmStandIn } from '../../sandbox/rbm/server.js';
import { http, type JsonAnswer } from './helpers/harness.js';

const TESTER = '+420601100200';
const STRANGER = '+420601100300';
const LAUNCHED_USER = '+420601100400';
const OFFLINE = '+420601100500';
const PLAIN_PHONE = '+420601100600';

type Key = Record<string, string>;

/** What the platform needs to register an agent (its profile and the verification contact) and to launch it. */
const PROFILE = {
  description: 'Coffee to go, ordered by message.',
  logo_url: 'https://coffee.example/logo.png',
  hero_url: 'https://coffee.example/hero.png',
  color: '#0B78D0',
  billing_category: 'conversational',
  use_case: 'transactional',
  privacy_policy: { url: 'https://coffee.example/privacy', label: 'Privacy' },
  terms_and_conditions: { url: 'https://coffee.example/terms' },
  phones: [{ number: '+420601999000', label: 'Call us' }],
  websites: [{ url: 'https://coffee.example', label: 'Website' }],
};
const VERIFICATION = {
  partner_name: 'Alice Partner',
  partner_email: 'alice@partner.example',
  brand_contact_name: 'Bob Brand',
  brand_contact_email: 'bob@coffee.example',
  brand_website_url: 'https://coffee.example/',
};
const QUESTIONNAIRE = {
  contacts: [{ name: 'Bob Brand', title: 'Owner', email: 'bob@coffee.example' }],
  opt_in_description: 'Customers opt in at the counter.',
  trigger_description: 'An order is ready.',
  interactions_description: 'Order updates and questions about orders.',
  opt_out_description: 'Reply STOP; we confirm and send nothing more.',
  access_instructions: 'Send any text to the agent from a tester number.',
  video_urls: ['https://coffee.example/demo.mp4'],
};

for (const { dialect, skip, test } of await dialects()) {
  describe(`rbm connector over real HTTP (${dialect})`, { skip }, () => {
    let s: TestServer;
    let rbm: ReturnType<typeof createRbmStandIn>;
    let base: string;
    const hooks: WebhookReceiver[] = [];
    const sandbox = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<JsonAnswer> =>
      http(method, `${base}/_sandbox${path}`, body);

    before(async () => {
      rbm = createRbmStandIn();
      base = await rbm.listen(0);
      s = await startTestServer(dialect, {
        workers: true,
        env: {
          RBM_API_URL: base,
          RBM_MANAGEMENT_URL: `${base}/mgmt`,
          RBM_TOKEN_URL: `${base}/token`,
          PLATFORM_TIMEOUT_MS: '2000',
          WEBHOOK_RETRY_SCHEDULE: '1,1,1',
        },
      });
      for (const phone_number of [TESTER, STRANGER, LAUNCHED_USER]) assert.equal((await sandbox('/phones', { phone_number, features: undefined })).status, 201);
      assert.equal((await sandbox('/phones', { phone_number: OFFLINE, rcs_enabled: false })).status, 201);
      assert.equal((await sandbox('/phones', { phone_number: PLAIN_PHONE, features: ['RICHCARD_STANDALONE'] })).status, 201);
    });
    after(async () => {
      await s?.close();
      await Promise.allSettled([rbm?.close(), ...hooks.map((h) => h.close())]);
    });

    async function hook(): Promise<WebhookReceiver> {
      const h = await startWebhookReceiver();
      hooks.push(h);
      return h;
    }

    async function partnerKey(): Promise<Key> {
      const made = await sandbox('/partners', {});
      assert.equal(made.status, 201, made.text);
      return made.body.service_account_key as Key;
    }

    /** An agent the partner has already (made by the control API), named by `rbm.agent_id`. */
    async function existingAgent(launched: boolean): Promise<{ id: string; key: Key }> {
      const made = await sandbox('/agents', { display_name: 'Coffee', launched_carriers: launched ? ['sandbox-carrier'] : [] });
      assert.equal(made.status, 201, made.text);
      return { id: made.body.agent.id as string, key: made.body.service_account_key as Key };
    }

    async function channel(rbmObject: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<{ id: string; hook: WebhookReceiver; body: any }> {
      const h = await hook();
      const res = await s.api.post('/v1/channels', {
        type: 'rbm',
        name: 'RCS',
        region: 'europe',
        webhook: { url: h.url },
        rbm: { agent_name: 'Coffee Shop', ...rbmObject },
        ...extra,
      });
      assert.equal(res.status, 201, res.text);
      h.secret = res.body.webhook.secret;
      return { id: res.body.id, hook: h, body: res.body };
    }

    /** Points the agent's webhook at the channel (as the console does): the handshake runs first. */
    async function connectWebhook(agentId: string, body: any): Promise<void> {
      const put = await sandbox(`/agents/${agentId}/webhook`, { url: body.rbm.webhook_url, client_token: body.rbm.client_token }, 'PUT');
      assert.equal(put.status, 200, put.text);
    }

    const send = (channelId: string, phone: string, content: unknown) =>
      s.api.post('/v1/messages', { channel: { id: channelId }, contact: { phone_number: phone }, content });

    async function sentBodies(agentId: string, phone: string): Promise<any[]> {
      return ((await sandbox(`/agents/${agentId}/messages?phone=${encodeURIComponent(phone)}`)).body.messages as any[]).map((m) => m.body);
    }

    test('credentials: the key is checked with the token endpoint (422 naming the field, 502 when down), shown only as its client_email', async () => {
      const key = await partnerKey();
      const made = await channel({ service_account_key: key });
      assert.deepEqual(made.body.rbm.service_account_key, { client_email: key.client_email });
      assert.equal(made.body.rbm.webhook_url, `${s.baseUrl}/inbound/${made.id}/events`);
      assert.match(made.body.rbm.client_token, /^[A-Za-z0-9_-]{20,}$/);
      const got = await s.api.get(`/v1/channels/${made.id}`);
      assert.ok(!got.text.includes('PRIVATE KEY'), 'the private key is never shown');
      assert.deepEqual(got.body.rbm.service_account_key, { client_email: key.client_email });

      // A key the platform does not know (same e-mail, another private key): refused.
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const forged = await s.api.post('/v1/channels', {
        type: 'rbm',
        name: 'RCS',
        rbm: { agent_name: 'A', service_account_key: { ...key, private_key: other } },
      });
      assert.equal(forged.status, 422, forged.text);
      assert.equal(forged.body.errors[0].field, 'rbm.service_account_key');
      const unreadable = await s.api.post('/v1/channels', {
        type: 'rbm',
        name: 'RCS',
        rbm: { agent_name: 'A', service_account_key: { ...key, private_key: 'not a key' } },
      });
      assert.equal(unreadable.status, 422, unreadable.text);
      assert.equal(unreadable.body.errors[0].field, 'rbm.service_account_key');
      const missing = await s.api.post('/v1/channels', { type: 'rbm', name: 'RCS', rbm: { agent_name: 'A', service_account_key: { client_email: 'x@y' } } });
      assert.equal(missing.status, 422, missing.text);

      await sandbox('/faults', { kind: 'server_error', endpoint: 'token', status: 503 });
      const down = await s.api.post('/v1/channels', { type: 'rbm', name: 'RCS', rbm: { agent_name: 'A', service_account_key: await partnerKey() } });
      assert.equal(down.status, 502, down.text);

      // A changed key is checked again; an agent the partner does not have is refused.
      const changed = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { service_account_key: { ...key, private_key: other } } });
      assert.equal(changed.status, 422, changed.text);
      assert.equal(changed.body.errors[0].field, 'rbm.service_account_key');
      const unknownAgent = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_id: 'nobody_agent' } });
      assert.equal(unknownAgent.status, 422, unknownAgent.text);
      assert.equal(unknownAgent.body.errors[0].field, 'rbm.agent_id');
      const rotated = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { service_account_key: await partnerKey() } });
      assert.equal(rotated.status, 200, rotated.text);
      assert.notEqual(rotated.body.rbm.service_account_key.client_email, key.client_email);

      const doc = await s.api.get('/v1/openapi.json');
      assert.match(doc.text, /service_account_key/);
      assert.match(doc.text, /listTesters/);
      // The fields the platform needs for the agent are documented, as beyond the specification.
      const createRbm = JSON.stringify(doc.body).match(/"agent_profile":\{[^]*?"description":"(Beyond the specification[^"]*)"/);
      assert.ok(createRbm, 'agent_profile is in the OpenAPI document with its description');
      for (const field of ['verification_contact', 'launch_questionnaire', 'billing_category', 'brand_website_url', 'opt_out_description'])
        assert.match(doc.text, new RegExp(field));
    });

    test('agent life cycle driven by the platform: registered, verified (background check), launch rejected with its reason, launched; each change announced', async () => {
      const made = await channel({ service_account_key: await partnerKey() }, { mode: 'production' });
      // The platform registers no agent without its profile and verification contact: asked for without them, 422 naming the field.
      const bare = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_state: 'create_requested' } });
      assert.equal(bare.status, 422, bare.text);
      assert.equal(bare.body.errors[0].field, 'rbm.agent_profile.description');
      const { logo_url: _logo, ...noLogo } = PROFILE;
      const withoutLogo = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_state: 'create_requested', agent_profile: noLogo } });
      assert.equal(withoutLogo.status, 422, withoutLogo.text);
      assert.equal(withoutLogo.body.errors[0].field, 'rbm.agent_profile.logo_url');
      const { phones: _phones, ...noContact } = PROFILE;
      const withoutContact = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_state: 'create_requested', agent_profile: noContact } });
      assert.equal(withoutContact.status, 422, withoutContact.text);
      assert.equal(withoutContact.body.errors[0].field, 'rbm.agent_profile.phones');
      const noWebsite = await s.api.patch(`/v1/channels/${made.id}`, {
        rbm: { agent_state: 'create_requested', agent_profile: PROFILE, verification_contact: { ...VERIFICATION, brand_website_url: undefined } },
      });
      assert.equal(noWebsite.status, 422, noWebsite.text);
      assert.equal(noWebsite.body.errors[0].field, 'rbm.verification_contact.brand_website_url');
      assert.equal((await s.api.get(`/v1/channels/${made.id}`)).body.rbm.agent_state, 'new', 'a refused request changes nothing');
      const requested = await s.api.patch(`/v1/channels/${made.id}`, {
        rbm: { agent_state: 'create_requested', agent_profile: PROFILE, verification_contact: VERIFICATION },
      });
      assert.equal(requested.status, 200, requested.text);
      assert.deepEqual(requested.body.rbm.agent_profile, PROFILE);

      // The service registers the brand and the agent and asks for verification by itself.
      const agentId = await eventually(async () => {
        const got = await s.api.get(`/v1/channels/${made.id}`);
        return typeof got.body.rbm.agent_id === 'string' ? (got.body.rbm.agent_id as string) : undefined;
      });
      const agent = (await sandbox(`/agents/${agentId}`)).body.agent;
      assert.equal(agent.display_name, 'Coffee Shop');
      assert.equal(agent.region, 'europe');
      assert.equal(agent.verification, 'VERIFICATION_STATE_PENDING');
      // The platform has the agent's profile and the verification contact as the channel gave them.
      assert.deepEqual(agent.profile, {
        description: PROFILE.description,
        logoUri: PROFILE.logo_url,
        heroUri: PROFILE.hero_url,
        phoneNumbers: [{ phoneNumber: { number: '+420601999000' }, label: 'Call us' }],
        websites: [{ uri: 'https://coffee.example', label: 'Website' }],
        privacy: { uri: 'https://coffee.example/privacy', label: 'Privacy' },
        termsConditions: { uri: 'https://coffee.example/terms' },
        color: '#0B78D0',
        billingConfig: { billingCategory: 'CONVERSATIONAL' },
        agentUseCase: 'TRANSACTIONAL',
        hostingRegion: 'EUROPE',
      });
      const verificationCalls = (await sandbox('/requests?path_contains=:requestVerification')).body.requests as Array<{ path: string; body: any }>;
      assert.deepEqual(verificationCalls.find((r) => r.path.includes(agentId))?.body, {
        agentVerificationContact: {
          partnerName: 'Alice Partner',
          partnerEmailAddress: 'alice@partner.example',
          brandContactName: 'Bob Brand',
          brandContactEmailAddress: 'bob@coffee.example',
          brandWebsiteUrl: 'https://coffee.example/',
        },
      });
      assert.equal((await s.api.get(`/v1/channels/${made.id}`)).body.rbm.agent_state, 'create_requested');

      // The platform verifies it: the background check learns it without being asked.
      await sandbox(`/agents/${agentId}/verification`, { state: 'VERIFICATION_STATE_VERIFIED' });
      const created = await made.hook.waitFor('channel_state_changed', (e) => e.data.agent_state === 'created', 20_000);
      assert.equal(created.signatureValid, true);
      assert.deepEqual(created.data, {
        channel: { id: made.id, type: 'rbm', name: 'RCS' },
        agent_state: 'created',
        previous_agent_state: 'create_requested',
        reason: null,
      });
      assert.equal((await s.api.get(`/v1/channels/${made.id}`)).body.rbm.agent_state, 'created');

      // Launch: the questionnaire is needed (422 naming the field without it); requested in every region the platform lists; the reviewers reject it.
      const unanswered = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_state: 'launch_requested' } });
      assert.equal(unanswered.status, 422, unanswered.text);
      assert.equal(unanswered.body.errors[0].field, 'rbm.launch_questionnaire.contacts');
      const { trigger_description: _trigger, ...noTrigger } = QUESTIONNAIRE;
      const partly = await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_state: 'launch_requested', launch_questionnaire: noTrigger } });
      assert.equal(partly.status, 422, partly.text);
      assert.equal(partly.body.errors[0].field, 'rbm.launch_questionnaire.trigger_description');
      assert.equal(
        (await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_state: 'launch_requested', launch_questionnaire: QUESTIONNAIRE } })).status,
        200,
      );
      await eventually(async () =>
        ((await sandbox(`/agents/${agentId}`)).body.agent.launch['sandbox-carrier'] as string) === 'LAUNCH_STATE_PENDING' ? true : undefined,
      );
      const launchCalls = (await sandbox('/requests?path_contains=:requestLaunch')).body.requests as Array<{ path: string; body: any }>;
      assert.deepEqual(launchCalls.find((r) => r.path.includes(agentId))?.body, {
        agentLaunch: {
          rbm: {
            questionnaire: {
              contacts: [{ name: 'Bob Brand', title: 'Owner', email: 'bob@coffee.example' }],
              optinDescription: QUESTIONNAIRE.opt_in_description,
              triggerDescription: QUESTIONNAIRE.trigger_description,
              interactionsDescription: QUESTIONNAIRE.interactions_description,
              optoutDescription: QUESTIONNAIRE.opt_out_description,
              agentAccessInstructions: QUESTIONNAIRE.access_instructions,
              videoUris: ['https://coffee.example/demo.mp4'],
            },
            launchDetails: { '/v1/regions/sandbox-carrier': {} },
          },
        },
      });
      await sandbox(`/agents/${agentId}/launch`, { carrier: 'sandbox-carrier', state: 'LAUNCH_STATE_REJECTED', comment: 'The logo is missing.' });
      const refreshed = await s.api.get(`/v1/channels/${made.id}?refresh=true`);
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(refreshed.body.rbm.agent_state, 'created');
      assert.equal(refreshed.body.rbm.agent_state_reason, 'The logo is missing.');
      const back = await made.hook.waitFor('channel_state_changed', (e) => e.data.previous_agent_state === 'launch_requested');
      assert.equal(back.data.agent_state, 'created');
      assert.equal(back.data.reason, 'The logo is missing.');

      // Asked again (PATCH of the launch adds the regions), approved, seen at once with ?refresh=true.
      assert.equal((await s.api.patch(`/v1/channels/${made.id}`, { rbm: { agent_state: 'launch_requested' } })).status, 200);
      await eventually(async () =>
        ((await sandbox(`/agents/${agentId}`)).body.agent.launch['sandbox-carrier'] as string) === 'LAUNCH_STATE_PENDING' ? true : undefined,
      );
      await sandbox(`/agents/${agentId}/launch`, { carrier: 'sandbox-carrier', state: 'LAUNCH_STATE_LAUNCHED' });
      const launched = await s.api.get(`/v1/channels/${made.id}?refresh=true`);
      assert.equal(launched.body.rbm.agent_state, 'launched');
      assert.equal(launched.body.rbm.agent_state_reason, undefined);
      await made.hook.waitFor('channel_state_changed', (e) => e.data.agent_state === 'launched');
      const sent = await send(made.id, LAUNCHED_USER, { type: 'text', payload: 'We are live' });
      assert.equal(sent.status, 201, sent.text);
      await eventually(async () => ((await sentBodies(agentId, LAUNCHED_USER)).length === 1 ? true : undefined));

      // The platform down: ?refresh=true answers 502; the stored state stays.
      await sandbox('/faults', { kind: 'server_error', endpoint: 'verification', status: 503 });
      const down = await s.api.get(`/v1/channels/${made.id}?refresh=true`);
      assert.equal(down.status, 502, down.text);
      assert.equal((await s.api.get(`/v1/channels/${made.id}`)).body.rbm.agent_state, 'launched');

      // Without a key the agent cannot be registered: the state stays, with the reason.
      const keyless = await channel({});
      assert.equal(keyless.body.rbm.service_account_key, undefined);
      assert.equal((await s.api.patch(`/v1/channels/${keyless.id}`, { rbm: { agent_state: 'create_requested' } })).status, 200);
      const reasoned = await eventually(async () => {
        const got = await s.api.get(`/v1/channels/${keyless.id}`);
        return got.body.rbm.agent_state_reason === undefined ? undefined : got.body.rbm;
      });
      assert.equal(reasoned.agent_state, 'create_requested');
      assert.match(reasoned.agent_state_reason, /no service account key/);

      // A verification request that failed after the agent was registered is made again by the check.
      const other = await channel({ service_account_key: await partnerKey(), agent_profile: PROFILE, verification_contact: VERIFICATION });
      await sandbox('/faults', { kind: 'server_error', endpoint: 'verification', status: 503 });
      assert.equal((await s.api.patch(`/v1/channels/${other.id}`, { rbm: { agent_state: 'create_requested' } })).status, 200);
      const registered = await eventually(async () => {
        const got = await s.api.get(`/v1/channels/${other.id}`);
        return typeof got.body.rbm.agent_id === 'string' ? got.body : undefined;
      });
      assert.equal(registered.rbm.agent_state, 'create_requested');
      await eventually(
        async () => ((await sandbox(`/agents/${registered.rbm.agent_id}`)).body.agent.verification === 'VERIFICATION_STATE_PENDING' ? true : undefined),
        20_000,
        'verification requested again',
      );
    });

    test('testers: invite, list with the platform’s answer, remove; a production send to a number that is not an accepted tester answers 422', async () => {
      const agent = await existingAgent(false);
      const made = await channel({ service_account_key: agent.key, agent_id: agent.id });
      assert.equal(made.body.rbm.agent_state, 'created', 'an existing verified agent is created');

      const refused = await send(made.id, TESTER, { type: 'text', payload: 'Hi' });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.body.errors[0].field, 'contact.phone_number');
      assert.match(refused.body.errors[0].message, /not an accepted tester/);

      const invited = await s.api.post(`/v1/channels/${made.id}/testers`, { phone_number: '00420 601 100 200' });
      assert.equal(invited.status, 201, invited.text);
      assert.deepEqual(invited.body, { phone_number: TESTER, invite_state: 'pending' });
      assert.equal((await send(made.id, TESTER, { type: 'text', payload: 'Hi' })).status, 422, 'a pending tester is not reached');
      const again = await s.api.post(`/v1/channels/${made.id}/testers`, { phone_number: TESTER });
      assert.equal(again.status, 201, again.text);
      assert.equal(again.body.invite_state, 'pending');
      const bad = await s.api.post(`/v1/channels/${made.id}/testers`, { phone_number: 'nope' });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.errors[0].field, 'phone_number');

      await sandbox(`/agents/${agent.id}/testers/${encodeURIComponent(TESTER)}`, { status: 'ACCEPTED' });
      await sandbox(`/agents/${agent.id}/testers/${encodeURIComponent(STRANGER)}`, { status: 'DECLINED' });
      const listed = await s.api.get(`/v1/channels/${made.id}/testers`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        [...listed.body].sort((a: any, b: any) => a.phone_number.localeCompare(b.phone_number)),
        [
          { phone_number: TESTER, invite_state: 'accepted' },
          { phone_number: STRANGER, invite_state: 'declined' },
        ],
      );
      const ok = await send(made.id, TESTER, { type: 'text', payload: 'Hi tester' });
      assert.equal(ok.status, 201, ok.text);
      await eventually(async () => ((await sentBodies(agent.id, TESTER)).length === 1 ? true : undefined));
      assert.equal((await send(made.id, STRANGER, { type: 'text', payload: 'Hi' })).status, 422, 'a declined tester is not reached');

      assert.equal((await s.api.delete(`/v1/channels/${made.id}/testers/${encodeURIComponent(TESTER)}`)).status, 204);
      assert.deepEqual((await s.api.get(`/v1/channels/${made.id}/testers`)).body, [{ phone_number: STRANGER, invite_state: 'declined' }]);
      assert.equal((await send(made.id, TESTER, { type: 'text', payload: 'Hi' })).status, 422);

      // Other types have no testers.
      const mobileLike = await s.api.post('/v1/channels', { type: 'service_chat', name: 'Web' });
      assert.equal((await s.api.get(`/v1/channels/${mobileLike.body.id}/testers`)).status, 422);
    });

    test('sending: each content type rendered as the platform takes it, with its limits at Send Message', async () => {
      const agent = await existingAgent(true);
      const made = await channel({ service_account_key: agent.key, agent_id: agent.id });
      assert.equal(made.body.rbm.agent_state, 'launched');
      const phone = LAUNCHED_USER;
      const contents: Array<[unknown, (body: any) => void]> = [
        [
          { type: 'text', payload: 'x'.repeat(3072), quick_replies: [{ type: 'text', title: 'Yes', payload: 'YES' }, { type: 'location' }] },
          (b) => {
            assert.equal(b.contentMessage.text.length, 3072);
            assert.deepEqual(b.contentMessage.suggestions, [
              { reply: { text: 'Yes', postbackData: 'YES' } },
              { action: { text: 'Share location', postbackData: 'share_location', shareLocationAction: {} } },
            ]);
            assert.match(b.ttl, /^\d+s$/);
          },
        ],
        [
          { type: 'image', payload: { url: 'https://cdn.example.com/a.png' } },
          (b) => assert.deepEqual(b.contentMessage.contentInfo, { fileUrl: 'https://cdn.example.com/a.png' }),
        ],
        [
          { type: 'video', payload: { url: 'https://cdn.example.com/a.mp4' } },
          (b) => assert.equal(b.contentMessage.contentInfo.fileUrl, 'https://cdn.example.com/a.mp4'),
        ],
        [
          { type: 'file', payload: { url: 'https://cdn.example.com/a.pdf' } },
          (b) => assert.equal(b.contentMessage.contentInfo.fileUrl, 'https://cdn.example.com/a.pdf'),
        ],
        [
          { type: 'location', payload: { latitude: 50.08, longitude: 14.42 } },
          (b) => assert.deepEqual(b.contentMessage.suggestions[0].action.viewLocationAction, { latLong: { latitude: 50.08, longitude: 14.42 } }),
        ],
        [
          {
            type: 'structure',
            payload: {
              title: 'Latte',
              text: 'Hot and fresh',
              image_url: 'https://cdn.example.com/latte.png',
              item_url: 'https://shop.example.com/latte',
              buttons: [
                { type: 'url', title: 'Menu', payload: 'https://shop.example.com/menu' },
                { type: 'phone', title: 'Call us', payload: '+420601000111' },
                { type: 'postback', title: 'Order', payload: 'ORDER_LATTE' },
              ],
            },
          },
          (b) => {
            const card = b.contentMessage.richCard.standaloneCard.cardContent;
            assert.equal(card.title, 'Latte');
            assert.equal(card.description, 'Hot and fresh');
            assert.equal(card.media.contentInfo.fileUrl, 'https://cdn.example.com/latte.png');
            assert.deepEqual(card.suggestions[0].action.openUrlAction, { url: 'https://shop.example.com/menu' });
            assert.deepEqual(card.suggestions[1].action.dialAction, { phoneNumber: '+420601000111' });
            assert.deepEqual(card.suggestions[2], { reply: { text: 'Order', postbackData: 'ORDER_LATTE' } });
            assert.deepEqual(card.suggestions[3].action.openUrlAction, { url: 'https://shop.example.com/latte' });
          },
        ],
        [
          { type: 'structure', payload: Array.from({ length: 10 }, (_, i) => ({ title: `Card ${i}` })) },
          (b) => assert.equal(b.contentMessage.richCard.carouselCard.cardContents.length, 10),
        ],
      ];
      for (const [content] of contents) {
        const res = await send(made.id, phone, content);
        assert.equal(res.status, 201, res.text);
      }
      const bodies = await eventually(async () => {
        const list = await sentBodies(agent.id, phone);
        return list.length === contents.length ? list : undefined;
      });
      // The send worker takes them in any order: match each by its kind.
      assert.equal(new Set(bodies.map((b) => JSON.stringify(b.contentMessage))).size, contents.length, 'every content went out once');
      for (const [content, check] of contents) {
        const c = content as any;
        const match = bodies.find((b) => {
          const cm = b.contentMessage;
          if (c.type === 'text') return typeof cm.text === 'string' && cm.text.length > 100;
          if (c.type === 'location') return cm.text === 'Location';
          if (c.type === 'structure') return Array.isArray(c.payload) ? cm.richCard?.carouselCard !== undefined : cm.richCard?.standaloneCard !== undefined;
          return cm.contentInfo?.fileUrl === c.payload.url;
        });
        assert.ok(match, `sent: ${c.type}`);
        check(match);
      }

      const limits: Array<[unknown, string]> = [
        [{ type: 'text', payload: 'x'.repeat(3073) }, 'content.payload'],
        [{ type: 'structure', payload: [{ title: 'Only one' }] }, 'content.payload'],
        [{ type: 'structure', payload: Array.from({ length: 11 }, (_, i) => ({ title: `Card ${i}` })) }, 'content.payload'],
        [{ type: 'structure', payload: { item_url: 'https://shop.example.com' } }, 'content.payload.title'],
        [
          {
            type: 'location',
            payload: { latitude: 1, longitude: 2 },
            quick_replies: Array.from({ length: 11 }, (_, i) => ({ type: 'text', title: `Q${i}`, payload: `Q${i}` })),
          },
          'content.quick_replies',
        ],
        [{ type: 'text', payload: 'x', quick_replies: [{ type: 'email' }] }, 'content.quick_replies[0].type'],
        [
          { type: 'text', payload: 'x', quick_replies: [{ type: 'text', title: 'Hi', payload: 'HI' }, { type: 'phone_number' }] },
          'content.quick_replies[1].type',
        ],
      ];
      for (const [content, field] of limits) {
        const res = await send(made.id, phone, content);
        assert.equal(res.status, 422, `${JSON.stringify(content).slice(0, 60)}: ${res.text}`);
        assert.equal(res.body.errors[0].field, field);
      }
      const tenReplies = await send(made.id, phone, {
        type: 'location',
        payload: { latitude: 1, longitude: 2 },
        quick_replies: Array.from({ length: 10 }, (_, i) => ({ type: 'text', title: `Q${i}`, payload: `Q${i}` })),
      });
      assert.equal(tenReplies.status, 201, tenReplies.text);

      const caps = await s.api.get(`/v1/channels/${made.id}/capabilities`);
      assert.equal(caps.status, 200, caps.text);
      assert.equal(caps.body.delivery, 'async');
      assert.equal(caps.body.max_cards, 10);
      assert.equal(caps.body.max_text_length, 3072);
    });

    test('failures: an unreachable user fails the message with code 3, a refusal with code 1, an outage is retried and sent once', async () => {
      const agent = await existingAgent(true);
      const made = await channel({ service_account_key: agent.key, agent_id: agent.id });

      const unreachable = await send(made.id, OFFLINE, { type: 'text', payload: 'Anyone?' });
      assert.equal(unreachable.status, 201, unreachable.text);
      const failed = await made.hook.waitFor('message_failed', (e) => e.data.message.id === unreachable.body.id);
      assert.equal(failed.data.error.code, 3);
      const stored = await s.api.get(`/v1/messages/${unreachable.body.id}`);
      assert.equal(stored.body.status, 'failed');
      assert.equal(stored.body.error.code, 3);

      // The device lacks the carousel feature: the platform answers 400, a permanent failure.
      const carousel = await send(made.id, PLAIN_PHONE, { type: 'structure', payload: [{ title: 'A' }, { title: 'B' }] });
      assert.equal(carousel.status, 201);
      await eventually(async () => {
        const got = await s.api.get(`/v1/messages/${carousel.body.id}`);
        return got.body.status === 'failed' ? got.body : undefined;
      }).then((m) => assert.equal(m.error.code, 1));

      await sandbox('/faults', { kind: 'server_error', endpoint: 'agentMessages', status: 503 });
      const retried = await send(made.id, PLAIN_PHONE, { type: 'text', payload: 'After the outage' });
      assert.equal(retried.status, 201);
      await eventually(
        async () => ((await s.api.get(`/v1/messages/${retried.body.id}`)).body.status === 'sent' ? true : undefined),
        30_000,
        'the retried message sent',
      );
      const texts = (await sentBodies(agent.id, PLAIN_PHONE)).filter((b) => b.contentMessage.text === 'After the outage');
      assert.equal(texts.length, 1);
    });

    test('inbound: handshake, signature over the decoded data, messages, files, locations, suggestions, receipts; repeats change nothing', async () => {
      const agent = await existingAgent(true);
      const made = await channel({ service_account_key: agent.key, agent_id: agent.id });
      const url = made.body.rbm.webhook_url as string;
      // The handshake: a wrong client token is refused, the channel's answered with the secret.
      const wrong = await sandbox(`/agents/${agent.id}/webhook`, { url, client_token: 'NOT-THE-CHANNELS' }, 'PUT');
      assert.equal(wrong.status, 422, wrong.text);
      await connectWebhook(agent.id, made.body);
      const user = (path: string, body: unknown = {}) => sandbox(`/agents/${agent.id}/phones/${encodeURIComponent(LAUNCHED_USER)}/${path}`, body);

      const hello = await user('messages', { text: 'Ahoj' });
      assert.equal(hello.body.webhook.status, 200, hello.text);
      const received = await made.hook.waitFor('message_received', (e) => e.data.content.payload === 'Ahoj');
      assert.equal(received.data.contact.phone_number, LAUNCHED_USER);
      const contactId = received.data.contact.id as string;

      // The same call again (the platform's retry) is reported once.
      assert.equal((await sandbox(`/webhooks/${hello.body.webhook.delivery_id}/redeliver`, {})).status, 200);
      await user('messages', { text: 'Second' });
      await made.hook.waitFor('message_received', (e) => e.data.content.payload === 'Second');
      assert.equal(made.hook.events.filter((e) => e.event === 'message_received' && e.data.content.payload === 'Ahoj').length, 1);

      await user('file', { file_name: 'cup.png' });
      const file = await made.hook.waitFor('message_received', (e) => e.data.content.type === 'image');
      assert.match(file.data.content.payload.url, new RegExp(`^${s.baseUrl}/files/`));
      const fetched = await fetch(file.data.content.payload.url);
      assert.equal(fetched.status, 200);
      assert.equal(fetched.headers.get('content-type'), 'image/png');
      await user('location', { latitude: 49.19, longitude: 16.6 });
      const location = await made.hook.waitFor('message_received', (e) => e.data.content.type === 'location');
      assert.deepEqual(location.data.content.payload, { latitude: 49.19, longitude: 16.6 });

      // Suggestions tapped: a reply is a message with its payload, an action a postback.
      const sent = await s.api.post('/v1/messages', {
        channel: { id: made.id },
        contact: { phone_number: LAUNCHED_USER },
        content: {
          type: 'structure',
          payload: { title: 'Latte?', buttons: [{ type: 'url', title: 'Menu', payload: 'https://shop.example.com' }] },
          quick_replies: [{ type: 'text', title: 'Large', payload: 'SIZE_L' }],
        },
      });
      assert.equal(sent.status, 201, sent.text);
      const platformId = await eventually(async () => {
        const m = (await sandbox(`/agents/${agent.id}/messages?phone=${encodeURIComponent(LAUNCHED_USER)}`)).body.messages.find(
          (x: any) => x.body.contentMessage.richCard,
        );
        return m?.messageId as string | undefined;
      });
      await user('suggestion', { message_id: platformId, index: 0 });
      const reply = await made.hook.waitFor('message_received', (e) => e.data.content.quick_reply?.payload === 'SIZE_L');
      assert.equal(reply.data.content.payload, 'Large');
      await user('suggestion', { message_id: platformId, index: 0, card_index: 0 });
      const postback = await made.hook.waitFor('postback');
      assert.equal(postback.data.postback.payload, 'open_url:Menu');

      // Receipts name our message by the id it was sent with.
      await eventually(async () => ((await s.api.get(`/v1/messages/${sent.body.id}`)).body.status === 'sent' ? true : undefined));
      await user('delivered', { message_id: platformId });
      const delivered = await made.hook.waitFor('messages_delivered');
      assert.deepEqual(delivered.data.messages, [{ id: sent.body.id }]);
      await user('read', { message_id: platformId });
      const read = await made.hook.waitFor('messages_read');
      assert.equal(read.data.contact.id, contactId);
      const got = await s.api.get(`/v1/messages/${sent.body.id}`);
      assert.notEqual(got.body.read, null);
      await user('read', { message_id: platformId });
      await user('typing');
      await user('messages', { text: 'Last' });
      await made.hook.waitFor('message_received', (e) => e.data.content.payload === 'Last');
      assert.equal(made.hook.events.filter((e) => e.event === 'messages_read').length, 1, 'a repeated READ changes nothing');
      assert.equal(made.hook.events.filter((e) => e.event === 'message_received').length, 6, 'typing is dropped');

      // Calls without the platform's signature, or with a wrong one, store nothing.
      const data = Buffer.from(
        JSON.stringify({
          senderPhoneNumber: LAUNCHED_USER,
          messageId: crypto.randomUUID(),
          sendTime: new Date().toISOString(),
          agentId: agent.id,
          text: 'forged',
        }),
      );
      const envelope = JSON.stringify({ message: { data: data.toString('base64'), messageId: '1', publishTime: new Date().toISOString() }, subscription: 's' });
      const unsigned = await http('POST', url, envelope, { 'content-type': 'application/json' });
      assert.equal(unsigned.status, 404);
      const badSig = createHmac('sha512', 'another-token').update(data).digest('base64');
      const forged = await http('POST', url, envelope, { 'content-type': 'application/json', 'x-rbm-signature': badSig });
      assert.equal(forged.status, 404);
      // Signed over the envelope instead of the decoded data: refused too.
      const overEnvelope = createHmac('sha512', made.body.rbm.client_token).update(envelope).digest('base64');
      assert.equal((await http('POST', url, envelope, { 'content-type': 'application/json', 'x-rbm-signature': overEnvelope })).status, 404);
      const goodSig = createHmac('sha512', made.body.rbm.client_token).update(data).digest('base64');
      assert.equal((await http('POST', url, envelope, { 'content-type': 'application/json', 'x-rbm-signature': goodSig })).status, 200);
      await made.hook.waitFor('message_received', (e) => e.data.content.payload === 'forged');
      const messages = await s.api.get(`/v1/channels/${made.id}/contacts/${contactId}/messages`);
      assert.equal(messages.body.filter((m: any) => m.content.payload === 'forged').length, 1, 'only the signed call was stored');
    });

    test('notifications: typing_on and messages_read as agent events; test mode stores and echoes but never sends', async () => {
      const agent = await existingAgent(true);
      const made = await channel({ service_account_key: agent.key, agent_id: agent.id });
      await connectWebhook(agent.id, made.body);
      await sandbox(`/agents/${agent.id}/phones/${encodeURIComponent(LAUNCHED_USER)}/messages`, { text: 'Are you open?' });
      const received = await made.hook.waitFor('message_received');
      const contactId = received.data.contact.id as string;

      const typing = await s.api.post('/v1/notifications', { channel: { id: made.id }, contact: { id: contactId }, type: 'typing_on' });
      assert.equal(typing.status, 200, typing.text);
      const read = await s.api.post('/v1/notifications', { channel: { id: made.id }, contact: { id: contactId }, type: 'messages_read' });
      assert.equal(read.status, 200, read.text);
      const events = (await sandbox(`/agents/${agent.id}/events`)).body.events as any[];
      assert.deepEqual(
        events.map((e) => e.eventType),
        ['IS_TYPING', 'READ'],
      );
      const platformUserMessage = (rbm.state.userMessages.at(-1) as { messageId: string }).messageId;
      assert.equal(events[1].messageId, platformUserMessage);
      assert.equal((await s.api.post('/v1/notifications', { channel: { id: made.id }, contact: { id: contactId }, type: 'typing_off' })).status, 422);

      const testMode = await channel({}, { mode: 'test' });
      const before = rbm.state.agentMessages.length;
      const echoed = await send(testMode.id, LAUNCHED_USER, { type: 'text', payload: 'Only a test' });
      assert.equal(echoed.status, 201, echoed.text);
      await testMode.hook.waitFor('message_echo');
      assert.equal(rbm.state.agentMessages.length, before);
    });
  });
}
