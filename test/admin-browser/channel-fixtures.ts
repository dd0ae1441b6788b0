/**
 * Platform stand-ins for the channel-tab browser tests: socialnet_chat and the SMS provider on
 * port 0, the server settings that point the service (and its local trial) at them, and the
 * channels made on them through the API with the account's token.
 */
import assert from 'node:assert/strict';
import { createSocialnetChatStandIn } from '../../sandbox/socialnet_chat/server.js';
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';
import type { TestServer } from '../helpers/runtime.js';

const APP_ID = '700100200300411';
const APP_SECRET = 'app-secret-of-the-admin-tests';
const SMS_KEY = 'live_admin_test_key';
const SMS_SIGNING_KEY = 'admin-test-signing-key';
export const SMS_NUMBER = '+420601000222';

export interface JsonAnswer {
  status: number;
  body: any;
  text: string;
}

async function http(method: string, url: string, body?: unknown): Promise<JsonAnswer> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text
  }
  return { status: res.status, body: parsed, text };
}

export interface StandIns {
  /** Server settings: platform URLs, app keys, and SANDBOX_URL so the local trial is on. */
  env: Record<string, string>;
  /** The socialnet_chat control API: GET, or POST with a body. */
  sn(path: string, body?: unknown, method?: string): Promise<JsonAnswer>;
  /** The SMS provider's control API. */
  sms(path: string, body?: unknown, method?: string): Promise<JsonAnswer>;
  close(): Promise<void>;
}

export async function startStandIns(): Promise<StandIns> {
  const sn = createSocialnetChatStandIn({ appId: APP_ID, appSecret: APP_SECRET });
  const snBase = await sn.listen(0);
  const sms = createSmsproviderStandIn({ accessKey: SMS_KEY, signingKey: SMS_SIGNING_KEY });
  const smsBase = await sms.listen(0);
  const control = (base: string) => (path: string, body?: unknown, method?: string) =>
    http(method ?? (body === undefined ? 'GET' : 'POST'), `${base}/_sandbox${path}`, body);
  return {
    env: {
      SOCIALNET_API_URL: snBase,
      SOCIALNET_APP_ID: APP_ID,
      SOCIALNET_APP_SECRET: APP_SECRET,
      SOCIALNET_VERIFY_TOKEN: 'verify-token-of-the-admin-tests',
      SMSPROVIDER_API_URL: smsBase,
      SANDBOX_URL: snBase,
      PLATFORM_TIMEOUT_MS: '5000',
    },
    sn: control(snBase),
    sms: control(smsBase),
    close: async () => {
      await Promise.allSettled([sn.close(), sms.close()]);
    },
  };
}

/** A page made on the stand-in and connected as a socialnet_chat channel of the server's account. */
export async function connectPage(s: TestServer, standIns: StandIns, name = 'Bakery'): Promise<{ channelId: string; pageId: string }> {
  const made = await standIns.sn('/pages', { name, category: 'Restaurant' });
  assert.equal(made.status, 201, made.text);
  const res = await s.api.post('/v1/channels', {
    type: 'socialnet_chat',
    name: `${name} page`,
    socialnet_page: { id: made.body.page.id, access_token: made.body.admin.user_access_token },
  });
  assert.equal(res.status, 201, res.text);
  return { channelId: res.body.id, pageId: made.body.page.id };
}

/** A page user (made on the stand-in) writes to the page; answers the user's page-scoped id. */
export async function pageUserSays(standIns: StandIns, pageId: string, text: string, psid?: string): Promise<string> {
  let user = psid;
  if (!user) {
    const made = await standIns.sn(`/pages/${pageId}/users`, { first_name: 'Jana', last_name: 'Novakova' });
    assert.equal(made.status, 201, made.text);
    user = made.body.user.psid as string;
  }
  const said = await standIns.sn(`/pages/${pageId}/users/${user}/messages`, { text });
  assert.equal(said.body.webhook?.status, 200, said.text);
  return user;
}

/** A production mobile channel sending from a number of the SMS provider stand-in. */
export async function mobileChannel(s: TestServer, name = 'SMS'): Promise<string> {
  const res = await s.api.post('/v1/channels', {
    type: 'mobile',
    name,
    provider: { type: 'smsprovider', sender_id: SMS_NUMBER, access_token: SMS_KEY, signing_key: SMS_SIGNING_KEY },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id as string;
}
