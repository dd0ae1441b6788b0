import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, verifyPassword } from '../../src/domain/users/password.js';

test('passwords are stored as scrypt$N$r$p$salt$hash with the contract parameters and a fresh salt', async () => {
  const stored = await hashPassword('correct horse battery');
  const [name, n, r, p, salt, hash] = stored.split('$');
  assert.deepEqual([name, n, r, p], ['scrypt', '32768', '8', '1']);
  assert.equal(Buffer.from(salt!, 'base64').length, 16);
  assert.equal(Buffer.from(hash!, 'base64').length, 64);
  assert.notEqual(await hashPassword('correct horse battery'), stored, 'another salt each time');
  assert.equal(await verifyPassword('correct horse battery', stored), true);
  assert.equal(await verifyPassword('correct horse batterY', stored), false);
});

test('a lower cost is kept in the hash, and a tampered or foreign hash matches nothing', async () => {
  const stored = await hashPassword('another long password', 10);
  assert.equal(stored.split('$')[1], '1024');
  assert.equal(await verifyPassword('another long password', stored), true);
  const [, , r, p, salt, hash] = stored.split('$');
  for (const bad of [
    `scrypt$${2 ** 24}$${r}$${p}$${salt}$${hash}`, // would ask for gigabytes
    `scrypt$1000$${r}$${p}$${salt}$${hash}`, // not a power of two
    `scrypt$1024$${r}$${p}$${salt}$${hash!.slice(0, 20)}`, // short key
    `bcrypt$1024$${r}$${p}$${salt}$${hash}`,
    '',
  ]) {
    assert.equal(await verifyPassword('another long password', bad), false, bad.slice(0, 30));
  }
});
