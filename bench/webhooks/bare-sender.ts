/**
 * The limit of the webhook benchmark: the calls the worker makes, without the worker. Builds
 * BENCH_EVENTS event bodies shaped like the service's, signs each with the service's own header
 * function, and POSTs them to BENCH_RECEIVER_URL over kept-alive connections with
 * BENCH_CONCURRENCY calls in flight (the worker's cap per receiver), reading each answer. No store,
 * no claim, no queue. Prints {ready: true} as it starts sending and {sent, errors} when done.
 */
import { Pool } from 'undici';
import { webhookHeaders } from '../../src/delivery/signing.js';

const receiverUrl = process.env.BENCH_RECEIVER_URL;
if (!receiverUrl || new URL(receiverUrl).hostname !== '127.0.0.1') throw new Error('BENCH_RECEIVER_URL on 127.0.0.1 is required');
const events = Number(process.env.BENCH_EVENTS ?? 20_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const url = new URL(`${receiverUrl}/c0`);
const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });

let sent = 0;
let errors = 0;
let next = 0;
async function lane(): Promise<void> {
  while (next < events) {
    const n = next++;
    const body = Buffer.from(
      JSON.stringify({
        id: String(1_000_000 + n),
        type: 'message_echo',
        timestamp: new Date().toISOString(),
        data: { channel: { id: '1', type: 'mobile' }, n, content: { type: 'text', payload: 'benchmark' } },
      }),
      'utf8',
    );
    const headers = webhookHeaders(
      { eventId: 1_000_000 + n, eventType: 'message_echo', deliveryId: 2_000_000 + n, attempt: 1, body, secret: 'bench-secret' },
      'Parley-Webhooks/1.0',
    );
    try {
      const res = await pool.request({ path: url.pathname, method: 'POST', headers, body });
      await res.body.text();
      sent += 1;
    } catch {
      errors += 1;
    }
  }
}

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
process.once('SIGTERM', () => process.exit(0));
await Promise.all(Array.from({ length: concurrency }, () => lane()));
await pool.close();
process.stdout.write(`${JSON.stringify({ sent, errors })}\n`);
// Stays until the benchmark stops it, like the service's process.
setInterval(() => undefined, 60_000);
