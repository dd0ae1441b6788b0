import assert from 'node:assert/strict';
import type { TestServer } from '../helpers/runtime.js';
import type { ApiClient } from '../helpers/api-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhooks.js';
import { eventually } from '../helpers/waits.js';
import { createRbmStandIn } from '../../sandbox/rbm/server.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import { createMailproviderStandIn } from '../../sandbox/mailprovider/server.js';
import { http, type JsonAnswer } from '../connectors/helpers/harness.js';

const SMS_KEY = 'live_failovertestkey0000000001';
const SMS_SIGNING_KEY = 'provider-signing-key-of-the-failover-test';
const SMS_SENDER = '+420601000999';
const MAIL_KEY = 'key-failover-test-01';
const MAIL_SIGNING_KEY = 'webhook-signing-key-of-the-failover-test';
const MAIL_DOMAIN = 'mg.failover.test';

/** The three platforms of a failover chain, each a stand-in on its own port. */
export interface StandIns {
  env: Record<string, string>;
  rbm: (path: string, body?: unknown, method?: string) => Promise<JsonAnswer>;
  sms: (path: string, body?: unknown, method?: string) => Promise<JsonAnswer>;
  mail: (path: string, body?: unknown, method?: string) => Promise<JsonAnswer>;
  close(): Promise<void>;
}

export async function startStandIns(): Promise<StandIns> {
  const rbm = createRbmStandIn();
  const sms = createSmsproviderStandIn({ accessKey: SMS_KEY, signingKey: SMS_SIGNING_KEY });
  const mail = createMailproviderStandIn({ apiKey: MAIL_KEY, webhookSigningKey: MAIL_SIGNING_KEY, domains: [MAIL_DOMAIN] });
  const [rbmBase, smsBase, mailBase] = await Promise.all([rbm.listen(0), sms.listen(0), mail.listen(0)]);
  const call =
    (base: string) =>
    (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
      http(method, `${base}/_sandbox${path}`, body);
  return {
    env: {
      RBM_API_URL: rbmBase,
      RBM_MANAGEMENT_URL: `${rbmBase}/mgmt`,
      RBM_TOKEN_URL: `${rbmBase}/token`,
      SMSPROVIDER_API_URL: smsBase,
      MAILPROVIDER_API_URL: mailBase,
      PLATFORM_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    },
    rbm: call(rbmBase),
    sms: call(smsBase),
    mail: call(mailBase),
    close: async () => {
      await Promise.allSettled([rbm.close(), sms.close(), mail.close()]);
    },
  };
}

export interface Channel {
  id: string;
  hook: WebhookReceiver;
}

/** The channels of one account: rbm (a launched agent whose webhook reaches the service), mobile and email, each with its webhook receiver. */
export interface Channels {
  rbm: Channel & { agentId: string };
  sms: Channel;
  email: Channel;
  hooks: WebhookReceiver[];
}

async function hooked(api: ApiClient, hooks: WebhookReceiver[], body: Record<string, unknown>): Promise<{ channel: Channel; body: any }> {
  const hook = await startWebhookReceiver();
  hooks.push(hook);
  const res = await api.post('/v1/channels', { ...body, webhook: { url: hook.url } });
  assert.equal(res.status, 201, res.text);
  hook.secret = res.body.webhook.secret;
  return { channel: { id: res.body.id as string, hook }, body: res.body };
}

export async function makeChannels(api: ApiClient, stand: StandIns): Promise<Channels> {
  const hooks: WebhookReceiver[] = [];
  const agent = await stand.rbm('/agents', { display_name: 'Coffee', launched_carriers: ['sandbox-carrier'] });
  assert.equal(agent.status, 201, agent.text);
  const rbm = await hooked(api, hooks, {
    type: 'rbm',
    name: 'RCS',
    region: 'europe',
    rbm: { agent_name: 'Coffee Shop', service_account_key: agent.body.service_account_key, agent_id: agent.body.agent.id },
  });
  const put = await stand.rbm(`/agents/${agent.body.agent.id}/webhook`, { url: rbm.body.rbm.webhook_url, client_token: rbm.body.rbm.client_token }, 'PUT');
  assert.equal(put.status, 200, put.text);
  const sms = await hooked(api, hooks, {
    type: 'mobile',
    name: 'SMS',
    provider: { type: 'smsprovider', sender_id: SMS_SENDER, access_token: SMS_KEY, signing_key: SMS_SIGNING_KEY },
  });
  const email = await hooked(api, hooks, {
    type: 'email',
    name: 'Mail',
    provider: { type: 'mailprovider', access_token: MAIL_KEY, sender: { email: `shop@${MAIL_DOMAIN}`, name: 'Shop' }, webhook_signing_key: MAIL_SIGNING_KEY },
  });
  return { rbm: { ...rbm.channel, agentId: agent.body.agent.id as string }, sms: sms.channel, email: email.channel, hooks };
}

let phoneSeq = 0;

/** A phone the rbm stand-in knows (RCS on, or off: the platform refuses sends to it at once). */
export async function newPhone(stand: StandIns, rcs = true): Promise<string> {
  const phone = `+4206021${String(process.pid % 1000).padStart(3, '0')}${String(++phoneSeq).padStart(3, '0')}`;
  const made = await stand.rbm('/phones', { phone_number: phone, rcs_enabled: rcs });
  assert.equal(made.status, 201, made.text);
  return phone;
}

/** The stand-in's id of the SMS sent for our message (its reference), once the send worker sent it. */
export async function smsOf(stand: StandIns, messageId: string): Promise<string> {
  return eventually(
    async () => ((await stand.sms('/messages')).body.messages as Array<{ id: string; reference: string | null }>).find((m) => m.reference === messageId)?.id,
    20_000,
    `the SMS of message ${messageId} at the provider`,
  );
}

/** Whether the SMS provider was ever handed our message. */
export async function smsSent(stand: StandIns, messageId: string): Promise<boolean> {
  return ((await stand.sms('/messages')).body.messages as Array<{ reference: string | null }>).some((m) => m.reference === messageId);
}

/** The stand-in's Message-Id of the mail sent for our message, once the send worker sent it. */
export async function mailOf(stand: StandIns, messageId: string): Promise<string> {
  return eventually(
    async () =>
      ((await stand.mail('/messages')).body.messages as Array<{ message_id: string; user_variables: Record<string, string> }>).find(
        (m) => m.user_variables['parley-message-id'] === messageId,
      )?.message_id,
    20_000,
    `the mail of message ${messageId} at the provider`,
  );
}

/** The rbm stand-in reports the agent's messages to `phone` delivered (or read). */
export async function rbmReport(stand: StandIns, agentId: string, phone: string, what: 'delivered' | 'read'): Promise<void> {
  const done = await stand.rbm(`/agents/${agentId}/phones/${encodeURIComponent(phone)}/${what}`, {});
  assert.equal(done.status, 200, done.text);
}

/** Waits until the rbm stand-in took a message to `phone`. */
export async function rbmTaken(stand: StandIns, agentId: string, phone: string): Promise<void> {
  await eventually(
    async () =>
      ((await stand.rbm(`/agents/${agentId}/messages?phone=${encodeURIComponent(phone)}`)).body.messages as unknown[]).length > 0 ? true : undefined,
    20_000,
    'the rbm message at the platform',
  );
}

/** Get Message's failover chain once `check` holds. */
export async function chainWhen(s: TestServer, id: string, check: (chain: any) => boolean, what: string): Promise<any> {
  return eventually(
    async () => {
      const got = await s.api.get(`/v1/messages/${id}`);
      assert.equal(got.status, 200, got.text);
      return check(got.body.failover) ? got.body.failover : undefined;
    },
    30_000,
    what,
  );
}
