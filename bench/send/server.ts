/**
 * The Parley side of the Send Message benchmark: the whole service (auth, quota, group commit)
 * on the database in BENCH_DATABASE_URL, with an enterprise account whose quota cannot interfere
 * and a mobile channel in test mode. Prints one JSON line {port, token, channelId} when ready;
 * on SIGTERM closes (every accepted write committed) and prints {stored} (messages in the store).
 *
 * With BENCH_WEBHOOK=1 the channel has a webhook: each send also writes its event and the event's
 * delivery (never delivered here: no webhook worker runs).
 *
 * With BENCH_WRITE_NOOP=1 the store's group-commit write is replaced by one that does nothing (a
 * reference run, never a result: nothing is stored). Everything else runs as usual, so the run
 * shows what the service costs apart from its write: the ceiling any store's write starts from.
 */
import { WriteBatcher } from '../../src/store/write-batcher.js';
import { startSendTarget } from '../shared/send-target.js';

const { runtime, accessToken, channel } = await startSendTarget({}, { webhook: process.env.BENCH_WEBHOOK === '1' });
if (process.env.BENCH_WRITE_NOOP === '1') {
  // Grouped as the store groups them (the units of one event-loop turn settle together), so the
  // turns, the wake-ups after a commit and the answers go as they do with a real write.
  const batcher = new WriteBatcher(
    (batch) => {
      for (const unit of batch) unit.resolve();
      return Promise.resolve();
    },
    { maxInFlight: 1, maxUnits: 1000 },
  );
  runtime.store.batchWrite = (unit) => batcher.submit(unit);
}
await runtime.app.listen({ port: 0, host: '127.0.0.1' });
const address = runtime.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port, token: accessToken, channelId: channel.id })}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await runtime.app.close();
    const row = await runtime.store.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    process.stdout.write(`${JSON.stringify({ stored: Number(row.n) })}\n`);
    await runtime.close();
    process.exit(0);
  })();
});
