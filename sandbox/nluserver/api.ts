import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { isRecord } from '../shared/values.js';
import { parseText } from './classify.js';
import { applyFault, checkToken, loadedModel, type NluContext } from './context.js';
import { ConnectionDrop, errorBody, NluError, noText, reasonOf, unparsable } from './errors.js';
import type { NluModel } from './state.js';

// The server's HTTP API as far as a client of its parse endpoint needs it: GET /, GET /version,
// GET /status and POST /model/parse.

/** A request body that is not JSON, kept as received so the request log shows it. */
class UnreadableBody {
  constructor(readonly unreadable_body: string) {}
}

/** The server reads any body as JSON whatever its content type, and only once a route asks for it. */
function readBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return new UnreadableBody(raw);
  }
}

function textOf(body: unknown): string {
  if (body === undefined || body === null) throw noText();
  if (body instanceof UnreadableBody) throw unparsable('Failed when parsing body as json');
  if (!isRecord(body)) throw unparsable('the body must be a JSON object');
  // Its default emulation takes the first item when `text` is a list.
  const text = Array.isArray(body.text) ? (body.text[0] as unknown) : body.text;
  if (typeof text !== 'string') throw unparsable("'text'");
  return text;
}

interface Needs {
  /** The route is behind token auth. */
  auth: boolean;
  /** The route answers 409 without a loaded model. */
  model: boolean;
}

/**
 * One platform call in the server's order: token, then (the stand-in's) fault, then the loaded
 * model, then the work; a `slow_answer` fault holds the finished answer back.
 */
async function serve(
  ctx: NluContext,
  req: FastifyRequest,
  reply: FastifyReply,
  endpoint: string,
  needs: Needs,
  work: (model: NluModel | null) => unknown,
): Promise<unknown> {
  try {
    if (needs.auth) checkToken(ctx, req);
    const holdMs = await applyFault(ctx, endpoint);
    const answer = work(needs.model ? loadedModel(ctx) : ctx.state.model);
    if (holdMs > 0) await ctx.sleeper.sleep(holdMs);
    return answer;
  } catch (err) {
    if (!(err instanceof ConnectionDrop)) throw err;
    // No answer at all: logged here, since the request log's hook sees only answers.
    const path = req.url.split('?')[0] ?? req.url;
    ctx.state.requests.add({
      at: ctx.state.clock.now(),
      method: req.method,
      path,
      query: { ...(req.query as Record<string, unknown>) },
      body: req.body,
      status: 0,
      response: null,
    });
    reply.hijack();
    req.raw.socket.destroy();
    return reply;
  }
}

export function registerApi(app: FastifyInstance, ctx: NluContext): void {
  const { options } = ctx;

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, readBody(String(body))));

    scope.get('/', async (req, reply) =>
      serve(ctx, req, reply, 'root', { auth: false, model: false }, () => {
        reply.type('text/plain; charset=utf-8');
        return `Hello from ${options.serverName}: ${options.version}`;
      }),
    );

    scope.get('/version', async (req, reply) =>
      serve(ctx, req, reply, 'version', { auth: false, model: false }, () => ({
        version: options.version,
        minimum_compatible_version: options.minimumCompatibleVersion,
      })),
    );

    scope.get('/status', async (req, reply) =>
      serve(ctx, req, reply, 'status', { auth: true, model: true }, (model) => ({
        model_file: model!.file,
        model_id: model!.id,
        num_active_training_jobs: 0,
      })),
    );

    // `emulation_mode` (answers shaped like other NLU services') is not simulated: always the server's own shape.
    scope.post('/model/parse', async (req, reply) =>
      serve(ctx, req, reply, 'parse', { auth: true, model: true }, (model) => parseText(model!, textOf(req.body), options.rankingLength)),
    );
  });

  app.setErrorHandler((err: unknown, req, reply) => {
    const e = err as { statusCode?: number; message?: string };
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    const status = e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
    const nluErr = err instanceof NluError ? err : new NluError(status, reasonOf(status), e.message ?? 'error');
    return reply.code(nluErr.httpStatus).headers(nluErr.headers).send(errorBody(nluErr, options.version));
  });

  // The server's framework answers unknown paths with its own JSON error (not the API's error body).
  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    const path = req.url.split('?')[0] ?? req.url;
    return reply.code(404).send({ description: 'Not Found', status: 404, message: `Requested URL ${path} not found` });
  });
}
