/**
 * The browsers of the web chat fan-out benchmark, in a process of their own: BENCH_SESSIONS
 * socket.io clients of the widget's protocol (handshake query v=1, channel_id, a new session
 * each; websocket transport), spread in turn over the origins in BENCH_ORIGINS (comma-separated).
 * Each `message_server` whose payload is `m:<time>` counts one arrival with its latency, the
 * difference between that time (taken by the sender just before its request, on this machine's
 * clock) and its arrival here. Prints {connected, refused, connectSeconds} once all are connected;
 * on SIGTERM prints {received, warmup, latencyMs} and exits.
 */
import { io, type Socket } from 'socket.io-client';

const origins = (process.env.BENCH_ORIGINS ?? '').split(',').filter((o) => o.length > 0);
const sessions = Number(process.env.BENCH_SESSIONS ?? 1000);
const channelId = process.env.BENCH_CHANNEL_ID ?? '';
const page = process.env.BENCH_PAGE ?? 'https://shop.example.com';
if (origins.length === 0) throw new Error('BENCH_ORIGINS is required');

const now = () => performance.timeOrigin + performance.now();
const latencies: number[] = [];
let warmup = 0;
const sockets: Socket[] = [];

function open(i: number): Promise<boolean> {
  const socket = io(origins[i % origins.length]!, {
    query: { v: '1', channel_id: channelId },
    extraHeaders: { origin: page },
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  sockets.push(socket);
  socket.on('message_server', (m: { content?: { payload?: string } }) => {
    const payload = m.content?.payload ?? '';
    if (payload.startsWith('m:')) latencies.push(now() - Number(payload.slice(2)));
    else if (payload.startsWith('w:')) warmup += 1;
  });
  return new Promise((resolve) => {
    socket.once('connection_accepted', () => resolve(true));
    socket.once('connection_rejected', () => resolve(false));
    socket.once('connect_error', () => resolve(false));
  });
}

const started = performance.now();
let connected = 0;
let refused = 0;
// A few hundred handshakes at a time, as visitors arriving, not all in one instant.
for (let i = 0; i < sessions; i += 200) {
  const batch = await Promise.all(Array.from({ length: Math.min(200, sessions - i) }, (_, k) => open(i + k)));
  for (const ok of batch)
    if (ok) connected += 1;
    else refused += 1;
}
process.stdout.write(`${JSON.stringify({ connected, refused, connectSeconds: Math.round((performance.now() - started) / 100) / 10 })}\n`);

process.once('SIGTERM', () => {
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies.length === 0 ? 0 : Math.round(latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]! * 10) / 10;
  process.stdout.write(`${JSON.stringify({ received: latencies.length, warmup, latencyMs: { p50: at(50), p90: at(90), p99: at(99), max: at(100) } })}\n`);
  for (const s of sockets) s.close();
  process.exit(0);
});
setInterval(() => undefined, 60_000);
