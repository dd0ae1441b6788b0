import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, verifyPassword } from '../../src/domain/users/password.js';
import { HashingBusy, PasswordWork } from '../../src/domain/users/hashing.js';

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

test('password work: two at once, a bounded queue served in order, then 503 in the error format at once', async () => {
  const work = new PasswordWork(2, 2);
  const releases: Array<() => void> = [];
  const started: number[] = [];
  const job = (n: number) =>
    work.run(
      () =>
        new Promise<number>((resolve) => {
          started.push(n);
          releases.push(() => resolve(n));
        }),
    );
  const running = [job(1), job(2), job(3), job(4)];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [1, 2], 'two run, two wait');
  assert.deepEqual(work.load, { active: 2, waiting: 2 });
  await assert.rejects(job(5), (error: unknown) => {
    assert.ok(error instanceof HashingBusy);
    assert.equal(error.status, 503);
    assert.equal(error.retryAfterSeconds, 1);
    assert.equal(error.message, 'The server is busy checking passwords. Try again in a moment.');
    return true;
  });
  releases.shift()!();
  assert.equal(await running[0], 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [1, 2, 3], 'the first waiter takes the freed turn');
  assert.deepEqual(work.load, { active: 2, waiting: 1 });
  const sixth = job(6);
  for (let turn = 0; turn < 10 && (releases.length > 0 || started.length < 5); turn++) {
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await Promise.all([...running, sixth]), [1, 2, 3, 4, 6]);
  assert.deepEqual(started, [1, 2, 3, 4, 6]);
  assert.deepEqual(work.load, { active: 0, waiting: 0 });
  // A failing job gives its turn back too.
  await assert.rejects(
    work.run(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.deepEqual(work.load, { active: 0, waiting: 0 });
});
