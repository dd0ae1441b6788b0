/**
 * The limit of the web chat fan-out benchmark: a bare socket.io server (same library and
 * version as the service) that accepts any connection and, for each `POST /send` with a JSON
 * body {n, payload}, emits `message_server` to its n-th connection (round robin), as the service
 * pushes a Send Message to one session. No store, no authentication, no handshake checks.
 * Prints {port}; on SIGTERM prints {}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';

const sockets: Socket[] = [];
const http = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/send') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { n: number; payload: string };
    const socket = sockets[body.n % Math.max(1, sockets.length)];
    socket?.emit('message_server', { id: String(body.n), content: { type: 'text', payload: body.payload } });
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
const io = new Server(http, { serveClient: false });
io.on('connection', (socket) => {
  sockets.push(socket);
  socket.emit('connection_accepted', { session_id: socket.id });
  socket.on('disconnect', () => sockets.splice(sockets.indexOf(socket), 1));
});
http.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (http.address() as AddressInfo).port })}\n`));
process.once('SIGTERM', () => {
  void io.close();
  process.stdout.write('{}\n');
  process.exit(0);
});
