/**
 * The baseline of the Send Message benchmark: a bare Fastify endpoint with the same body
 * validation as POST /v1/messages (the route schema through the same validator compiler, then
 * the same content rules), answering a message of the same shape, with no store, no auth and no
 * quota. Prints {port} when ready.
 */
import Fastify from 'fastify';
import { validatorCompiler } from '../../src/api/validator.js';
import { parseSendRequest } from '../../src/domain/messages/request.js';
import { messageView } from '../../src/domain/messages/view.js';
import { SendMessageBody } from '../../src/schemas/content.js';

const app = Fastify({ logger: false });
app.setValidatorCompiler(validatorCompiler);
let id = 1;
app.post('/v1/messages', { schema: { body: SendMessageBody } }, async (request, reply) => {
  const send = parseSendRequest(request.body as SendMessageBody, {});
  const view = messageView({
    id: id++,
    direction: 'sent',
    sentAt: Date.now(),
    deliveredAt: null,
    readAt: null,
    channel: { id: send.channelId, type: 'mobile' },
    contact: { id: 1, phoneNumber: send.contact.phone_number ?? null, userRef: null },
    content: send.content,
    metadata: send.metadata,
  });
  return reply.code(201).header('Location', `http://127.0.0.1/v1/messages/${view.id}`).send(view);
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
