import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sentMessageUnit, type SentMessage } from '../../src/domain/messages/sent-message.js';
import { createSignals } from '../../src/domain/signals.js';
import { Outbox } from '../../src/domain/events/outbox.js';
import type { Channel } from '../../src/domain/channels/view.js';
import type { ContactRow } from '../../src/store/repos/contacts.js';
import { IdGenerator } from '../../src/lib/ids.js';
import { ManualClock } from '../../src/lib/clock.js';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);

const channel = (webhook: boolean): Channel => ({
  id: '42',
  accountId: 7,
  type: 'mobile',
  name: 'Alerts',
  mode: 'production',
  config: {},
  secrets: {},
  webhook: webhook ? { id: '9', url: 'https://receiver.example/hook', secret: 's', sslVerification: true } : null,
  settings: {},
  createdAt: '2026-01-01T00:00:00.000Z',
});

const contact: ContactRow = {
  id: 5,
  account_id: 7,
  channel_id: 42,
  external_id: null,
  phone_number: '+4915112345678',
  email: null,
  user_ref: null,
  name: null,
  profile: '{}',
  created_at: NOW,
  updated_at: NOW,
};

function message(overrides: Partial<SentMessage>): SentMessage {
  return {
    id: 1001,
    channel: channel(true),
    contact: { row: contact, isNew: false },
    content: { type: 'text', payload: 'Your code is 1234' },
    metadata: undefined,
    parts: undefined,
    outcome: { status: 'sent', externalId: null },
    idempotencyKey: null,
    requestHash: null,
    correlationId: null,
    now: NOW,
    ...overrides,
  };
}

const outbox = () =>
  new Outbox(
    new IdGenerator(0, () => NOW),
    new ManualClock(NOW),
    createSignals(() => undefined),
  );

describe('the sent side of Send Message as one write unit', () => {
  test('a queued message: the row with its request facts, a new contact ensured, the message_echo event and its webhook delivery', () => {
    const { row, view, unit } = sentMessageUnit(
      outbox(),
      message({
        contact: { row: contact, isNew: true },
        metadata: { order: 'A-17' },
        parts: { count: 2, encoding: 'GSM-7' },
        outcome: { status: 'queued', externalId: null },
        idempotencyKey: 'key-1',
        requestHash: 'abc',
        correlationId: 'req-1',
      }),
    );
    assert.deepEqual(row, {
      id: 1001,
      account_id: 7,
      channel_id: 42,
      contact_id: 5,
      direction: 'sent',
      content: '{"type":"text","payload":"Your code is 1234"}',
      metadata: '{"order":"A-17"}',
      status: 'queued',
      external_id: null,
      error: null,
      idempotency_key: 'key-1',
      request_hash: 'abc',
      sent_at: NOW,
      delivered_at: null,
      read_at: null,
      created_at: NOW,
      part_count: 2,
      part_encoding: 'GSM-7',
      correlation_id: 'req-1',
    });
    assert.deepEqual(view, {
      id: '1001',
      direction: 'sent',
      sent: '2026-03-01T12:00:00.000Z',
      delivered: null,
      read: null,
      channel: { id: '42', type: 'mobile' },
      contact: { id: '5', phone_number: '+4915112345678' },
      content: { type: 'text', payload: 'Your code is 1234' },
      metadata: { order: 'A-17' },
    });
    assert.deepEqual(unit.insert.messages, [row]);
    assert.deepEqual(unit.ensure, { contacts: [contact] });
    const [event] = unit.insert.events ?? [];
    assert.equal(event?.type, 'message_echo');
    assert.equal(event?.message_id, 1001);
    assert.equal(event?.correlation_id, 'req-1');
    const body = JSON.parse(event!.body) as { event: string; data: Record<string, unknown> };
    assert.equal(body.event, 'message_echo');
    assert.deepEqual(body.data, { ...view, channel: { id: '42', type: 'mobile', name: 'Alerts' } });
    assert.equal(unit.insert.deliveries?.length, 1);
    assert.equal(unit.insert.deliveries?.[0]?.event_id, event!.id);
    assert.equal(unit.insert.deliveries?.[0]?.webhook_id, 9);
    assert.equal(unit.insert.jobs, undefined, 'the caller adds the send job');
  });

  test('a message the platform took: its id kept; no webhook, so no event row and no delivery; a known contact is not inserted again', () => {
    const { row, view, unit } = sentMessageUnit(outbox(), message({ channel: channel(false), outcome: { status: 'sent', externalId: 'plat-1' } }));
    assert.equal(row.status, 'sent');
    assert.equal(row.external_id, 'plat-1');
    assert.equal(row.metadata, null);
    assert.equal(row.part_count, null);
    assert.equal(view.metadata, undefined);
    assert.equal(unit.ensure, undefined);
    assert.equal(unit.insert.events, undefined);
    assert.equal(unit.insert.deliveries, undefined);
  });

  test('a message the platform refused: kept failed with its reason, not echoed', () => {
    const failure = { ok: false as const, retryable: false, code: 'blocked', message: 'The user blocked the sender.' };
    const { row, unit } = sentMessageUnit(outbox(), message({ outcome: { status: 'failed', failure } }));
    assert.equal(row.status, 'failed');
    assert.equal(row.external_id, null);
    assert.deepEqual(JSON.parse(row.error!), { code: 'blocked', message: 'The user blocked the sender.' });
    assert.equal(unit.insert.events, undefined);
    assert.equal(unit.insert.deliveries, undefined);
  });
});

describe('which events the outbox keeps a row of', () => {
  const about = (webhook: boolean, messageId?: number) =>
    outbox().build({ type: 'message_echo', channel: channel(webhook), contactId: 5, data: {}, ...(messageId === undefined ? {} : { messageId }) });

  test('an event about a message: a row and a delivery with a webhook, nothing without one', () => {
    const kept = about(true, 1001);
    assert.equal(kept.event?.message_id, 1001);
    assert.equal(kept.delivery?.event_id, kept.event?.id);
    assert.deepEqual(about(false, 1001), { event: null, delivery: null });
  });

  test('an event about no single message keeps its row without a webhook (its inbound key, the contact activity)', () => {
    const postback = outbox().build({ type: 'postback', channel: channel(false), contactId: 5, data: {} });
    assert.equal(postback.event?.contact_id, 5);
    assert.equal(postback.delivery, null);
  });
});
