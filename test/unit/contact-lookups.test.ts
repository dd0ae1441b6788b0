import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContactLookups, type ReadContacts } from '../../src/domain/contacts/lookups.js';
import type { ContactKey, ContactRow } from '../../src/store/repos/contacts.js';
import { contactRow } from '../helpers/store-rows.js';

function contact(id: number, channelId: number, phone: string): ContactRow {
  return contactRow({ id, account_id: 1, channel_id: channelId, phone_number: phone });
}

/** A store of contacts that records each read it is asked for. */
function recordingRead(rows: ContactRow[], fail?: Error) {
  const reads: Array<{ channelId: number; key: ContactKey; values: Array<string | number> }> = [];
  const read: ReadContacts = (accountId, channelId, key, values) => {
    reads.push({ channelId, key, values: [...values] });
    if (fail) return Promise.reject(fail);
    return Promise.resolve(rows.filter((r) => r.account_id === accountId && r.channel_id === channelId && values.some((v) => String(v) === String(r[key]))));
  };
  return { read, reads };
}

test('the lookups of one turn are one read per channel and key; each gets its own contact or undefined', async () => {
  const rows = [contact(1, 10, '+15550001'), contact(2, 10, '+15550002'), contact(3, 20, '+15550001')];
  const { read, reads } = recordingRead(rows);
  const lookups = new ContactLookups(read);
  const found = await Promise.all([
    lookups.find(1, 10, 'phone_number', '+15550001'),
    lookups.find(1, 10, 'phone_number', '+15550002'),
    lookups.find(1, 10, 'phone_number', '+15550009'),
    lookups.find(1, 10, 'phone_number', '+15550001'),
    lookups.find(1, 20, 'phone_number', '+15550001'),
    lookups.find(1, 10, 'id', 2),
  ]);
  assert.deepEqual(
    found.map((r) => r?.id),
    [1, 2, undefined, 1, 3, 2],
  );
  assert.deepEqual(reads, [
    { channelId: 10, key: 'phone_number', values: ['+15550001', '+15550002', '+15550009'] },
    { channelId: 20, key: 'phone_number', values: ['+15550001'] },
    { channelId: 10, key: 'id', values: [2] },
  ]);
});

test('lookups of a later turn are read again, not answered from the earlier read', async () => {
  const rows = [contact(1, 10, '+15550001')];
  const { read, reads } = recordingRead(rows);
  const lookups = new ContactLookups(read);
  assert.equal((await lookups.find(1, 10, 'phone_number', '+15550002'))?.id, undefined);
  rows.push(contact(2, 10, '+15550002'));
  assert.equal((await lookups.find(1, 10, 'phone_number', '+15550002'))?.id, 2);
  assert.equal(reads.length, 2);
});

test('a failed read fails every lookup that waited for it, and the next turn reads again', async () => {
  const failing = new ContactLookups(recordingRead([], new Error('database gone')).read);
  const both = [failing.find(1, 10, 'phone_number', '+15550001'), failing.find(1, 10, 'phone_number', '+15550002')];
  for (const p of both) await assert.rejects(p, /database gone/);
});

test('a turn with more values than one read takes is read in parts, each value answered', async () => {
  const rows = Array.from({ length: 1200 }, (_, i) => contact(i + 1, 10, `+1555${String(i).padStart(7, '0')}`));
  const { read, reads } = recordingRead(rows);
  const lookups = new ContactLookups(read);
  const found = await Promise.all(rows.map((r) => lookups.find(1, 10, 'phone_number', r.phone_number!)));
  assert.deepEqual(
    found.map((r) => r?.id),
    rows.map((r) => r.id),
  );
  assert.deepEqual(
    reads.map((r) => r.values.length),
    [500, 500, 200],
  );
});
