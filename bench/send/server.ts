/**
 * The Parley side of the Send Message benchmark: the whole service (auth, quota, group commit)
 * on the database in BENCH_DATABASE_URL, with an enterprise account whose quota cannot interfere
 * and a mobile channel in test mode. Prints one JSON line {port, token, channelId} when ready;
 * on SIGTERM closes (every accepted write committed) and prints {stored} (messages in the store).
 */
import { startSendTarget } from '../shared/send-target.js';

const { runtime, accessToken, channel } = await startSendTarget();
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
