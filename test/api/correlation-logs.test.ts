import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { dialects } from '../helpers/databases.js';
import { eventually } from '../helpers/waits.js';
import { createLogger } from '../../src/lib/logger.js';
import { SECRET_HEADER, SMS_ACCESS_KEY, SMS_SIGNING_KEY, startHarness, type Harness } from '../connectors/helpers/harness.js';

// One message's whole path in the logs: the API request's id is its correlation id, carried in
// the send job, the platform's report on the message and every webhook delivery (as a header to
// the receiver too). The server's log lines are read from its logger's destination.

type Line = Record<string, any>;

const SMS_SENDER = '+420601000222';
const SMS_CONTACT = '+420777222000';
/** Content that must never reach a log line. */
const TEXT = 'Correlated text: table for two at eight';

for (const { dialect, skip } of await dialects()) {
  describe(`Correlation ids and one log line per request (${dialect})`, { skip }, () => {
    let h: Harness;
    const raw: string[] = [];
    const lines = (): Line[] => raw.map((l) => JSON.parse(l) as Line);
    const secrets: string[] = [];

    before(async () => {
      const sink = new Writable({
        write(chunk, _enc, done) {
          for (const line of String(chunk).split('\n')) if (line.trim() !== '') raw.push(line);
          done();
        },
      });
      h = await startHarness(dialect, {}, { logger: createLogger('info', sink as never) });
      secrets.push(h.s.token);
    });
    after(async () => h?.close());

    /** The lines of a request id: its request line (`reqId`); background lines name it as `correlationId`. */
    const requestLines = (id: string) => lines().filter((l) => l.reqId === id);
    const waitForLine = (what: string, match: (l: Line) => boolean) => eventually(async () => lines().find(match), 10_000, what);

    function assertNoSecrets(): void {
      const all = raw.join('\n');
      for (const secret of secrets) assert.ok(!all.includes(secret), `a secret (${secret.slice(0, 6)}...) is in the log`);
      assert.ok(!all.includes(TEXT), 'a message body is in the log');
      assert.ok(!all.includes('report_token'), 'a status URL with its token is in the log');
      // Fastify's own two lines per request are gone.
      assert.ok(!lines().some((l) => l.msg === 'incoming request' || l.msg === 'request completed'));
    }

    test('asynchronous type (mobile): the request, its send job, the platform report and every webhook delivery share the caller id', async () => {
      const hook = await h.receiver();
      const made = await h.s.api.post('/v1/channels', {
        type: 'mobile',
        name: 'SMS',
        webhook: { url: hook.url },
        provider: { type: 'smsprovider', sender_id: SMS_SENDER, access_token: SMS_ACCESS_KEY, signing_key: SMS_SIGNING_KEY },
      });
      assert.equal(made.status, 201, made.text);
      hook.secret = made.body.webhook.secret;
      secrets.push(hook.secret);

      const id = 'checkout-42.order:7_a';
      const sent = await h.s.api.post(
        '/v1/messages',
        { channel: { id: made.body.id }, contact: { phone_number: SMS_CONTACT }, content: { type: 'text', payload: TEXT } },
        { 'x-request-id': id },
      );
      assert.equal(sent.status, 201, sent.text);
      assert.equal(sent.headers.get('x-request-id'), id, 'the caller id is echoed');

      // The webhook receiver is given the id with the echo.
      const echo = await hook.waitFor('message_echo', (e) => e.data.message?.id === sent.body.id || e.data.content?.payload === TEXT);
      assert.equal(echo.headers['x-parley-correlation-id'], id);

      // The send job's attempt, and the platform's later report on the message.
      const jobLine = await waitForLine('send job line', (l) => l.msg === 'send job attempt' && l.messageId === sent.body.id);
      assert.equal(jobLine.correlationId, id);
      assert.equal(jobLine.outcome, 'sent');
      assert.equal(jobLine.level, 30);
      const providerId = await eventually(async () => {
        const listed = (await h.smsSandbox('/messages')).body.messages as any[];
        return listed.find((m) => m.reference === sent.body.id)?.id as string | undefined;
      });
      const report = await h.smsSandbox(`/messages/${providerId}/status`, { status: 'delivered' });
      assert.equal(report.body.reports[0].webhook?.status, 200, report.text);
      const delivered = await hook.waitFor('messages_delivered');
      assert.equal(delivered.headers['x-parley-correlation-id'], id, 'the report on the message carries the send request id');
      const inbound = await waitForLine('inbound request line', (l) => l.msg === 'request' && l.route === '/v1/inbound/:channel_id/:endpoint');
      assert.equal(inbound.verdict, 'accepted');
      assert.equal(inbound.correlationId, id);
      assert.equal(requestLines(inbound.reqId).length, 1, 'one line for the platform call');

      // The webhook deliveries' outcome lines.
      for (const event of ['message_echo', 'messages_delivered']) {
        const line = await waitForLine(
          `${event} delivery line`,
          (l) => l.msg === 'webhook delivery attempt' && l.event === event && l.channelId === Number(made.body.id),
        );
        assert.equal(line.correlationId, id, event);
        assert.equal(line.outcome, 'delivered');
        assert.equal(line.statusCode, 200);
      }

      // Exactly one line for the request, at info, with what it was and whose.
      const own = requestLines(id);
      assert.equal(own.length, 1, JSON.stringify(own));
      const [line] = own;
      assert.equal(line!.level, 30);
      assert.equal(line!.msg, 'request');
      assert.equal(line!.method, 'POST');
      assert.equal(line!.route, '/v1/messages');
      assert.equal(line!.status, 201);
      assert.equal(typeof line!.ms, 'number');
      assert.equal(line!.account, h.s.accountId);
      assert.equal(line!.messageId, sent.body.id);
      assertNoSecrets();
    });

    test('synchronous type (botmsg): the platform is called in the request, whose generated id reaches the webhook', async () => {
      const bot = await h.bmSandbox('/bots', { username: 'correlated_bot', first_name: 'Correlated' });
      assert.equal(bot.status, 201, bot.text);
      secrets.push(bot.body.token);
      const hook = await h.receiver();
      const made = await h.s.api.post('/v1/channels', { type: 'botmsg', name: 'Bot', webhook: { url: hook.url }, botmsg: { access_token: bot.body.token } });
      assert.equal(made.status, 201, made.text);
      hook.secret = made.body.webhook.secret;
      secrets.push(hook.secret);
      const webhookSecret = (await h.bmSandbox(`/bots/${bot.body.bot.id}/webhook`)).body.webhook.secretToken as string;
      secrets.push(webhookSecret);

      // A user starts the bot: the platform's call has its own id, on its line and its event.
      const user = await h.bmSandbox(`/bots/${bot.body.bot.id}/users`, { first_name: 'Jana' });
      await h.bmSandbox(`/bots/${bot.body.bot.id}/users/${user.body.user.id}/start`, {});
      const received = await hook.waitFor('message_received');
      const inboundId = received.headers['x-parley-correlation-id'] as string;
      assert.match(inboundId, /^[0-9a-f]{16}$/);
      const inbound = requestLines(inboundId);
      assert.equal(inbound.length, 1, JSON.stringify(inbound));
      assert.equal(inbound[0]!.verdict, 'accepted');
      assert.equal(inbound[0]!.route, '/v1/inbound/:channel_id/:endpoint');
      assert.equal(inbound[0]!.account, undefined, 'no account is known to a platform call');

      // An id that is too long or has other characters is not taken; X-Correlation-Id is read when X-Request-Id is absent.
      const content = { type: 'text', payload: TEXT };
      const to = { channel: { id: made.body.id }, contact: { id: received.data.contact.id }, content };
      const tooLong = await h.s.api.post('/v1/messages', to, { 'x-request-id': 'a'.repeat(65) });
      assert.equal(tooLong.status, 201, tooLong.text);
      assert.match(tooLong.headers.get('x-request-id') ?? '', /^[0-9a-f]{16}$/);
      const spaced = await h.s.api.post('/v1/messages', to, { 'x-request-id': 'has space', 'x-correlation-id': 'b'.repeat(64) });
      assert.equal(spaced.headers.get('x-request-id'), 'b'.repeat(64));

      const sent = await h.s.api.post('/v1/messages', to);
      assert.equal(sent.status, 201, sent.text);
      const id = sent.headers.get('x-request-id') ?? '';
      assert.match(id, /^[0-9a-f]{16}$/);
      const echo = await hook.waitFor('message_echo', (e) => e.data.message?.id === sent.body.id || e.headers['x-parley-correlation-id'] === id);
      assert.equal(echo.headers['x-parley-correlation-id'], id);
      const delivery = await waitForLine('echo delivery line', (l) => l.msg === 'webhook delivery attempt' && l.correlationId === id);
      assert.equal(delivery.event, 'message_echo');
      assert.equal(delivery.outcome, 'delivered');

      // The platform call happened inside the request: its one line says it was taken (201) and which message.
      const own = requestLines(id);
      assert.equal(own.length, 1, JSON.stringify(own));
      assert.equal(own[0]!.status, 201);
      assert.equal(own[0]!.messageId, sent.body.id);
      assert.equal(own[0]!.route, '/v1/messages');
      for (const other of [tooLong, spaced]) assert.equal(requestLines(other.headers.get('x-request-id')!).length, 1);
      // No send job: the type is synchronous.
      assert.ok(!lines().some((l) => l.msg === 'send job attempt' && l.correlationId === id));
      assertNoSecrets();
    });

    test('a refused platform call is one line with its verdict', async () => {
      const res = await fetch(`${h.s.baseUrl}/inbound/999999/updates`, { method: 'POST', headers: { [SECRET_HEADER]: 'nope' }, body: '{}' });
      assert.equal(res.status, 404);
      const id = res.headers.get('x-request-id')!;
      const own = requestLines(id);
      assert.equal(own.length, 1);
      assert.equal(own[0]!.verdict, 'refused');
      assert.equal(own[0]!.reason, 'not_found');
      assert.equal(own[0]!.status, 404);
      assertNoSecrets();
    });
  });
}
