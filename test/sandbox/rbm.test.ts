import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createSign } from 'node:crypto';
import { createRbmStandIn } from '../../sandbox/rbm/server.js';
import { startReceiver, type Received, type Receiver } from './helpers/receiver.js';
import { at, call, get, post } from './helpers/http.js';

const PHONE = '+12223334444';
const CLIENT_TOKEN = 'SJENCPGJESMGUFPY';
const SIG = 'x-rbm-signature';

interface Setup {
  base: string;
  agentId: string;
  brandId: string;
  auth: Record<string, string>;
  key: Record<string, string>;
  receiver: Receiver;
}

/** Receiver that answers the handshake by echoing the secret when the client token matches. */
function serviceLike(r: Received): { status: number; body: string } {
  try {
    const body = JSON.parse(r.text) as Record<string, unknown>;
    if (typeof body.secret === 'string') return body.clientToken === CLIENT_TOKEN ? { status: 200, body: body.secret } : { status: 403, body: '' };
  } catch {
    // not JSON
  }
  return { status: 200, body: '' };
}

async function setup(t: TestContext, opts: { launched?: boolean; webhook?: boolean } = {}): Promise<Setup> {
  const standIn = createRbmStandIn();
  const base = await standIn.listen(0);
  const receiver = await startReceiver(serviceLike);
  t.after(async () => {
    await standIn.close();
    await receiver.close();
  });
  const agent = await post(`${base}/_sandbox/agents`, { display_name: 'Coffee', launched_carriers: opts.launched === false ? [] : ['sandbox-carrier'] });
  assert.equal(agent.status, 201);
  await post(`${base}/_sandbox/phones`, { phone_number: PHONE });
  const s: Setup = {
    base,
    agentId: String(at(agent.body, 'agent', 'id')),
    brandId: String(at(agent.body, 'agent', 'brand_id')),
    auth: { authorization: `Bearer ${String(agent.body.access_token)}` },
    key: at(agent.body, 'service_account_key') as Record<string, string>,
    receiver,
  };
  if (opts.webhook !== false) {
    const hook = await call('PUT', `${base}/_sandbox/agents/${s.agentId}/webhook`, { url: `${receiver.url}/rbm`, client_token: CLIENT_TOKEN });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
  }
  return s;
}

function send(s: Setup, body: Record<string, unknown>, messageId: string = crypto.randomUUID(), phone = PHONE) {
  return post(`${s.base}/v1/phones/${encodeURIComponent(phone)}/agentMessages?messageId=${messageId}&agentId=${s.agentId}`, body, s.auth);
}

function decode(r: Received): { data: Buffer; payload: Record<string, unknown> } {
  const envelope = JSON.parse(r.text) as { message: { data: string } };
  const data = Buffer.from(envelope.message.data, 'base64');
  return { data, payload: JSON.parse(data.toString('utf8')) as Record<string, unknown> };
}

function assertion(key: Record<string, string>, scope: string, aud = key.token_uri): string {
  const now = Math.floor(Date.now() / 1000);
  const h = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: key.private_key_id })).toString('base64url');
  const p = Buffer.from(JSON.stringify({ iss: key.client_email, scope, aud, iat: now, exp: now + 3600 })).toString('base64url');
  const sig = createSign('RSA-SHA256').update(`${h}.${p}`).sign(String(key.private_key)).toString('base64url');
  return `${h}.${p}.${sig}`;
}

test('service-account OAuth: jwt-bearer grant, scope, bearer checks', async (t) => {
  const s = await setup(t, { webhook: false });
  const form = (a: string) => new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: a });
  const ok = await fetch(String(s.key.token_uri), { method: 'POST', body: form(assertion(s.key, 'rbm.messaging')) });
  const tokenBody = (await ok.json()) as Record<string, unknown>;
  assert.equal(ok.status, 200, JSON.stringify(tokenBody));
  assert.equal(tokenBody.token_type, 'Bearer');
  assert.equal(tokenBody.expires_in, 3599);
  const caps = await get(`${s.base}/v1/phones/${encodeURIComponent(PHONE)}/capabilities?requestId=r1&agentId=${s.agentId}`, {
    authorization: `Bearer ${String(tokenBody.access_token)}`,
  });
  assert.equal(caps.status, 200);
  assert.ok((at(caps.body, 'features') as string[]).includes('RICHCARD_CAROUSEL'));

  const tampered = assertion(s.key, 'rbm.messaging').slice(0, -4) + 'AAAA';
  const bad = await fetch(String(s.key.token_uri), { method: 'POST', body: form(tampered) });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as Record<string, unknown>).error, 'invalid_grant');
  const scope = await fetch(String(s.key.token_uri), { method: 'POST', body: form(assertion(s.key, 'other.scope')) });
  assert.equal(((await scope.json()) as Record<string, unknown>).error, 'invalid_scope');

  const none = await send({ ...s, auth: {} }, { contentMessage: { text: 'x' } });
  assert.equal(none.status, 401);
  assert.equal(at(none.body, 'error', 'status'), 'UNAUTHENTICATED');
  const other = await post(`${s.base}/_sandbox/agents`, {});
  const foreign = await send({ ...s, auth: { authorization: `Bearer ${String(other.body.access_token)}` } }, { contentMessage: { text: 'x' } });
  assert.equal(foreign.status, 403);
  assert.equal(at(foreign.body, 'error', 'status'), 'PERMISSION_DENIED');
});

test('reachability: launch state, testers, unknown phones; duplicate messageIds are ignored', async (t) => {
  const s = await setup(t, { launched: false });
  const unlaunched = await send(s, { contentMessage: { text: 'hi' } });
  assert.equal(unlaunched.status, 404);
  assert.deepEqual(unlaunched.body, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
  const invite = await post(`${s.base}/v1/phones/${encodeURIComponent(PHONE)}/testers?agentId=${s.agentId}`, { inviteStatus: 'PENDING' }, s.auth);
  assert.deepEqual(invite.body, { name: `phones/${PHONE}/testers`, inviteStatus: 'PENDING' });
  assert.equal((await send(s, { contentMessage: { text: 'hi' } })).status, 404, 'pending testers are not reachable');
  await post(`${s.base}/_sandbox/agents/${s.agentId}/testers/${encodeURIComponent(PHONE)}`, { status: 'ACCEPTED' });
  const id = crypto.randomUUID();
  const ok = await send(s, { contentMessage: { text: 'hi tester' } }, id);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.name, `phones/${PHONE}/agentMessages/${id}`);
  assert.match(String(ok.body.sendTime), /^\d{4}-\d\d-\d\dT/);
  const again = await send(s, { contentMessage: { text: 'second copy' } }, id);
  assert.equal(again.status, 200);
  assert.equal(at(again.body, 'contentMessage', 'text'), 'hi tester');
  const listed = await get(`${s.base}/_sandbox/agents/${s.agentId}/messages`);
  assert.equal((at(listed.body, 'messages') as unknown[]).length, 1);
  assert.equal((await send(s, { contentMessage: { text: 'x' } }, crypto.randomUUID(), '+19998887777')).status, 404);

  const launchUrl = `${s.base}/mgmt/v1/brands/${s.brandId}/agents/${s.agentId}/launch`;
  const requested = await call('PATCH', launchUrl, { rbm: { launchDetails: { '/v1/regions/other-carrier': {} } } }, s.auth);
  assert.equal(at(requested.body, 'rbm', 'launchDetails', '/v1/regions/other-carrier', 'launchState'), 'LAUNCH_STATE_PENDING');
  await post(`${s.base}/_sandbox/agents/${s.agentId}/launch`, { carrier: 'other-carrier', state: 'LAUNCH_STATE_LAUNCHED' });
  const read = await get(launchUrl, s.auth);
  assert.equal(at(read.body, 'rbm', 'launchDetails', '/v1/regions/other-carrier', 'launchState'), 'LAUNCH_STATE_LAUNCHED');
  await post(`${s.base}/_sandbox/phones`, { phone_number: '+15550001111', carrier: 'other-carrier' });
  const batch = await post(`${s.base}/v1/users:batchGet`, { users: ['+15550001111', '+19998887777', PHONE], agentId: s.agentId }, s.auth);
  assert.deepEqual(at(batch.body, 'reachableUsers'), ['+15550001111', PHONE]);
});

test('content validation and device features', async (t) => {
  const s = await setup(t, { webhook: false });
  const reply = (text: string, postbackData = 'pb') => ({ reply: { text, postbackData } });
  const cases: Array<Record<string, unknown>> = [
    { contentMessage: { text: 'x'.repeat(3073) } },
    { contentMessage: { text: 'x', suggestions: Array.from({ length: 12 }, (_, i) => reply(`s${i}`)) } },
    { contentMessage: { text: 'x', suggestions: [reply('y'.repeat(26))] } },
    { contentMessage: { text: 'x', suggestions: [reply('ok', 'p'.repeat(2049))] } },
    { contentMessage: { richCard: { carouselCard: { cardWidth: 'MEDIUM', cardContents: [{ title: 'only one' }] } } } },
    { contentMessage: { text: 'x' }, ttl: '60s', expireTime: '2030-01-01T00:00:00Z' },
    { contentMessage: {} },
  ];
  for (const body of cases) {
    const res = await send(s, body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(at(res.body, 'error', 'status'), 'INVALID_ARGUMENT');
  }
  const noId = await post(`${s.base}/v1/phones/${encodeURIComponent(PHONE)}/agentMessages?agentId=${s.agentId}`, { contentMessage: { text: 'x' } }, s.auth);
  assert.equal(noId.status, 400);
  await post(`${s.base}/_sandbox/phones`, { phone_number: '+15551112222', features: ['RICHCARD_STANDALONE'] });
  await post(`${s.base}/_sandbox/agents/${s.agentId}/launch`, { carrier: 'sandbox-carrier' });
  const carousel = { contentMessage: { richCard: { carouselCard: { cardWidth: 'MEDIUM', cardContents: [{ title: 'a' }, { title: 'b' }] } } } };
  const lacking = await send(s, carousel, crypto.randomUUID(), '+15551112222');
  assert.equal(lacking.status, 400);
  assert.match(String(at(lacking.body, 'error', 'message')), /RICHCARD_CAROUSEL/);
  assert.equal((await send(s, carousel)).status, 200);
});

test('webhook handshake, signed user messages, suggestion responses and receipts', async (t) => {
  const s = await setup(t);
  const handshake = s.receiver.received[0];
  assert.ok(handshake);
  assert.equal(JSON.parse(handshake.text).clientToken, CLIENT_TOKEN);
  const bad = await call('PUT', `${s.base}/_sandbox/agents/${s.agentId}/webhook`, { url: `${s.receiver.url}/rbm`, client_token: 'WRONG' });
  assert.equal(bad.status, 422);

  const hello = await post(`${s.base}/_sandbox/agents/${s.agentId}/phones/${encodeURIComponent(PHONE)}/messages`, { text: 'Ahoj' });
  assert.equal(at(hello.body, 'webhook', 'status'), 200);
  const r = s.receiver.received.at(-1);
  assert.ok(r);
  const { data, payload } = decode(r);
  assert.equal(r.headers[SIG], createHmac('sha512', CLIENT_TOKEN).update(data).digest('base64'), 'base64 HMAC-SHA512 of the decoded data');
  assert.equal(payload.text, 'Ahoj');
  assert.equal(payload.senderPhoneNumber, PHONE);
  // The platform names the agent with its domain in what it posts.
  assert.equal(payload.agentId, `${s.agentId}@rbm.example`);

  const id = crypto.randomUUID();
  await send(
    s,
    {
      contentMessage: {
        text: 'Pick',
        suggestions: [
          { reply: { text: 'Yes', postbackData: 'YES' } },
          { action: { text: 'Map', postbackData: 'MAP', viewLocationAction: { latLong: { latitude: 1, longitude: 2 } } } },
        ],
      },
    },
    id,
  );
  const tap = await post(`${s.base}/_sandbox/agents/${s.agentId}/phones/${encodeURIComponent(PHONE)}/suggestion`, { message_id: id, index: 1 });
  assert.deepEqual(at(tap.body, 'payload', 'suggestionResponse'), { postbackData: 'MAP', text: 'Map', type: 'ACTION' });
  const delivered = await post(`${s.base}/_sandbox/agents/${s.agentId}/phones/${encodeURIComponent(PHONE)}/delivered`);
  const event = decode(s.receiver.received.at(-1) as Received).payload;
  assert.equal(event.eventType, 'DELIVERED');
  assert.equal(event.messageId, id);
  assert.equal(at(delivered.body, 'events', 0, 'webhook', 'status'), 200);
  const revoke = await call('DELETE', `${s.base}/v1/phones/${encodeURIComponent(PHONE)}/agentMessages/${id}?agentId=${s.agentId}`, undefined, s.auth);
  assert.equal(revoke.status, 404, 'delivered messages cannot be revoked');
  const pendingId = crypto.randomUUID();
  await send(s, { contentMessage: { text: 'oops' } }, pendingId);
  const revoked = await call('DELETE', `${s.base}/v1/phones/${encodeURIComponent(PHONE)}/agentMessages/${pendingId}?agentId=${s.agentId}`, undefined, s.auth);
  assert.equal(revoked.status, 200);
});

test('agent events, files and faults', async (t) => {
  const s = await setup(t, { webhook: false });
  const eventId = crypto.randomUUID();
  const typing = await post(
    `${s.base}/v1/phones/${encodeURIComponent(PHONE)}/agentEvents?eventId=${eventId}&agentId=${s.agentId}`,
    { eventType: 'IS_TYPING' },
    s.auth,
  );
  assert.equal(typing.body.name, `phones/${PHONE}/agentEvents/${eventId}`);
  assert.equal(typing.body.eventType, 'IS_TYPING');
  const readNoId = await post(`${s.base}/v1/phones/${encodeURIComponent(PHONE)}/agentEvents?eventId=e2&agentId=${s.agentId}`, { eventType: 'READ' }, s.auth);
  assert.equal(readNoId.status, 400);
  const file = await post(`${s.base}/v1/files?agentId=${s.agentId}`, { fileUrl: 'https://example.com/a.png' }, s.auth);
  assert.match(String(file.body.name), /^files\//);
  await post(`${s.base}/_sandbox/faults`, { kind: 'rate_limit', endpoint: 'agentMessages' });
  const limited = await send(s, { contentMessage: { text: 'x' } });
  assert.equal(limited.status, 429);
  assert.equal(at(limited.body, 'error', 'status'), 'RESOURCE_EXHAUSTED');
  assert.equal((await send(s, { contentMessage: { text: 'x' } })).status, 200);
});

/** A token for a partner's key with the scopes asked. */
async function partnerToken(key: Record<string, string>, scope: string): Promise<Record<string, string>> {
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: assertion(key, scope) });
  const res = await fetch(String(key.token_uri), { method: 'POST', body: form });
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(res.status, 200, JSON.stringify(body));
  return { authorization: `Bearer ${String(body.access_token)}` };
}

test('message and event ids must be UUIDs; an id an event used is ignored for a message', async (t) => {
  const s = await setup(t, { webhook: false });
  const notUuid = await send(s, { contentMessage: { text: 'x' } }, 'msg-1');
  assert.equal(notUuid.status, 400);
  assert.match(String(at(notUuid.body, 'error', 'message')), /UUID/);
  const eventId = crypto.randomUUID();
  await post(`${s.base}/v1/phones/${encodeURIComponent(PHONE)}/agentEvents?eventId=${eventId}&agentId=${s.agentId}`, { eventType: 'IS_TYPING' }, s.auth);
  assert.equal((await send(s, { contentMessage: { text: 'x' } }, eventId)).status, 200);
  assert.equal((at((await get(`${s.base}/_sandbox/agents/${s.agentId}/messages`)).body, 'messages') as unknown[]).length, 0);
});

test('management API: a partner key registers a brand and an agent, verification, launch by region, rejection with its comment', async (t) => {
  const standIn = createRbmStandIn();
  const base = await standIn.listen(0);
  t.after(() => standIn.close());
  const partner = await post(`${base}/_sandbox/partners`, { name: 'acme' });
  assert.equal(partner.status, 201);
  const key = at(partner.body, 'service_account_key') as Record<string, string>;
  const messaging = await partnerToken(key, 'rbm.messaging');
  const mgmt = await partnerToken(key, 'rbm.management');
  const m = `${base}/mgmt/v1`;

  // Each API needs its own scope.
  const wrongScope = await post(`${m}/brands`, { displayName: 'Acme' }, messaging);
  assert.equal(wrongScope.status, 403);
  const brand = await post(`${m}/brands`, { displayName: 'Acme' }, mgmt);
  assert.equal(brand.status, 200, JSON.stringify(brand.body));
  const brandName = String(brand.body.name);
  // The agent as the reference's create sample shapes it: the fields it marks required are required.
  const product = {
    description: 'Acme support',
    logoUri: 'https://acme.test/logo.png',
    heroUri: 'https://acme.test/hero.png',
    phoneNumbers: [{ phoneNumber: { number: '+12223334444' }, label: 'Call support' }],
    privacy: { uri: 'https://acme.test/privacy', label: 'Our privacy policy' },
    termsConditions: { uri: 'https://acme.test/terms', label: 'Our Terms and Conditions' },
    color: '#0B78D0',
    billingConfig: { billingCategory: 'BASIC_MESSAGE' },
    agentUseCase: 'MULTI_USE',
    hostingRegion: 'EUROPE',
  };
  const badRegion = await post(`${base}/mgmt/v1/${brandName}/agents`, { displayName: 'Acme Bot', rbmAgent: { ...product, hostingRegion: 'MARS' } }, mgmt);
  assert.equal(badRegion.status, 400);
  for (const missing of ['description', 'logoUri', 'heroUri', 'color', 'privacy', 'termsConditions', 'billingConfig', 'hostingRegion']) {
    const { [missing]: _gone, ...rest } = product as Record<string, unknown>;
    const refused = await post(`${base}/mgmt/v1/${brandName}/agents`, { displayName: 'Acme Bot', rbmAgent: rest }, mgmt);
    assert.equal(refused.status, 400, `${missing} is required`);
    assert.equal(at(refused.body, 'error', 'status'), 'INVALID_ARGUMENT');
    assert.match(String(at(refused.body, 'error', 'message')), new RegExp(missing));
  }
  const unlabelled = await post(
    `${base}/mgmt/v1/${brandName}/agents`,
    { displayName: 'Acme Bot', rbmAgent: { ...product, emails: [{ address: 'help@acme.test' }] } },
    mgmt,
  );
  assert.equal(unlabelled.status, 400, 'every contact carries its label');
  assert.equal((await post(`${base}/mgmt/v1/${brandName}/agents`, { displayName: 'Acme Bot', rbmAgent: { hostingRegion: 'EUROPE' } }, mgmt)).status, 400);
  const agent = await post(`${base}/mgmt/v1/${brandName}/agents`, { displayName: 'Acme Bot', rbmAgent: product }, mgmt);
  assert.equal(agent.status, 200, JSON.stringify(agent.body));
  const agentName = String(agent.body.name);
  const agentId = agentName.split('/').at(-1) ?? '';
  assert.deepEqual(at(agent.body, 'rbmAgent'), product);

  const questionnaire = {
    contacts: [{ name: 'Ian', title: 'The Boss', email: 'someone@acme.test' }],
    optinDescription: 'Users accepted our terms of service online.',
    triggerDescription: 'We are reaching preregistered users',
    interactionsDescription: 'This agent does not do much.',
    optoutDescription: 'Reply stop and we stop.',
    agentAccessInstructions: 'This is a simple agent that reaches registered users.',
    videoUris: ['https://acme.test/a/video'],
    screenshotUris: ['https://acme.test/a/screenshot'],
  };
  const early = await post(
    `${base}/mgmt/v1/${agentName}:requestLaunch`,
    { agentLaunch: { rbm: { questionnaire, launchDetails: { '/v1/regions/sandbox-carrier': {} } } } },
    mgmt,
  );
  assert.equal(early.status, 400, 'launch needs a verified agent');
  assert.equal(at(early.body, 'error', 'status'), 'FAILED_PRECONDITION');
  const contact = {
    partnerName: 'Alice',
    partnerEmailAddress: 'alice@thepartner.test',
    brandContactName: 'Bob',
    brandContactEmailAddress: 'bob@thebrand.test',
    brandWebsiteUrl: 'https://thebrand.test/',
  };
  for (const missing of Object.keys(contact)) {
    const { [missing]: _gone, ...rest } = contact as Record<string, string>;
    const refused = await post(`${base}/mgmt/v1/${agentName}:requestVerification`, { agentVerificationContact: rest }, mgmt);
    assert.equal(refused.status, 400, `${missing} is required`);
    assert.equal(at(refused.body, 'error', 'status'), 'INVALID_ARGUMENT');
  }
  const verify = await post(`${base}/mgmt/v1/${agentName}:requestVerification`, { agentVerificationContact: contact }, mgmt);
  assert.equal(at(verify.body, 'verificationState'), 'VERIFICATION_STATE_PENDING');
  await post(`${base}/_sandbox/agents/${agentId}/verification`, { state: 'VERIFICATION_STATE_VERIFIED' });
  assert.equal(at((await get(`${base}/mgmt/v1/${agentName}/verification`, mgmt)).body, 'verificationState'), 'VERIFICATION_STATE_VERIFIED');

  const regions = await get(`${m}/regions`, mgmt);
  const regionNames = (at(regions.body, 'regions') as Array<{ name: string }>).map((r) => r.name);
  assert.ok(regionNames.includes('/v1/regions/sandbox-carrier'));
  // The first launch needs the questionnaire with its required answers.
  const unanswered = await post(
    `${base}/mgmt/v1/${agentName}:requestLaunch`,
    { agentLaunch: { rbm: { launchDetails: { '/v1/regions/sandbox-carrier': {} } } } },
    mgmt,
  );
  assert.equal(unanswered.status, 400);
  assert.equal(at(unanswered.body, 'error', 'status'), 'INVALID_ARGUMENT');
  const { optoutDescription: _optout, ...noOptout } = questionnaire;
  const partly = await post(
    `${base}/mgmt/v1/${agentName}:requestLaunch`,
    { agentLaunch: { rbm: { questionnaire: noOptout, launchDetails: { '/v1/regions/sandbox-carrier': {} } } } },
    mgmt,
  );
  assert.equal(partly.status, 400);
  assert.match(String(at(partly.body, 'error', 'message')), /optoutDescription/);
  const launch = await post(
    `${base}/mgmt/v1/${agentName}:requestLaunch`,
    { agentLaunch: { rbm: { questionnaire, launchDetails: { '/v1/regions/sandbox-carrier': {} } } } },
    mgmt,
  );
  assert.equal(at(launch.body, 'rbm', 'launchDetails', '/v1/regions/sandbox-carrier', 'launchState'), 'LAUNCH_STATE_PENDING');
  await post(`${base}/_sandbox/agents/${agentId}/launch`, { carrier: '/v1/regions/sandbox-carrier', state: 'LAUNCH_STATE_REJECTED', comment: 'Logo missing' });
  const rejected = await get(`${base}/mgmt/v1/${agentName}/launch`, mgmt);
  assert.deepEqual(at(rejected.body, 'rbm', 'launchDetails', '/v1/regions/sandbox-carrier'), { launchState: 'LAUNCH_STATE_REJECTED', comment: 'Logo missing' });

  // The partner's messaging token acts for the new agent; another partner's does not.
  await post(`${base}/_sandbox/phones`, { phone_number: PHONE });
  const sendUrl = `${base}/v1/phones/${encodeURIComponent(PHONE)}/agentMessages?messageId=${crypto.randomUUID()}&agentId=${agentId}`;
  assert.equal((await post(sendUrl, { contentMessage: { text: 'hi' } }, messaging)).status, 404, 'not launched, not a tester');
  const other = await post(`${base}/_sandbox/partners`, { name: 'other' });
  const foreign = await partnerToken(at(other.body, 'service_account_key') as Record<string, string>, 'rbm.messaging');
  assert.equal((await post(sendUrl, { contentMessage: { text: 'hi' } }, foreign)).status, 403);
});

test('management API testers: invite, read, list, remove; 20 invitations a day', async (t) => {
  const s = await setup(t, { launched: false, webhook: false });
  const m = `${s.base}/mgmt/v1`;
  const invite = await post(`${m}/testers`, { agentId: s.agentId, phoneNumber: PHONE }, s.auth);
  assert.deepEqual(invite.body, { name: `testers/${PHONE}`, agentId: s.agentId, phoneNumber: PHONE, inviteStatus: 'PENDING' });
  assert.equal((await post(`${m}/testers`, { agentId: s.agentId, phoneNumber: PHONE }, s.auth)).status, 409);
  await post(`${s.base}/_sandbox/agents/${s.agentId}/testers/${encodeURIComponent(PHONE)}`, { status: 'DECLINED' });
  const one = await get(`${m}/testers/${encodeURIComponent(PHONE)}?agentId=${s.agentId}`, s.auth);
  assert.equal(one.body.inviteStatus, 'DECLINED');
  for (let i = 1; i < 20; i++) {
    const res = await post(`${m}/testers`, { agentId: s.agentId, phoneNumber: `+4206010000${String(i).padStart(2, '0')}` }, s.auth);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  const over = await post(`${m}/testers`, { agentId: s.agentId, phoneNumber: '+420601999999' }, s.auth);
  assert.equal(over.status, 429);
  assert.equal(at(over.body, 'error', 'status'), 'RESOURCE_EXHAUSTED');
  const list = await get(`${m}/testers?agentId=${s.agentId}`, s.auth);
  assert.equal((at(list.body, 'testers') as unknown[]).length, 20);
  const removed = await call('DELETE', `${m}/testers/${encodeURIComponent(PHONE)}?agentId=${s.agentId}`, undefined, s.auth);
  assert.equal(removed.status, 200);
  assert.equal((await get(`${m}/testers/${encodeURIComponent(PHONE)}?agentId=${s.agentId}`, s.auth)).status, 404);
});
