#!/usr/bin/env node
// A webhook receiver for trying Parley on your own machine: it prints every event it is sent and
// checks the event's signature.
//
//   node scripts/webhook-receiver.mjs [port]        (default port 4000, on 127.0.0.1)
//
// The signature key is the channel's webhook.secret. With PARLEY_WEBHOOK_SECRET set, that one
// secret is used for every event; otherwise the receiver reads each channel's secret from the API
// with the TOKEN and API variables of the quick start (README.md), so it serves every channel of
// the account. A production receiver keeps its secret in its own configuration instead; see
// docs/webhooks.md.
import { createServer } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';

const port = Number(process.argv[2] ?? 4000);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`usage: node scripts/webhook-receiver.mjs [port]   (got port ${process.argv[2]})`);
  process.exit(2);
}
const fixedSecret = process.env.PARLEY_WEBHOOK_SECRET || undefined;
const api = (process.env.API || 'http://localhost:8080/v1').replace(/\/+$/, '');
const token = process.env.TOKEN || undefined;
if (!fixedSecret && !token) {
  console.error('Set TOKEN (and API) as in the quick start, or PARLEY_WEBHOOK_SECRET to the webhook.secret of your channel.');
  process.exit(2);
}

/** Secrets read through the API, by channel id (a changed secret is read again on a mismatch). */
const secrets = new Map();

async function channelSecret(channelId, fresh) {
  if (fixedSecret) return fixedSecret;
  if (!fresh && secrets.has(channelId)) return secrets.get(channelId);
  const res = await fetch(`${api}/channels/${encodeURIComponent(channelId)}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${api}/channels/${channelId} answered ${res.status}`);
  const secret = (await res.json()).webhook?.secret;
  if (typeof secret !== 'string') throw new Error(`channel ${channelId} has no webhook`);
  secrets.set(channelId, secret);
  return secret;
}

/** Constant-time comparison of a signature header with the HMAC of the raw body. */
function signed(header, algorithm, body, secret) {
  const expected = Buffer.from(`${algorithm}=${createHmac(algorithm, secret).update(body).digest('hex')}`);
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function verify(req, body, channelId) {
  for (const fresh of [false, true]) {
    if (fresh && fixedSecret) break;
    const secret = await channelSecret(channelId, fresh);
    if (signed(req.headers['x-hub-signature-256'], 'sha256', body, secret) && signed(req.headers['x-hub-signature'], 'sha1', body, secret)) return true;
  }
  return false;
}

async function handle(req, body) {
  let event;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    return { status: 400, line: `${req.method} ${req.url}: the body is not JSON` };
  }
  const channelId = event?.data?.channel?.id;
  let valid = false;
  let problem = '';
  try {
    valid = await verify(req, body, String(channelId ?? ''));
  } catch (err) {
    problem = ` (${err instanceof Error ? err.message : String(err)})`;
  }
  const head = `${event.event} (event ${req.headers['x-parley-event-id'] ?? '?'}, attempt ${req.headers['x-parley-attempt'] ?? '?'}) signature ${valid ? 'verified' : `INVALID${problem}`}`;
  return { status: valid ? 200 : 401, line: `${head}\n${JSON.stringify(event, null, 2)}` };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    // The HMAC is computed over the exact bytes received, before any parsing.
    handle(req, Buffer.concat(chunks)).then(
      ({ status, line }) => {
        console.log(line);
        res.writeHead(status).end();
      },
      (err) => {
        console.error(err);
        res.writeHead(500).end();
      },
    );
  });
});
server.listen(port, '127.0.0.1', () => {
  const how = fixedSecret ? 'PARLEY_WEBHOOK_SECRET' : `each channel's webhook.secret from ${api}`;
  console.log(`Webhook receiver on http://127.0.0.1:${port}/ (signatures checked with ${how}); Ctrl+C stops it`);
});
