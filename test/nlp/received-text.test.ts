import { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { eventually } from '../helpers/waits.js';
import type { WebhookReceiver } from '../helpers/webhooks.js';
import { startHarness, SECRET_HEADER, SMS_ACCESS_KEY, SMS_SIGNING_KEY, type Harness, type JsonAnswer, http } from '../connectors/helpers/harness.js';
import { createNluserverStandIn } from '../../sandbox/nluserver/server.js';
import type { StandIn } from '../../sandbox/shared/standin.js';
import { trainModel } from '../../src/nlp/builtin/trainer.js';
import { openChat } from '../chat/helpers/chat-clients.js';

// NLP on received text, end to end: a user writes to a bot (the botmsg stand-in), the service
// classifies the text with the channel's integration and the message_received webhook, Get Message
// and List Messages carry `nlp`. The built-in engine is trained from two intents in two languages
// and must classify phrases it never saw; the external kind asks the NLU server stand-in. An
// engine that is slow or fails leaves `nlp` out without holding the message; a repeated callback
// is classified once; retraining keeps the old model serving; a removed integration adds nothing.

const TRAINING = {
  kind: 'builtin',
  languages: ['en', 'es'],
  intents: [
    {
      id: 'greeting',
      utterances: {
        en: ['hello', 'hi there', 'good morning', 'hey, how are you', 'good evening'],
        es: ['hola', 'buenos días', 'buenas tardes', 'qué tal', 'hola, cómo estás'],
      },
    },
    {
      id: 'order_status',
      utterances: {
        en: ['where is my order', 'track my package', 'has my parcel shipped', 'when will my order arrive', 'order status'],
        es: ['dónde está mi pedido', 'seguir mi paquete', 'ha salido mi envío', 'cuándo llega mi pedido', 'estado del pedido'],
      },
    },
  ],
};

/** Phrases none of the training data has, with the intent they mean. */
const HELD_OUT: Array<[string, string]> = [
  ['hello, good morning to you', 'greeting'],
  ['where is my package right now?', 'order_status'],
  ['buenos días amigo', 'greeting'],
  ['mi pedido no llega, dónde está', 'order_status'],
];

const NLU_MODEL = {
  intents: [
    { name: 'greet', examples: ['hello', 'hi there'] },
    { name: 'order_drink', examples: ['i want a latte', 'one coffee please'] },
  ],
  entities: [{ entity: 'drink', values: ['latte', 'coffee'] }],
};

for (const { dialect, skip, test } of await dialects()) {
  describe(`NLP on received text (${dialect})`, { skip }, () => {
    let h: Harness;
    let nlu: StandIn<unknown>;
    let nluUrl: string;
    /** Trainings wait for this (open unless a test holds it). */
    let trainingGate: Promise<void> = Promise.resolve();
    before(async () => {
      nlu = createNluserverStandIn({ token: 'nlu-token', model: NLU_MODEL });
      nluUrl = await nlu.listen(0);
      h = await startHarness(
        dialect,
        { NLP_ALLOWLIST: '127.0.0.1' },
        {
          trainNlpModel: async (data) => {
            await trainingGate;
            return trainModel(data);
          },
        },
      );
    });
    after(async () => {
      await h?.close();
      await nlu?.close();
    });

    interface Chat {
      botId: number;
      channelId: string;
      userId: number;
      hook: WebhookReceiver;
    }

    async function chat(name: string): Promise<Chat> {
      const made = await h.bmSandbox('/bots', { username: `${name}_bot`, first_name: name });
      assert.equal(made.status, 201, made.text);
      const hook = await h.receiver();
      const channel = await h.s.api.post('/v1/channels', { type: 'botmsg', name, webhook: { url: hook.url }, botmsg: { access_token: made.body.token } });
      assert.equal(channel.status, 201, channel.text);
      hook.secret = channel.body.webhook.secret;
      const botId = made.body.bot.id as number;
      const user = await h.bmSandbox(`/bots/${botId}/users`, { first_name: 'Ana', started: true });
      assert.equal(user.status, 201, user.text);
      return { botId, channelId: channel.body.id, userId: user.body.user.id as number, hook };
    }

    /** The user writes `text`; answers the stand-in's record of the webhook call and the message_received event. */
    async function write(c: Chat, text: string): Promise<{ call: JsonAnswer; event: any }> {
      const call = await h.bmSandbox(`/bots/${c.botId}/users/${c.userId}/messages`, { text });
      assert.equal(call.body.webhook?.status, 200, call.text);
      const event = await c.hook.waitFor('message_received', (e) => e.data.content.payload === text);
      return { call, event };
    }

    async function trained(channelId: string, version = 1): Promise<void> {
      await eventually(async () => {
        const res = await h.s.api.get(`/v1/channels/${channelId}/nlp`);
        assert.notEqual(res.body.training.status, 'failed', res.text);
        return res.body.training.model_version === version ? true : undefined;
      }, 60_000);
    }

    const nluParseCalls = async () => (await http('GET', `${nluUrl}/_sandbox/requests?path_contains=/model/parse`)).body.requests.length as number;

    test('built-in: trained with two intents in two languages, it classifies phrases it never saw; Get and List Message show nlp', async () => {
      const c = await chat('builtin');
      assert.equal((await h.s.api.request('PUT', `/v1/channels/${c.channelId}/nlp`, TRAINING)).status, 201);
      await trained(c.channelId);
      for (const [text, intent] of HELD_OUT) {
        const { event } = await write(c, text);
        const nlp = event.data.nlp;
        assert.ok(nlp, `nlp on "${text}"`);
        assert.equal(nlp.intents[0].id, intent, `"${text}": ${JSON.stringify(nlp.intents)}`);
        const confidences = nlp.intents.map((i: any) => i.confidence);
        assert.deepEqual(
          confidences,
          [...confidences].sort((a, b) => b - a),
          'ordered by confidence',
        );
        assert.equal(typeof nlp.native_data, 'object');
        assert.equal(nlp.native_data.utterance, text);

        const got = await h.s.api.get(`/v1/messages/${event.data.id}`);
        assert.equal(got.status, 200, got.text);
        assert.deepEqual(got.body.nlp, nlp);
      }
      const contactId = (await c.hook.waitFor('message_received')).data.contact.id;
      const list = await h.s.api.get(`/v1/channels/${c.channelId}/contacts/${contactId}/messages`);
      assert.equal(list.status, 200, list.text);
      const listed = (list.body as any[]).filter((m) => m.direction === 'received');
      assert.equal(listed.length, HELD_OUT.length);
      assert.ok(listed.every((m) => m.nlp?.intents.length > 0));
      const stats = (await h.s.api.get(`/v1/channels/${c.channelId}/nlp`)).body.stats;
      assert.equal(stats.classified, HELD_OUT.length);
      assert.equal(stats.failed + stats.timed_out, 0);

      // Not text: no nlp.
      await h.bmSandbox(`/bots/${c.botId}/users/${c.userId}/location`, { latitude: 50.08, longitude: 14.42 });
      const location = await c.hook.waitFor('message_received', (e) => e.data.content.type === 'location');
      assert.equal(location.data.nlp, undefined);
    });

    test('external: the NLU server answers; its ranking is intents, its answer native_data; a repeated callback is classified once', async () => {
      const c = await chat('external');
      const put = await h.s.api.request('PUT', `/v1/channels/${c.channelId}/nlp`, { kind: 'external', url: nluUrl, auth_token: 'nlu-token' });
      assert.equal(put.status, 201, put.text);
      const before = await nluParseCalls();
      const { call, event } = await write(c, 'i want a latte');
      const nlp = event.data.nlp;
      assert.equal(nlp.intents[0].id, 'order_drink');
      assert.deepEqual(
        nlp.intents.map((i: any) => i.id),
        nlp.native_data.intent_ranking.map((r: any) => r.name),
      );
      assert.equal(nlp.native_data.text, 'i want a latte');
      assert.equal(nlp.native_data.entities[0].value, 'latte');
      assert.equal((await nluParseCalls()) - before, 1);

      // The platform delivers the update again: no second message, no second NLP call.
      assert.equal((await h.bmSandbox(`/webhooks/${call.body.webhook.delivery_id}/redeliver`, {})).body.webhook.status, 200);
      assert.equal((await nluParseCalls()) - before, 1, 'one NLP call for one message');
      assert.equal(c.hook.events.filter((e) => e.event === 'message_received' && e.data.id === event.data.id).length, 1);

      // A new update delivered twice at once (a platform retrying while its first call runs): one NLP call, one event.
      const webhook = (await h.bmSandbox(`/bots/${c.botId}/webhook`)).body.webhook;
      const first = call.body.update;
      const fresh = JSON.stringify({
        ...first,
        update_id: first.update_id + 1000,
        message: { ...first.message, message_id: first.message.message_id + 1000, text: 'one coffee please' },
      });
      const deliver = () => http('POST', webhook.url, fresh, { 'content-type': 'application/json', [SECRET_HEADER]: webhook.secretToken });
      const both = await Promise.all([deliver(), deliver()]);
      for (const answer of both) assert.equal(answer.status, 200, answer.text);
      await c.hook.waitFor('message_received', (e) => e.data.content.payload === 'one coffee please');
      assert.equal((await nluParseCalls()) - before, 2, 'one NLP call for the update delivered twice');
      const stored = await h.s.api.get(`/v1/channels/${c.channelId}/contacts/${event.data.contact.id}/messages`);
      assert.equal((stored.body as any[]).filter((m) => m.content.payload === 'one coffee please').length, 1, JSON.stringify(stored.body));

      // A wrong token: the engine fails, the message goes out without nlp and the failure is counted.
      assert.equal((await h.s.api.patch(`/v1/channels/${c.channelId}/nlp`, { auth_token: 'wrong' })).status, 200);
      const refused = await write(c, 'hi there');
      assert.equal(refused.event.data.nlp, undefined);
      const stats = (await h.s.api.get(`/v1/channels/${c.channelId}/nlp`)).body.stats;
      assert.equal(stats.classified, 2);
      assert.equal(stats.failed, 1);
      assert.match(stats.last_failure.message, /401/);
    });

    test('a slow and a failing engine: the event goes out on time without nlp, and the failure is counted', async () => {
      const c = await chat('slow');
      const budget = 200;
      const slowMs = 5_000;
      await h.s.api.request('PUT', `/v1/channels/${c.channelId}/nlp`, { kind: 'external', url: nluUrl, auth_token: 'nlu-token', time_budget_ms: budget });
      await http('POST', `${nluUrl}/_sandbox/faults`, { kind: 'timeout', endpoint: 'parse', delay_ms: slowMs, count: 1 });
      const started = Date.now();
      const slow = await write(c, 'hello');
      const took = Date.now() - started;
      assert.equal(slow.event.data.nlp, undefined);
      // The engine would have answered after 5 s: the message went out at its budget, long before.
      assert.ok(took < slowMs - 1_000, `answered after ${took} ms`);

      await http('POST', `${nluUrl}/_sandbox/faults`, { kind: 'server_error', endpoint: 'parse', count: 1 });
      const failing = await write(c, 'hello again');
      assert.equal(failing.event.data.nlp, undefined);
      const stats = (await h.s.api.get(`/v1/channels/${c.channelId}/nlp`)).body.stats;
      assert.equal(stats.timed_out, 1);
      assert.equal(stats.failed, 1);
      assert.equal(stats.classified, 0);
      assert.match(stats.last_failure.message, /500/);
      assert.ok(h.s.runtime.nlpStats().timedOut >= 1);

      // The engine answers again: classified.
      const fine = await write(c, 'hi there');
      assert.equal(fine.event.data.nlp.intents[0].id, 'greet');
    });

    test('retraining while messages arrive: the model in use classifies until the new one is stored', async () => {
      const c = await chat('retrain');
      await h.s.api.request('PUT', `/v1/channels/${c.channelId}/nlp`, TRAINING);
      await trained(c.channelId);
      let release!: () => void;
      trainingGate = new Promise((resolve) => (release = resolve));
      try {
        const goodbye = { id: 'goodbye', utterances: { en: ['bye', 'see you later', 'goodbye'], es: ['adiós', 'hasta luego', 'nos vemos'] } };
        const changed = await h.s.api.patch(`/v1/channels/${c.channelId}/nlp`, { intents: [...TRAINING.intents, goodbye] });
        assert.equal(changed.body.training.version, 2);
        await eventually(async () => ((await h.s.api.get(`/v1/channels/${c.channelId}/nlp`)).body.training.status === 'training' ? true : undefined));
        for (const text of ['where is my order', 'bye, see you', 'hola']) {
          const { event } = await write(c, text);
          assert.ok(event.data.nlp, 'every message during the training has nlp');
          // The old model, which has no goodbye intent.
          assert.deepEqual(event.data.nlp.intents.map((x: any) => x.id).sort(), ['greeting', 'order_status']);
        }
        const state = (await h.s.api.get(`/v1/channels/${c.channelId}/nlp`)).body.training;
        assert.equal(state.status, 'training');
        assert.equal(state.model_version, 1);
      } finally {
        release();
        trainingGate = Promise.resolve();
      }
      await trained(c.channelId, 2);
      assert.equal((await h.s.api.get(`/v1/channels/${c.channelId}/nlp`)).body.training.status, 'ready');
      const after = await write(c, 'bye, see you soon');
      assert.equal(after.event.data.nlp.intents[0].id, 'goodbye');
    });

    test('service_chat: a message from the web chat carries nlp in its event, and is acknowledged without it', async () => {
      const hook = await h.receiver();
      const made = await h.s.api.post('/v1/channels', { type: 'service_chat', name: 'Web chat', webhook: { url: hook.url } });
      assert.equal(made.status, 201, made.text);
      hook.secret = made.body.webhook.secret;
      const page = 'https://shop.example.com';
      assert.equal((await h.s.api.patch(`/v1/channels/${made.body.id}/settings`, { domains_whitelist: [page] })).status, 200);
      await h.s.api.request('PUT', `/v1/channels/${made.body.id}/nlp`, { kind: 'external', url: nluUrl, auth_token: 'nlu-token' });
      const { client } = await openChat(h.s.origin, { channelId: made.body.id, origin: page });
      try {
        const ack = await client.request('message_client', { content: { type: 'text', payload: 'one coffee please' } });
        assert.equal(ack.content.payload, 'one coffee please');
        assert.equal(ack.nlp, undefined, 'the end user is not shown the classification');
        const event = await hook.waitFor('message_received');
        assert.equal(event.data.nlp.intents[0].id, 'order_drink');
        const got = await h.s.api.get(`/v1/messages/${event.data.id}`);
        assert.deepEqual(got.body.nlp, event.data.nlp);
      } finally {
        client.close();
      }
    });

    test('socialnet_chat: a page message carries nlp as well', async () => {
      const page = await h.connectPage('NLP page');
      await h.s.api.request('PUT', `/v1/channels/${page.channelId}/nlp`, { kind: 'external', url: nluUrl, auth_token: 'nlu-token' });
      const user = await h.snSandbox(`/pages/${page.pageId}/users`, { first_name: 'Jana' });
      assert.equal(user.status, 201, user.text);
      const answer = await h.snSandbox(`/pages/${page.pageId}/users/${user.body.user.psid}/messages`, { text: 'hi there' });
      assert.equal(answer.body.webhook?.status, 200, answer.text);
      const event = await page.hook.waitFor('message_received', (e) => e.data.content.payload === 'hi there');
      assert.equal(event.data.nlp.intents[0].id, 'greet');
    });

    test('mobile: an inbound SMS carries nlp as well', async () => {
      const number = '+420601000999';
      const hook = await h.receiver();
      const made = await h.s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: hook.url },
        provider: { type: 'smsprovider', sender_id: number, access_token: SMS_ACCESS_KEY, signing_key: SMS_SIGNING_KEY },
      });
      assert.equal(made.status, 201, made.text);
      hook.secret = made.body.webhook.secret;
      const receive = await http('PUT', `${h.smsBase}/_sandbox/numbers/${encodeURIComponent(number)}`, { receive_url: made.body.provider.receive_webhook_url });
      assert.equal(receive.status, 200, receive.text);
      await h.s.api.request('PUT', `/v1/channels/${made.body.id}/nlp`, { kind: 'external', url: nluUrl, auth_token: 'nlu-token' });
      const sent = await h.smsSandbox('/inbound', { originator: '+420777123456', recipient: number, body: 'i want a latte' });
      assert.equal(sent.body.webhook?.status, 200, sent.text);
      const event = await hook.waitFor('message_received');
      assert.equal(event.data.nlp.intents[0].id, 'order_drink');
    });

    test('an integration removed: received messages carry no nlp', async () => {
      const c = await chat('removed');
      await h.s.api.request('PUT', `/v1/channels/${c.channelId}/nlp`, { kind: 'external', url: nluUrl, auth_token: 'nlu-token' });
      assert.ok((await write(c, 'hello')).event.data.nlp);
      assert.equal((await h.s.api.delete(`/v1/channels/${c.channelId}/nlp`)).status, 204);
      const before = await nluParseCalls();
      const { event } = await write(c, 'hello there');
      assert.equal(event.data.nlp, undefined);
      assert.equal(await nluParseCalls(), before);
    });

    test('a private address the allowlist does not name is refused: counted, no call made', async () => {
      const c = await chat('guarded');
      await h.s.api.request('PUT', `/v1/channels/${c.channelId}/nlp`, { kind: 'external', url: 'http://10.255.255.1:5005' });
      const { event } = await write(c, 'hello');
      assert.equal(event.data.nlp, undefined);
      const stats = (await h.s.api.get(`/v1/channels/${c.channelId}/nlp`)).body.stats;
      assert.equal(stats.failed, 1);
      assert.match(stats.last_failure.message, /NLP_ALLOWLIST/);
    });
  });
}
