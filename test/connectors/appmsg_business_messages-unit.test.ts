import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { durationSeconds } from '../../src/connectors/appmsg_business_messages/definition.js';
import { parseCallback } from '../../src/connectors/appmsg_business_messages/inbound.js';
import { renderMessage, shortFileName } from '../../src/connectors/appmsg_business_messages/render.js';
import { statusFailure } from '../../src/connectors/appmsg_business_messages/api.js';
import { DEFAULT_STATUS_CODES, parseStatusCodes } from '../../src/connectors/appmsg_business_messages/options.js';
import { messageFailedCode } from '../../src/connectors/failure-codes.js';
import type { ChannelContext, InboundCall } from '../../src/connectors/connector.js';

const channel: ChannelContext = {
  id: '1',
  type: 'appmsg_business_messages',
  mode: 'production',
  config: { sender_id: '1234' },
  secrets: { callback_secret: 'secret-of-the-channel-callbacks' },
};
const settings = {
  callbackAuth: 'url_token' as const,
  signatureHeaderName: 'X-Sandbox-Signature',
  statusCodes: parseStatusCodes(DEFAULT_STATUS_CODES)!,
  sharedSenderId: '9999',
};
const signed = { ...settings, callbackAuth: 'signature' as const };

/** A callback on the channel's URL with its token (mode url_token) and, for mode signature, the header. */
function call(
  body: string,
  key = channel.secrets.callback_secret!,
  signature = createHmac('sha256', channel.secrets.callback_secret!).update(body).digest('hex'),
): InboundCall {
  return {
    method: 'POST',
    endpoint: 'callbacks',
    url: `http://x/v1/inbound/1/callbacks?token=${key}`,
    headers: { 'x-sandbox-signature': signature },
    query: { token: key },
    rawBody: Buffer.from(body),
  };
}

test('ISO 8601 durations: weeks, days, hours, minutes, seconds; years and months refused', () => {
  assert.equal(durationSeconds('PT20M'), 1200);
  assert.equal(durationSeconds('P1DT12H'), 129_600);
  assert.equal(durationSeconds('P2W'), 1_209_600);
  assert.equal(durationSeconds('PT30.5S'), 30.5);
  for (const bad of ['P', 'PT', 'P1M', 'P1Y', '20M', 'PT-5M', 1200, null]) assert.equal(durationSeconds(bad), null, String(bad));
});

test('callbacks: the token in the URL (or a signature), our sender id, 19-digit tokens read as text', () => {
  const status = '{"message_token":5379697806260881548,"message_status":0,"message_time":1700000000000,"phone_number":"420601123456","service_id":1234}';
  const parsed = parseCallback(call(status), channel, settings);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.events, [
    {
      kind: 'status',
      user: { phoneNumber: '+420601123456' },
      at: 1700000000000,
      eventKey: '5379697806260881548:delivered',
      report: { messageExternalId: '5379697806260881548', status: 'delivered', final: true, platformCode: '0' },
    },
  ]);
  assert.deepEqual(parseCallback(call(status, 'wrong-key-of-the-channel-callbacks'), channel, settings), {
    ok: false,
    status: 403,
    message: 'The callback URL has no token or a wrong one.',
  });
  assert.equal(
    parseCallback(call(status, channel.secrets.callback_secret, 'ab'.repeat(32)), channel, settings).ok,
    true,
    'no signature asked in mode url_token',
  );
  assert.equal(parseCallback(call(status, '', 'ab'.repeat(32)), channel, signed).ok, false, 'mode signature: a wrong signature');
  assert.equal(parseCallback(call(status, ''), channel, signed).ok, true, 'mode signature: the signature alone');
  const foreign = status.replace('"service_id":1234', '"service_id":9999');
  assert.equal(parseCallback(call(foreign), channel, settings).ok, false, 'the shared id only in shared mode');
  assert.equal(parseCallback(call(foreign), { ...channel, mode: 'shared' }, settings).ok, true);
  const seen = parseCallback(call(status.replace('"message_status":0', '"message_status":1')), channel, settings);
  assert.ok(seen.ok);
  assert.equal(seen.events[0]!.kind, 'read');
  const remapped = parseCallback(call(status), channel, { ...settings, statusCodes: parseStatusCodes('0=seen,1=delivered')! });
  assert.ok(remapped.ok);
  assert.equal(remapped.events[0]!.kind, 'read', 'APPMSG_BUSINESS_STATUS_CODES changes the map');
  const bad = parseCallback(call('not json'), channel, settings);
  assert.equal(bad.ok ? 0 : bad.status, 400);
});

test('rendering: TTL rounded up and capped, too little left refused; file names shortened keeping the extension', () => {
  const to = { id: '1', externalId: null, phoneNumber: '+420601123456', userRef: null, email: null, name: null };
  const text = { id: '77', content: { type: 'text' as const, payload: 'hi' } };
  const legacy = { ...channel, config: { ...channel.config, legacy_plain_text: true } };
  const closed = renderMessage(channel, '1234', to, text);
  assert.equal(closed.ok ? '' : closed.code, 'plain_text_closed', 'plain text only on a channel whose sender id may still send it');
  const r = renderMessage(legacy, '1234', to, { ...text, ttlMs: 29_950 + 50 });
  assert.ok(r.ok);
  assert.deepEqual(r.value, {
    service_id: 1234,
    dest: '420601123456',
    seq: 77,
    label: 'transaction',
    ttl: 30,
    type: 206,
    message: { '#txt': 'hi', '#tracking_data': '77' },
  });
  const capped = renderMessage(legacy, '1234', to, { ...text, ttlMs: 30 * 86_400_000 });
  assert.equal(capped.ok && capped.value.ttl, 1_209_600);
  const late = renderMessage(legacy, '1234', to, { ...text, ttlMs: 29_000 });
  assert.equal(late.ok ? '' : late.code, 'ttl_elapsed');
  assert.equal(messageFailedCode('appmsg_business_messages', 'ttl_elapsed'), 4);
  assert.deepEqual(shortFileName('https://x.example/a/quarterly-report-for-shareholders.PDF'), { name: 'quarterly-report-for-.pdf', extension: 'pdf' });
  assert.deepEqual(shortFileName('https://x.example/short.txt'), { name: 'short.txt', extension: 'txt' });
});

test('status codes: 8 -> code 2, 9 -> code 3, 1 and 7 tried again, others code 1', () => {
  assert.equal(messageFailedCode('appmsg_business_messages', statusFailure(8).code), 2);
  assert.equal(messageFailedCode('appmsg_business_messages', statusFailure(9).code), 3);
  for (const s of [1, 7]) assert.equal(statusFailure(s).retryable, true);
  for (const s of [2, 6, 10, 11, 13, 20, 21, 43]) {
    assert.equal(statusFailure(s).retryable, false);
    assert.equal(messageFailedCode('appmsg_business_messages', statusFailure(s).code), 1);
  }
});
