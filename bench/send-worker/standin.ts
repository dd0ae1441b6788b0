/**
 * The platform side of the send-worker benchmark: the smsprovider stand-in (sandbox/smsprovider)
 * in a process of its own on 127.0.0.1, with a live access key given in BENCH_SMS_KEY, so that
 * neither the service nor the load shares its event loop. It notes the wall time at which each
 * message arrived (by its `reference`, the service's message id) and answers two routes of its
 * own beside the provider's API:
 *   GET /_bench/arrivals           {count, firstAt, lastAt}
 *   GET /_bench/arrivals?all=1     the same and {references: {reference: arrivedAt}}
 *   POST /_bench/reset             forgets the messages and arrivals (between runs)
 * Prints one JSON line {url} when listening; ends on SIGTERM.
 */
import { createSmsproviderStandIn } from '../../sandbox/smsprovider/server.js';

const key = process.env.BENCH_SMS_KEY;
if (!key) throw new Error('BENCH_SMS_KEY is required');
const standIn = createSmsproviderStandIn({ accessKey: key, signingKey: process.env.BENCH_SMS_SIGNING_KEY ?? 'bench-signing-key' });

let arrivals = new Map<string, number>();
let firstAt = 0;
let lastAt = 0;
let count = 0;

// Noted when the request arrives, before the stand-in parses and answers it.
standIn.app.addHook('onRequest', async (req) => {
  if (req.method === 'POST' && req.url === '/messages') (req as unknown as { benchAt: number }).benchAt = Date.now();
});
standIn.app.addHook('onResponse', async (req, reply) => {
  const at = (req as unknown as { benchAt?: number }).benchAt;
  if (at === undefined || reply.statusCode !== 201) return;
  const reference = (req.body as { reference?: unknown } | undefined)?.reference;
  count += 1;
  if (firstAt === 0) firstAt = at;
  lastAt = at;
  if (typeof reference === 'string') arrivals.set(reference, at);
});
standIn.app.get<{ Querystring: { all?: string } }>('/_bench/arrivals', async (req) => ({
  count,
  distinct: arrivals.size,
  firstAt,
  lastAt,
  ...(req.query.all ? { references: Object.fromEntries(arrivals) } : {}),
}));
standIn.app.post('/_bench/reset', async () => {
  arrivals = new Map();
  firstAt = 0;
  lastAt = 0;
  count = 0;
  // The stand-in keeps every message it took; a benchmark run does not read them back.
  standIn.state.messages.length = 0;
  standIn.state.requests.clear();
  return { ok: true };
});

const url = await standIn.listen(Number(process.env.BENCH_SMS_PORT ?? 0), '127.0.0.1');
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.once('SIGTERM', () => {
  void standIn.close().then(() => process.exit(0));
});
